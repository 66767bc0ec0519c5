import jwt from 'jsonwebtoken';
import { createTenant, createUser, expectError, startTestApi, TestApi, TestTenant } from '../support/api';

let api: TestApi;
let tenant: TestTenant;

beforeAll(async () => {
  api = await startTestApi();
  tenant = await createTenant(api);
});
afterAll(() => api.close());

describe('login, refresh and logout', () => {
  it('logs in, calls the API, refreshes, and revokes the family when a rotated token is reused', async () => {
    const login = await api.request('/api/v1/auth/login', { method: 'POST', json: { email: tenant.email, password: tenant.password } });
    expect(login.status).toBe(200);
    expect(login.body).toEqual({
      access_token: expect.any(String),
      refresh_token: expect.stringMatching(/^rt_/),
      token_type: 'Bearer',
      expires_in: 900,
    });
    const claims = jwt.decode(login.body.access_token) as Record<string, any>;
    expect(claims).toMatchObject({ sub: tenant.adminUserId, tenant_id: tenant.tenantId, role: 'admin' });
    expect(claims.permissions).toEqual(expect.arrayContaining(['view_agents', 'manage_agents', 'view_audit']));
    expect(claims.exp - claims.iat).toBe(900);

    const call = await api.request('/api/v1/assets', { token: login.body.access_token });
    expect(call.status).toBe(200);

    const first = login.body.refresh_token;
    const refreshed = await api.request('/api/v1/auth/refresh', { method: 'POST', json: { refresh_token: first } });
    expect(refreshed.status).toBe(200);
    const second = refreshed.body.refresh_token;
    expect(second).not.toBe(first);
    expect((await api.request('/api/v1/assets', { token: refreshed.body.access_token })).status).toBe(200);

    // Reusing the rotated token: refused, and the family (including the newest token) is revoked.
    const reuse = await api.request('/api/v1/auth/refresh', { method: 'POST', json: { refresh_token: first } });
    expectError(reuse, 401, 'UNAUTHENTICATED');
    expect(reuse.body.reason).toBe('reuse_detected');
    const afterRevoke = await api.request('/api/v1/auth/refresh', { method: 'POST', json: { refresh_token: second } });
    expectError(afterRevoke, 401, 'UNAUTHENTICATED');
    expect(afterRevoke.body.reason).toBe('revoked');

    const rows = await api.deps.db('auth_sessions').where({ user_id: tenant.adminUserId }).whereNotNull('revoked_at').select('revoke_reason');
    expect(rows.map((r) => r.revoke_reason)).toContain('reuse_detected');
    const audit = await api.deps.db('audit_log').where({ tenant_id: tenant.tenantId, action: 'auth.refresh_reuse_detected' });
    expect(audit).toHaveLength(1);
  });

  it('refuses a wrong password and an unknown email alike', async () => {
    const wrong = await api.request('/api/v1/auth/login', { method: 'POST', json: { email: tenant.email, password: 'not-the-password' } });
    const unknown = await api.request('/api/v1/auth/login', { method: 'POST', json: { email: 'nobody@example.com', password: 'whatever-password' } });
    expectError(wrong, 401, 'UNAUTHENTICATED');
    expectError(unknown, 401, 'UNAUTHENTICATED');
    expect(wrong.body.detail).toBe(unknown.body.detail);
  });

  it('refuses logins for an email from the address that failed 10 times in 15 minutes, even with the right password', async () => {
    const t = await createTenant(api);
    for (let i = 0; i < 10; i += 1) {
      const res = await api.request('/api/v1/auth/login', { method: 'POST', json: { email: t.email, password: `wrong-${i}` } });
      expect(res.status).toBe(401);
    }
    const blocked = await api.request('/api/v1/auth/login', { method: 'POST', json: { email: t.email.toUpperCase(), password: t.password } });
    expectError(blocked, 429, 'RATE_LIMITED');
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(800);
    // Other accounts are unaffected.
    const other = await api.request('/api/v1/auth/login', { method: 'POST', json: { email: tenant.email, password: tenant.password } });
    expect(other.status).toBe(200);
  });

  it('logout revokes the refresh token', async () => {
    const login = await api.request('/api/v1/auth/login', { method: 'POST', json: { email: tenant.email, password: tenant.password } });
    const out = await api.request('/api/v1/auth/logout', { method: 'POST', token: login.body.access_token, json: { refresh_token: login.body.refresh_token } });
    expect(out.status).toBe(204);
    const refresh = await api.request('/api/v1/auth/refresh', { method: 'POST', json: { refresh_token: login.body.refresh_token } });
    expectError(refresh, 401, 'UNAUTHENTICATED');
  });
});

describe('access tokens', () => {
  const claims = () => ({ tenant_id: tenant.tenantId, role: 'admin', permissions: ['view_assets'] });
  const sign = (secret: string, opts: jwt.SignOptions = {}) =>
    jwt.sign(claims(), secret, { algorithm: 'HS256', subject: tenant.adminUserId, audience: 'api', issuer: 'industrial-ops', expiresIn: 60, ...opts });

  it.each([
    ['missing', undefined],
    ['malformed', 'not-a-jwt'],
  ])('refuses a %s token with 401', async (_name, token) => {
    expectError(await api.request('/api/v1/assets', { token }), 401, 'UNAUTHENTICATED');
  });

  it('refuses an expired token', async () => {
    const expired = sign(api.deps.config.secrets.jwt, { expiresIn: -10 });
    const res = await api.request('/api/v1/assets', { token: expired });
    expectError(res, 401, 'UNAUTHENTICATED');
    expect(res.body.detail).toMatch(/expired/);
  });

  it('refuses a tampered token (claims changed after signing)', async () => {
    const [h, , s] = sign(api.deps.config.secrets.jwt).split('.');
    const forged = Buffer.from(
      JSON.stringify({
        ...claims(),
        sub: tenant.adminUserId,
        tenant_id: '00000000-0000-0000-0000-000000000000',
        aud: 'api',
        iss: 'industrial-ops',
        exp: Math.floor(Date.now() / 1000) + 60,
      }),
    ).toString('base64url');
    expectError(await api.request('/api/v1/assets', { token: `${h}.${forged}.${s}` }), 401, 'UNAUTHENTICATED');
  });

  it('refuses alg: none', async () => {
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    const payload = Buffer.from(JSON.stringify({ ...claims(), sub: tenant.adminUserId, aud: 'api', iss: 'industrial-ops', exp: Math.floor(Date.now() / 1000) + 60 })).toString(
      'base64url',
    );
    expectError(await api.request('/api/v1/assets', { token: `${header}.${payload}.` }), 401, 'UNAUTHENTICATED');
  });

  it('refuses a token signed with another secret, and an internal token on a user route', async () => {
    expectError(await api.request('/api/v1/assets', { token: sign('x'.repeat(40)) }), 401, 'UNAUTHENTICATED');
    expectError(await api.request('/api/v1/assets', { token: sign(api.deps.config.secrets.internalJwt, { audience: 'internal' }) }), 401, 'UNAUTHENTICATED');
  });

  it('answers 403 when the role lacks the permission', async () => {
    const viewer = await createUser(api, tenant.tenantId, 'viewer');
    expect((await api.request('/api/v1/assets', { token: viewer.token })).status).toBe(200);
    const res = await api.request('/api/v1/assets', { method: 'POST', token: viewer.token, json: { name: 'Pump', type: 'pump' } });
    expectError(res, 403, 'FORBIDDEN');
    expect(res.body.detail).toContain('manage_assets');
    expectError(await api.request('/api/v1/audit', { token: viewer.token }), 403, 'FORBIDDEN');
  });
});
