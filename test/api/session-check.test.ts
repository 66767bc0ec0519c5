/**
 * Disabling a user or changing their role takes effect at once (issue 17): access tokens carry the
 * user's token_version, bumped by a database trigger, and the API checks it on every request. This
 * API caches nothing (SESSION_CHECK_CACHE_MS=0); the default of 5 s bounds the delay per process.
 */
import { createTenant, createUser, expectError, startTestApi, TestApi } from '../support/api';
import { loadConfig } from '../../infra/config';

let api: TestApi;
const base = loadConfig(process.env);

beforeAll(async () => {
  api = await startTestApi({ auth: { ...base.auth, sessionCheckCacheMs: 0 } });
});
afterAll(() => api?.close());

const assets = (token: string) => api.request('/api/v1/assets', { token });
const versionOf = async (userId: string) => (await api.deps.db('users').where({ id: userId }).first('token_version')).token_version as number;

describe('session check', () => {
  it('a role change voids the tokens issued before it, on the next request', async () => {
    const t = await createTenant(api);
    const manager = await createUser(api, t.tenantId, 'manager');
    expect((await assets(manager.token)).status).toBe(200);
    const before = await versionOf(manager.userId);
    await api.deps.db('users').where({ id: manager.userId }).update({ role: 'viewer' });
    expect(await versionOf(manager.userId)).toBe(before + 1);
    const refused = await assets(manager.token);
    expectError(refused, 401, 'UNAUTHENTICATED');
    expect(refused.body.detail).toMatch(/no longer valid/);
    // Other users of the tenant are not affected.
    expect((await assets(t.token)).status).toBe(200);
  });

  it('disabling a user voids their tokens; enabling them again does not revive the old ones', async () => {
    const t = await createTenant(api);
    await api.deps.db('users').where({ id: t.adminUserId }).update({ status: 'disabled' });
    expectError(await assets(t.token), 401, 'UNAUTHENTICATED');
    expectError(await api.request('/api/v1/auth/refresh', { method: 'POST', json: { refresh_token: t.refreshToken } }), 401, 'UNAUTHENTICATED');
    await api.deps.db('users').where({ id: t.adminUserId }).update({ status: 'active' });
    expectError(await assets(t.token), 401, 'UNAUTHENTICATED');
    // Signing in again gives a token of the current version.
    const login = await api.request('/api/v1/auth/login', { method: 'POST', json: { email: t.email, password: t.password } });
    expect(login.status).toBe(200);
    expect((await assets(login.body.access_token)).status).toBe(200);
  });

  it('changes that are not about access (a renamed e-mail) keep the session', async () => {
    const t = await createTenant(api);
    const before = await versionOf(t.adminUserId);
    await api.deps
      .db('users')
      .where({ id: t.adminUserId })
      .update({ email: `renamed-${t.email}` });
    expect(await versionOf(t.adminUserId)).toBe(before);
    expect((await assets(t.token)).status).toBe(200);
  });
});
