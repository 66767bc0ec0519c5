/**
 * `industrial-ops tokens ...` as a real process against the test stack: a minted service token
 * is accepted by the internal API within its scopes and tenants, listed with its record (never the
 * token), and refused once revoked.
 */
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../../infra/config';
import { createTenant, expectError, startTestApi, TestApi, TestTenant } from '../support/api';
import { runCli, runJson, TEST_OPERATOR } from '../support/cli';

let api: TestApi;
let tenant: TestTenant;
let other: TestTenant;
const base = loadConfig(process.env);

beforeAll(async () => {
  // No revocation cache: a revoked token is refused by the next request (the default: within 5 s).
  api = await startTestApi({ auth: { ...base.auth, sessionCheckCacheMs: 0 } });
  [tenant, other] = await Promise.all([createTenant(api), createTenant(api)]);
});
afterAll(() => api.close());

const event = (tenantId: string) => ({ tenant_id: tenantId, type: 'partner.checked', data: { n: 1 } });

describe('tokens', () => {
  it('mints a scoped token for one tenant that the internal API accepts within its grant, lists it, and refuses it once revoked', async () => {
    const minted = await runJson(['tokens', 'mint', '--service', 'partner-x', '--scope', 'events:write', '--tenant', tenant.tenantId, '--ttl', 'PT1H']);
    expect(minted).toEqual({
      token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      jti: expect.any(String),
      service: 'partner-x',
      scopes: ['events:write'],
      tenants: [tenant.tenantId],
      expires_at: expect.any(String),
    });
    const lifetime = new Date(minted.expires_at).getTime() - Date.now();
    expect(lifetime).toBeGreaterThan(3500_000);
    expect(lifetime).toBeLessThanOrEqual(3600_000);

    expect((await api.request('/internal/events', { method: 'POST', token: minted.token, json: event(tenant.tenantId) })).status).toBe(202);
    expectError(await api.request('/internal/events', { method: 'POST', token: minted.token, json: event(other.tenantId) }), 403, 'FORBIDDEN');
    expectError(await api.request('/internal/health', { token: minted.token }), 403, 'FORBIDDEN');

    const record = await api.deps.db('service_tokens').where({ jti: minted.jti }).first();
    expect(record).toMatchObject({ service_id: 'partner-x', scopes: ['events:write'], tenant_ids: [tenant.tenantId], issued_by: TEST_OPERATOR });
    expect(JSON.stringify(record)).not.toContain(minted.token.split('.')[2]);
    const listed = await runJson(['tokens', 'list', '--limit', '100']);
    expect(listed.items).toContainEqual({
      jti: minted.jti,
      service: 'partner-x',
      scopes: ['events:write'],
      tenants: [tenant.tenantId],
      status: 'live',
      issued_at: expect.any(String),
      expires_at: minted.expires_at,
      issued_by: TEST_OPERATOR,
      revoked_at: null,
      revoked_by: null,
    });

    const revoked = await runJson(['tokens', 'revoke', minted.jti]);
    expect(revoked).toEqual({ jti: minted.jti, revoked_at: expect.any(String), revoked_by: `operator:${TEST_OPERATOR}` });
    expectError(await api.request('/internal/events', { method: 'POST', token: minted.token, json: event(tenant.tenantId) }), 401, 'UNAUTHENTICATED');
    expect((await runJson(['tokens', 'list', '--limit', '100'])).items.map((t: { jti: string }) => t.jti)).not.toContain(minted.jti);
    expect((await runJson(['tokens', 'list', '--all', '--limit', '100'])).items).toContainEqual(expect.objectContaining({ jti: minted.jti, status: 'revoked' }));
    // Revoking again answers the first revocation.
    expect(await runJson(['tokens', 'revoke', minted.jti])).toEqual(revoked);
  });

  it('mints a token for every tenant for monitoring /internal/health, printing it once for people', async () => {
    const run = await runCli(['tokens', 'mint', '--service', 'monitoring', '--scope', 'health:read', '--all-tenants', '--ttl', 'P30D']);
    expect(run.code).toBe(0);
    const token = run.stdout.trim().split('\n').pop()!;
    expect(run.stdout).toMatch(/^id \(jti\) +[0-9a-f-]{36}\nservice +monitoring\nscopes +health:read\ntenants +\*\n/);
    expect((await api.request('/internal/health', { token })).status).toBe(200);
  });

  it('refuses a token without a tenant choice, beyond 90 days, with an unknown scope or an unknown tenant', async () => {
    const before = Number((await api.deps.db('service_tokens').count({ n: '*' }))[0].n);
    const mint = (...args: string[]) => runCli(['--json', 'tokens', 'mint', '--service', 'x', ...args]);
    const neither = await mint('--scope', 'health:read', '--ttl', 'PT1H');
    expect({ code: neither.code, json: neither.json }).toEqual({ code: 2, json: { error_code: 'USAGE', detail: 'give either --tenant <id...> or --all-tenants' } });
    const long = await mint('--scope', 'health:read', '--all-tenants', '--ttl', 'P91D');
    expect({ code: long.code, error_code: long.json.error_code }).toEqual({ code: 1, error_code: 'VALIDATION_ERROR' });
    const scope = await mint('--scope', 'tenants:delete', '--all-tenants', '--ttl', 'PT1H');
    expect(scope.code).toBe(2);
    const ttl = await mint('--scope', 'health:read', '--all-tenants', '--ttl', '1h');
    expect({ code: ttl.code, error_code: ttl.json.error_code }).toEqual({ code: 2, error_code: 'USAGE' });
    const unknown = randomUUID();
    const missing = await mint('--scope', 'events:write', '--tenant', unknown, '--ttl', 'PT1H');
    expect({ code: missing.code, json: missing.json }).toEqual({ code: 1, json: { error_code: 'NOT_FOUND', detail: `tenant ${unknown} not found` } });
    expect(Number((await api.deps.db('service_tokens').count({ n: '*' }))[0].n)).toBe(before);
  });
});
