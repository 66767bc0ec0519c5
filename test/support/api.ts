/**
 * API tests: the real app (createApp + real deps from the environment the global setup exported)
 * listening on a free loopback port, and helpers to make tenants and sign in. Requests go over
 * real HTTP with fetch, and every response is checked against the OpenAPI document
 * (response-contract.ts).
 */
import { randomUUID } from 'node:crypto';
import { AddressInfo } from 'node:net';
import { createServer, Server } from 'node:http';
import { requestListener } from '../../api/listen';
import { createApp } from '../../api/app';
import { AppDeps } from '../../api/context';
import { createDeps } from '../../api/deps';
import { provisionTenant } from '../../db/tenants';
import { hashPassword } from '../../domain/auth/passwords';
import { PlanName } from '../../domain/tenancy/plans';
import { Config, loadConfig } from '../../infra/config';
import { createContractCheck } from './response-contract';

export interface TestApi {
  baseUrl: string;
  deps: AppDeps;
  request(path: string, init?: RequestInit & { token?: string; json?: unknown }): Promise<TestResponse>;
  close(): Promise<void>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export async function startTestApi(overrides: Partial<Config> = {}): Promise<TestApi> {
  const config = { ...loadConfig(process.env), ...overrides };
  const deps = createDeps(config);
  const { app, routes } = createApp(deps);
  const contract = createContractCheck(routes);
  const server: Server = createServer(requestListener(app.callback()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl,
    deps,
    request: async (path, init = {}) => {
      const res = await send(baseUrl, path, init);
      const violation = contract.violation((init.method ?? 'GET').toUpperCase(), path.split('?')[0]!, res.status, res.headers.get('content-type') ?? '', res.body);
      // A drift between the API and its OpenAPI document fails the test that saw it.
      if (violation) throw new Error(`response does not match the OpenAPI document: ${violation}`);
      return res;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await deps.close();
    },
  };
}

export async function send(baseUrl: string, path: string, init: RequestInit & { token?: string; json?: unknown } = {}): Promise<TestResponse> {
  const headers = new Headers(init.headers);
  if (init.token) headers.set('Authorization', `Bearer ${init.token}`);
  let body = init.body;
  if (init.json !== undefined) {
    headers.set('Content-Type', 'application/json');
    body = JSON.stringify(init.json);
  }
  const res = await fetch(`${baseUrl}${path}`, { ...init, headers, body });
  const text = await res.text();
  let parsed: unknown = undefined;
  if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
  return { status: res.status, headers: res.headers, body: parsed, text };
}

export interface TestTenant {
  tenantId: string;
  adminUserId: string;
  email: string;
  password: string;
  /** A fresh access token of the tenant's admin. */
  token: string;
  refreshToken: string;
}

/** A new tenant with its admin, signed in through the real login endpoint. */
export async function createTenant(api: TestApi, plan: PlanName = 'enterprise'): Promise<TestTenant> {
  const suffix = randomUUID().slice(0, 8);
  const email = `admin-${suffix}@tenant-${suffix}.example.com`;
  const password = `pw-${randomUUID()}`;
  const t = await provisionTenant(api.deps.db, { name: `Tenant ${suffix}`, plan, adminEmail: email, adminPassword: password });
  const login = await api.request('/api/v1/auth/login', { method: 'POST', json: { email, password } });
  if (login.status !== 200) throw new Error(`login failed: ${login.status} ${login.text}`);
  return { tenantId: t.tenant_id, adminUserId: t.admin_user_id, email, password, token: login.body.access_token, refreshToken: login.body.refresh_token };
}

/** Another user of an existing tenant with the given role, signed in. */
export async function createUser(api: TestApi, tenantId: string, role: 'admin' | 'manager' | 'technician' | 'viewer'): Promise<{ userId: string; token: string }> {
  const suffix = randomUUID().slice(0, 8);
  const email = `${role}-${suffix}@example.com`;
  const password = `pw-${randomUUID()}`;
  const [user] = await api.deps
    .db('users')
    .insert({ tenant_id: tenantId, email, password_hash: await hashPassword(password), role })
    .returning('id');
  const login = await api.request('/api/v1/auth/login', { method: 'POST', json: { email, password } });
  if (login.status !== 200) throw new Error(`login failed: ${login.status} ${login.text}`);
  return { userId: user.id, token: login.body.access_token };
}

/** Asserts the shape every error response shares. */
export function expectError(res: TestResponse, status: number, code: string): void {
  expect({ status: res.status, code: res.body?.error_code }).toEqual({ status, code });
  expect(typeof res.body.detail).toBe('string');
  expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
}
