import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { createApp } from '../api/app';
import { AppDeps } from '../api/context';
import { requestListener } from '../api/listen';
import { provisionTenant } from '../db/tenants';

/** A bench's API on a loopback port and its fresh enterprise tenant, the admin signed in. */
export interface BenchTenant {
  baseUrl: string;
  token: string;
  tenantId: string;
}

/** A fresh enterprise tenant named after `label`, its admin signed in at the API `baseUrl` (this process's or another's). */
export async function benchTenantOn(deps: Pick<AppDeps, 'db'>, baseUrl: string, label: string): Promise<BenchTenant> {
  const suffix = randomUUID().slice(0, 8);
  const email = `${label.toLowerCase()}-bench-${suffix}@bench.example.com`;
  const password = `bench-password-${suffix}`;
  const { tenant_id: tenantId } = await provisionTenant(deps.db, { name: `${label} bench ${suffix}`, plan: 'enterprise', adminEmail: email, adminPassword: password });
  const login = await fetch(`${baseUrl}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
  const { access_token: token } = (await login.json()) as { access_token: string };
  return { baseUrl, token, tenantId };
}

/**
 * Serves the API on a loopback port over `deps`, provisions a fresh enterprise tenant named after
 * `label`, signs its admin in, runs `bench` with the base URL and token, and closes the server.
 */
export async function withBenchTenant<T>(deps: AppDeps, label: string, bench: (api: BenchTenant) => Promise<T>): Promise<T> {
  const server = createServer(requestListener(createApp(deps).app.callback()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    return await bench(await benchTenantOn(deps, baseUrl, label));
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
