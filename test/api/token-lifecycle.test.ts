/**
 * Token lifecycle: a logout, a password change or reset and a reused refresh token revoke the
 * session, its refresh tokens and its access tokens (the access token's `sid` is checked against
 * PostgreSQL through the cached session check); service tokens carry an expiry of at most 90 days
 * and an id, and can be revoked.
 *
 * `api` caches the session check for a minute: what it refuses at once, it refuses because the
 * process that made the change forgets its cache. `other` is a second API process on the same
 * database with no cache (SESSION_CHECK_CACHE_MS=0): the bound every other process keeps.
 */
import jwt from 'jsonwebtoken';
import { provisionTenant } from '../../db/tenants';
import { FULL_SERVICE_GRANT, SERVICE_TOKEN_MAX_TTL_SECONDS, signInternalToken } from '../../domain/auth/tokens';
import { loadConfig } from '../../infra/config';
import { createTenant, expectError, startTestApi, TestApi } from '../support/api';

let api: TestApi;
let other: TestApi;
const base = loadConfig(process.env);

beforeAll(async () => {
  api = await startTestApi({ auth: { ...base.auth, sessionCheckCacheMs: 60_000 } });
  other = await startTestApi({ auth: { ...base.auth, sessionCheckCacheMs: 0 } });
});
afterAll(async () => {
  await api?.close();
  await other?.close();
});

const assets = (on: TestApi, token: string) => on.request('/api/v1/assets', { token });
const refresh = (refreshToken: string) => api.request('/api/v1/auth/refresh', { method: 'POST', json: { refresh_token: refreshToken } });
const login = (email: string, password: string) => api.request('/api/v1/auth/login', { method: 'POST', json: { email, password } });

describe('user sessions', () => {
  it('logout voids the access token at once on the process that handled it and on every other within its cache time', async () => {
    const t = await createTenant(api);
    const second = await login(t.email, t.password);
    // Both processes have accepted (and `api` has cached) the session before the logout.
    expect((await assets(api, t.token)).status).toBe(200);
    expect((await assets(other, t.token)).status).toBe(200);
    expect((jwt.decode(t.token) as { sid?: string }).sid).toEqual(expect.any(String));

    expect((await api.request('/api/v1/auth/logout', { method: 'POST', token: t.token, json: { refresh_token: t.refreshToken } })).status).toBe(204);
    const refused = await assets(api, t.token);
    expectError(refused, 401, 'UNAUTHENTICATED');
    expect(refused.body.detail).toMatch(/no longer valid/);
    expectError(await assets(other, t.token), 401, 'UNAUTHENTICATED');
    expectError(await refresh(t.refreshToken), 401, 'UNAUTHENTICATED');
    // Another login of the same user is another session: untouched.
    expect((await assets(api, second.body.access_token)).status).toBe(200);
    const session = await api.deps
      .db('auth_sessions')
      .where({ id: (jwt.decode(t.token) as { sid: string }).sid })
      .first('revoke_reason');
    expect(session.revoke_reason).toBe('logout');
  });

  it('a password reset revokes every session of the user: old refresh tokens are refused, access tokens too', async () => {
    const t = await createTenant(api);
    const second = await login(t.email, t.password);
    const { slug, name } = await api.deps.db('tenants').where({ id: t.tenantId }).first('slug', 'name');
    // The reset of the demo seed (db/tenants.ts); `industrial-ops users reset-password` and a SQL update do the same.
    await provisionTenant(api.deps.db, { name, slug, plan: 'enterprise', adminEmail: t.email, adminPassword: 'a-new-password-of-the-admin' }, { resetIfExists: true });

    for (const refreshToken of [t.refreshToken, second.body.refresh_token]) {
      const res = await refresh(refreshToken);
      expectError(res, 401, 'UNAUTHENTICATED');
      expect(res.body.reason).toBe('revoked');
    }
    expectError(await assets(other, second.body.access_token), 401, 'UNAUTHENTICATED');
    const reasons = await api.deps.db('auth_sessions').where({ user_id: t.adminUserId }).pluck('revoke_reason');
    expect(reasons).toEqual(['password_changed', 'password_changed']);
    // The new password opens a new session.
    const fresh = await login(t.email, 'a-new-password-of-the-admin');
    expect(fresh.status).toBe(200);
    expect((await refresh(fresh.body.refresh_token)).status).toBe(200);
  });

  it("reuse detection voids the family's access tokens, old and new", async () => {
    const t = await createTenant(api);
    expect((await assets(api, t.token)).status).toBe(200);
    const rotated = await refresh(t.refreshToken);
    expect(rotated.status).toBe(200);
    expect((await assets(api, rotated.body.access_token)).status).toBe(200);

    const reuse = await refresh(t.refreshToken);
    expect(reuse.body.reason).toBe('reuse_detected');
    for (const token of [t.token, rotated.body.access_token]) {
      expectError(await assets(api, token), 401, 'UNAUTHENTICATED');
      expectError(await assets(other, token), 401, 'UNAUTHENTICATED');
    }
  });

  it('refuses an access token without a session id', async () => {
    const t = await createTenant(api);
    const { sid: _sid, iat: _iat, exp: _exp, ...claims } = jwt.decode(t.token) as Record<string, unknown>;
    const noSession = jwt.sign(claims, api.deps.config.secrets.jwt, { algorithm: 'HS256', expiresIn: 60 });
    expectError(await assets(api, noSession), 401, 'UNAUTHENTICATED');
  });
});

describe('service tokens', () => {
  const secret = () => api.deps.config.secrets.internalJwt;
  const health = (on: TestApi, token: string) => on.request('/internal/health', { token });
  const signRaw = (payload: object, options: jwt.SignOptions) =>
    jwt.sign({ scope: 'health:read', tenants: '*', ...payload }, secret(), { algorithm: 'HS256', audience: 'internal', issuer: 'industrial-ops', subject: 'ops', ...options });

  it('carry an id and an expiry; one without an expiry, without an id or living beyond 90 days is refused', async () => {
    const token = signInternalToken('ops', secret(), FULL_SERVICE_GRANT, 3600);
    const claims = jwt.decode(token) as Record<string, number | string>;
    expect(claims.jti).toEqual(expect.any(String));
    expect(Number(claims.exp) - Number(claims.iat)).toBe(3600);
    expect((await health(api, token)).status).not.toBe(401);

    const noExpiry = await health(api, signRaw({}, { jwtid: 'b3c1f5a4-5a0e-4a36-9d51-3c8f7f2e0a11' }));
    expectError(noExpiry, 401, 'UNAUTHENTICATED');
    expect(noExpiry.body.detail).toMatch(/expiry/);
    expectError(await health(api, signRaw({}, { expiresIn: 3600 })), 401, 'UNAUTHENTICATED');
    expectError(await health(api, signRaw({}, { expiresIn: SERVICE_TOKEN_MAX_TTL_SECONDS + 60, jwtid: 'b3c1f5a4-5a0e-4a36-9d51-3c8f7f2e0a12' })), 401, 'UNAUTHENTICATED');
    expect((await health(api, signRaw({}, { expiresIn: SERVICE_TOKEN_MAX_TTL_SECONDS, jwtid: 'b3c1f5a4-5a0e-4a36-9d51-3c8f7f2e0a13' }))).status).not.toBe(401);
  });

  it('cannot be minted for longer than 90 days', () => {
    expect(() => signInternalToken('ops', secret(), FULL_SERVICE_GRANT, SERVICE_TOKEN_MAX_TTL_SECONDS + 1)).toThrow(/90 days/);
    expect(() => signInternalToken('ops', secret(), FULL_SERVICE_GRANT, 0)).toThrow(RangeError);
  });

  it('a revoked token is refused on every process; a partner token may revoke itself only', async () => {
    const operator = signInternalToken('ops', secret(), FULL_SERVICE_GRANT);
    const t = await createTenant(api);
    const partner = signInternalToken('partner', secret(), { scopes: ['health:read', 'tokens:revoke'], tenants: [t.tenantId] });
    const victim = signInternalToken('partner', secret(), { scopes: ['health:read'], tenants: [t.tenantId] });
    const idOf = (token: string) => (jwt.decode(token) as { jti: string }).jti;
    expect((await health(api, victim)).status).not.toBe(401);
    expect((await health(other, victim)).status).not.toBe(401);

    expectError(await api.request(`/internal/service-tokens/${idOf(victim)}/revoke`, { method: 'POST', token: partner }), 403, 'FORBIDDEN');
    expectError(await api.request(`/internal/service-tokens/${idOf(operator)}/revoke`, { method: 'POST', token: victim }), 403, 'FORBIDDEN');
    const revoked = await api.request(`/internal/service-tokens/${idOf(victim)}/revoke`, { method: 'POST', token: operator });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ jti: idOf(victim), revoked_at: expect.any(String) });
    for (const on of [api, other]) {
      const refused = await health(on, victim);
      expectError(refused, 401, 'UNAUTHENTICATED');
      expect(refused.body.detail).toMatch(/revoked/);
    }
    // Revoking again answers the first record.
    expect((await api.request(`/internal/service-tokens/${idOf(victim)}/revoke`, { method: 'POST', token: operator })).body).toEqual(revoked.body);

    expect((await api.request(`/internal/service-tokens/${idOf(partner)}/revoke`, { method: 'POST', token: partner })).status).toBe(200);
    expectError(await health(api, partner), 401, 'UNAUTHENTICATED');
    expectError(await api.request('/internal/service-tokens/not-a-uuid/revoke', { method: 'POST', token: operator }), 404, 'NOT_FOUND');
  });
});
