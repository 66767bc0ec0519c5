/**
 * `industrial-ops users ...` as a real process against the test stack: list, create within the
 * plan's limit, reset a password (sessions end), clear the login limiter's count of an account,
 * revoke sessions; with their output, exit codes, rows and audit records.
 */
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../../infra/config';
import { createTenant, expectError, startTestApi, TestApi, TestTenant } from '../support/api';
import { runCli, runJson, TEST_OPERATOR } from '../support/cli';

let api: TestApi;
let t: TestTenant;
const base = loadConfig(process.env);

beforeAll(async () => {
  // No session cache (a revocation is seen by the next request) and one proxy hop trusted, so each
  // login below comes from an address of its own and no other test file's counts interfere. The
  // account's budget across addresses is small and never slowed, so the unlock test reaches it fast.
  api = await startTestApi({
    api: { ...base.api, trustedProxyHops: 1 },
    auth: { ...base.auth, sessionCheckCacheMs: 0, maxFailuresPerAccount: 5, slowdownAfterFailures: 1000 },
  });
  t = await createTenant(api, 'free');
});
afterAll(() => api.close());

let nextHost = 1;
const address = () => `198.51.100.${nextHost++}`;
const login = (email: string, password: string, from = address()) =>
  api.request('/api/v1/auth/login', { method: 'POST', json: { email, password }, headers: { 'X-Forwarded-For': from } });
const auditOf = (userId: string, action: string) =>
  api.deps.db('audit_log').where({ tenant_id: t.tenantId, resource_id: userId, action }).select('actor_type', 'actor_id', 'details');
const newEmail = () => `user-${randomUUID().slice(0, 8)}@plant.example.com`;

describe('users', () => {
  it("creates users of a tenant within its plan's limit, who sign in; lists them; refuses an address in use", async () => {
    const email = newEmail();
    const created = await runJson(['users', 'create', t.tenantId, '--email', email.toUpperCase(), '--role', 'technician', '--name', 'Tess', '--password-stdin'], {
      input: 'a long enough password',
    });
    expect(created).toEqual({ id: expect.any(String), tenant_id: t.tenantId, email, name: 'Tess', role: 'technician', status: 'active', created_at: expect.any(String) });
    expect(await auditOf(created.id, 'user.created')).toEqual([{ actor_type: 'operator', actor_id: TEST_OPERATOR, details: { role: 'technician' } }]);
    expect((await login(email, 'a long enough password')).status).toBe(200);

    // The address of another tenant's user, which row-level security hides from this tenant: 409.
    const other = await createTenant(api);
    const taken = await runCli(['--json', 'users', 'create', t.tenantId, '--email', other.email, '--role', 'viewer', '--password-stdin'], { input: 'a long enough password' });
    expect({ code: taken.code, json: taken.json }).toEqual({ code: 1, json: { error_code: 'CONFLICT', detail: 'a user with this e-mail address already exists' } });

    // The free plan's three users: the admin, the technician and one more.
    expect((await runCli(['users', 'create', t.tenantId, '--email', newEmail(), '--role', 'viewer', '--password-stdin'], { input: 'a long enough password' })).code).toBe(0);
    const over = await runCli(['--json', 'users', 'create', t.tenantId, '--email', newEmail(), '--role', 'viewer', '--password-stdin'], { input: 'a long enough password' });
    expect({ code: over.code, json: over.json }).toEqual({
      code: 1,
      json: { error_code: 'PLAN_LIMIT_REACHED', detail: 'the free plan allows 3 users', resource: 'users', limit: 3 },
    });
    const bad = await runCli(['users', 'create', t.tenantId, '--email', newEmail(), '--role', 'owner', '--password-stdin'], { input: 'a long enough password' });
    expect(bad.code).toBe(2);

    const listed = await runJson(['users', 'list', t.tenantId]);
    expect(listed).toMatchObject({ total: 3, skip: 0, limit: 20 });
    expect(listed.items.map((u: { email: string }) => u.email)).toEqual([t.email, email, expect.any(String)]);
    const text = await runCli(['users', 'list', t.tenantId, '--limit', '1']);
    expect(text.stdout).toMatch(/^id +email +role +status\n[0-9a-f-]{36} +\S+ +admin +active\n1 of 3\n$/);
  });

  it("resets a password: the old one and the user's sessions stop working, the new one signs in", async () => {
    const session = await login(t.email, t.password);
    const reset = await runJson(['users', 'reset-password', t.email, '--password-stdin'], { input: 'the new password is long\n' });
    expect(reset).toMatchObject({ user: { id: t.adminUserId, email: t.email, tenant_id: t.tenantId } });
    expectError(await api.request('/api/v1/assets', { token: session.body.access_token }), 401, 'UNAUTHENTICATED');
    expectError(await api.request('/api/v1/auth/refresh', { method: 'POST', json: { refresh_token: session.body.refresh_token } }), 401, 'UNAUTHENTICATED');
    expectError(await login(t.email, t.password), 401, 'UNAUTHENTICATED');
    expect((await login(t.email, 'the new password is long')).status).toBe(200);
    expect(await auditOf(t.adminUserId, 'user.password_reset')).toEqual([{ actor_type: 'operator', actor_id: TEST_OPERATOR, details: {} }]);
    t.password = 'the new password is long';

    const short = await runCli(['--json', 'users', 'reset-password', t.adminUserId, '--password-stdin'], { input: 'short' });
    expect({ code: short.code, error_code: short.json.error_code }).toEqual({ code: 1, error_code: 'VALIDATION_ERROR' });
    const nobody = await runCli(['--json', 'users', 'reset-password', `nobody-${randomUUID()}@example.com`, '--password-stdin'], { input: 'a long enough password' });
    expect({ code: nobody.code, json: nobody.json }).toEqual({ code: 1, json: { error_code: 'NOT_FOUND', detail: 'user not found' } });
  });

  it('unlocks an account that failed logins locked: its owner signs in again at once', async () => {
    // Failures from addresses of their own, until the account itself refuses even the right password.
    let refused = false;
    for (let i = 0; i < 200 && !refused; i += 1) refused = (await login(t.email, 'a wrong password 123')).status === 429;
    expect(refused).toBe(true);
    expectError(await login(t.email, t.password), 429, 'RATE_LIMITED');

    const unlocked = await runCli(['users', 'unlock', t.email]);
    expect(unlocked).toMatchObject({ code: 0, stdout: `${t.email}: failed logins cleared\n` });
    expect((await login(t.email, t.password)).status).toBe(200);
    expect(await auditOf(t.adminUserId, 'user.login_unlocked')).toEqual([{ actor_type: 'operator', actor_id: TEST_OPERATOR, details: {} }]);
  });

  it("revokes one session or all of a user's sessions: their refresh and access tokens are refused", async () => {
    const [first, second] = [await login(t.email, t.password), await login(t.email, t.password)];
    const sid = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).sid as string;

    const one = await runJson(['users', 'revoke-sessions', t.adminUserId, '--session', sid(first.body.access_token)]);
    expect(one).toMatchObject({ user: { id: t.adminUserId }, revoked_sessions: [sid(first.body.access_token)] });
    expectError(await api.request('/api/v1/assets', { token: first.body.access_token }), 401, 'UNAUTHENTICATED');
    expect((await api.request('/api/v1/assets', { token: second.body.access_token })).status).toBe(200);

    const all = await runJson(['users', 'revoke-sessions', t.email]);
    expect(all.revoked_sessions).toContain(sid(second.body.access_token));
    expect(all.revoked_sessions).not.toContain(sid(first.body.access_token));
    expectError(await api.request('/api/v1/assets', { token: second.body.access_token }), 401, 'UNAUTHENTICATED');
    expectError(await api.request('/api/v1/auth/refresh', { method: 'POST', json: { refresh_token: second.body.refresh_token } }), 401, 'UNAUTHENTICATED');
    expect(
      await api.deps
        .db('auth_sessions')
        .where({ id: sid(second.body.access_token) })
        .first('revoke_reason'),
    ).toEqual({ revoke_reason: 'operator' });
    expect(await auditOf(t.adminUserId, 'user.sessions_revoked')).toEqual([
      { actor_type: 'operator', actor_id: TEST_OPERATOR, details: { sessions: 1 } },
      { actor_type: 'operator', actor_id: TEST_OPERATOR, details: { sessions: all.revoked_sessions.length } },
    ]);
    // A session that is not open (this one is revoked already) is not found.
    const again = await runCli(['--json', 'users', 'revoke-sessions', t.email, '--session', sid(first.body.access_token)]);
    expect({ code: again.code, json: again.json }).toEqual({ code: 1, json: { error_code: 'NOT_FOUND', detail: 'open session not found' } });
  });
});
