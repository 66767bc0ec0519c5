/**
 * Review findings on sign-in and start-up: a login refused for capacity keeps the email's
 * attempts; a weaker stored password hash is rehashed at login without ending any session;
 * X-Forwarded-For without a trusted proxy is warned of once; a production process with an
 * unguarded /metrics refuses to start, saying why in a JSON line.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { hashPassword } from '../../domain/auth/passwords';
import { loadConfig } from '../../infra/config';
import { createTenant, expectError, startTestApi, TestApi, TestResponse } from '../support/api';
import { captureServiceLogs } from '../support/log-capture';

const base = loadConfig(process.env);
const ROOT = path.resolve(__dirname, '..', '..');

/** A fresh documentation-range address per call: the per-address counters start from zero. */
let nextHost = 1;
const address = () => `198.51.100.${nextHost++}`;

describe('a login refused for capacity', () => {
  let small: TestApi;
  beforeAll(async () => {
    // Every guess from an address of its own: the account's budget (10 here, no slowdown) is what refuses.
    small = await startTestApi({
      api: { ...base.api, trustedProxyHops: 1 },
      auth: { ...base.auth, passwordChecksInFlight: 1, passwordChecksQueued: 0, maxFailuresPerAccount: 10, slowdownAfterFailures: 1_000 },
    });
  });
  afterAll(() => small?.close());

  const wrongLogin = (email: string) =>
    small.request('/api/v1/auth/login', { method: 'POST', json: { email, password: 'wrong-password-123' }, headers: { 'X-Forwarded-For': address() } });

  it("is not counted against the account: only checked passwords spend the account's 10 attempts", async () => {
    const t = await createTenant(small);
    const flood = await Promise.all(Array.from({ length: 8 }, () => wrongLogin(t.email)));
    const checked = flood.filter((a) => a.status === 401).length;
    const capacity = flood.filter((a) => a.status === 429);
    expect(capacity.length).toBeGreaterThan(0);
    for (const refused of capacity) expect(refused.body.detail).toMatch(/password checks in progress/);

    // One at a time now: the email has exactly the attempts its checked passwords left.
    const after: TestResponse[] = [];
    for (let i = 0; i < 10 - checked; i += 1) after.push(await wrongLogin(t.email));
    expect(after.map((a) => a.status)).toEqual(Array(10 - checked).fill(401));
    const spent = await wrongLogin(t.email);
    expectError(spent, 429, 'RATE_LIMITED');
    expect(spent.body.detail).toMatch(/this email from many addresses/);
  });
});

describe('password hashes', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api?.close());

  it('a hash of weaker parameters is rehashed at the next login, keeping the sessions', async () => {
    const t = await createTenant(api);
    const email = `weak-${randomUUID().slice(0, 8)}@example.com`;
    const password = `pw-${randomUUID()}`;
    const weak = await hashPassword(password, { N: 2 ** 12, r: 8, p: 1 });
    const [user] = await api.deps.db('users').insert({ tenant_id: t.tenantId, email, password_hash: weak, role: 'viewer' }).returning(['id', 'token_version']);
    const stored = async () => (await api.deps.db('users').where({ id: user.id }).first('password_hash', 'token_version')) as { password_hash: string; token_version: number };

    expectError(await api.request('/api/v1/auth/login', { method: 'POST', json: { email, password: 'not-the-password' } }), 401, 'UNAUTHENTICATED');
    expect((await stored()).password_hash).toBe(weak);

    const login = await api.request('/api/v1/auth/login', { method: 'POST', json: { email, password } });
    expect(login.status).toBe(200);
    const { N, r, p } = api.deps.config.passwordHashing;
    const rehashed = await stored();
    expect(rehashed.password_hash.startsWith(`scrypt$${N}$${r}$${p}$`)).toBe(true);
    // No password change: the token version and the session of this very login stay valid.
    expect(rehashed.token_version).toBe(user.token_version);
    expect((await api.request('/api/v1/assets', { token: login.body.access_token })).status).toBe(200);
    expect((await api.request('/api/v1/auth/refresh', { method: 'POST', json: { refresh_token: login.body.refresh_token } })).status).toBe(200);
    // The same password opens the new hash, which is not rehashed again.
    expect((await api.request('/api/v1/auth/login', { method: 'POST', json: { email, password } })).status).toBe(200);
    expect((await stored()).password_hash).toBe(rehashed.password_hash);
  });
});

describe('X-Forwarded-For without a trusted proxy', () => {
  it('is warned of once per process, at the first request that carries it', async () => {
    const logs = captureServiceLogs();
    const direct = await startTestApi({ api: { ...base.api, trustedProxyHops: 0 } });
    const proxied = await startTestApi({ api: { ...base.api, trustedProxyHops: 1 } });
    try {
      const warnings = () => logs.lines().filter((l) => l.includes('API_TRUSTED_PROXY_HOPS=0'));
      expect((await direct.request('/livez')).status).toBe(200);
      expect((await proxied.request('/livez', { headers: { 'X-Forwarded-For': '203.0.113.9' } })).status).toBe(200);
      expect(warnings()).toEqual([]);
      for (let i = 0; i < 3; i += 1) await direct.request('/livez', { headers: { 'X-Forwarded-For': '203.0.113.9' } });
      expect(warnings()).toHaveLength(1);
      expect(JSON.parse(warnings()[0]!)).toMatchObject({ level: 40, component: 'api', trusted_proxy_hops: 0 });
    } finally {
      logs.stop();
      await direct.close();
      await proxied.close();
    }
  });
});

describe('an unguarded /metrics in production', () => {
  it.each(['api/server.js', 'workers/main.js'])('stops dist/%s at start with one JSON line naming METRICS_TOKEN', (script) => {
    const env = { ...process.env, APP_ENV: 'production', METRICS_TOKEN: '', TEST_SCRYPT_LOG2_N: '', WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: 'false' };
    const run = spawnSync(process.execPath, [path.join(ROOT, 'dist', script)], { env, encoding: 'utf8', timeout: 60_000 });
    expect(run.status).toBe(1);
    const lines = run.stdout.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]!);
    expect(line).toMatchObject({ level: 60, msg: expect.stringMatching(/refused to start: invalid configuration/) });
    expect(line.problems).toContain('METRICS_TOKEN is required in production: /metrics of the API and the worker would be open to anyone who reaches them');
  });
});
