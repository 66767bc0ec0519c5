import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { createApp } from '../api/app';
import { AppDeps } from '../api/context';
import { requestListener } from '../api/listen';
import { provisionTenant } from '../db/tenants';

/** An API served on a loopback port with a fresh enterprise tenant, its admin signed in. */
export interface BenchApi {
  baseUrl: string;
  token: string;
  tenantId: string;
}

/**
 * Serves the API on the stack's dependencies (bench/run.ts), provisions an enterprise tenant
 * (no plan limits, the highest rate limit), signs its admin in, runs `work`, and closes the server.
 */
export async function withBenchApi<T>(deps: AppDeps, label: string, work: (api: BenchApi) => Promise<T>): Promise<T> {
  const server = createServer(requestListener(createApp(deps).app.callback()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const suffix = randomUUID().slice(0, 8);
    const email = `${label}-bench-${suffix}@bench.example.com`;
    const password = `bench-password-${suffix}`;
    const { tenant_id: tenantId } = await provisionTenant(deps.db, { name: `${label} bench ${suffix}`, plan: 'enterprise', adminEmail: email, adminPassword: password });
    const login = await fetch(`${baseUrl}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
    const { access_token: token } = (await login.json()) as { access_token: string };
    return await work({ baseUrl, token, tenantId });
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
