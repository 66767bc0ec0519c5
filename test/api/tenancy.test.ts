import { createTenant, expectError, startTestApi, TestApi, TestTenant } from '../support/api';

let api: TestApi;
let a: TestTenant;
let b: TestTenant;
let assetOfA: string;

beforeAll(async () => {
  api = await startTestApi();
  [a, b] = await Promise.all([createTenant(api), createTenant(api)]);
  const created = await api.request('/api/v1/assets', { method: 'POST', token: a.token, json: { name: 'Compressor 1', type: 'compressor' } });
  expect(created.status).toBe(201);
  assetOfA = created.body.id;
});
afterAll(() => api.close());

describe('tenant isolation', () => {
  it("answers 404 when tenant B reads, updates or deletes tenant A's asset, and changes nothing", async () => {
    expectError(await api.request(`/api/v1/assets/${assetOfA}`, { token: b.token }), 404, 'NOT_FOUND');
    expectError(await api.request(`/api/v1/assets/${assetOfA}`, { method: 'PUT', token: b.token, json: { name: 'hijacked' } }), 404, 'NOT_FOUND');
    expectError(await api.request(`/api/v1/assets/${assetOfA}`, { method: 'DELETE', token: b.token }), 404, 'NOT_FOUND');

    const row = await api.deps.db('assets').where({ id: assetOfA }).first();
    expect(row).toMatchObject({ tenant_id: a.tenantId, name: 'Compressor 1' });
    // A missing id answers exactly like another tenant's.
    const missing = await api.request('/api/v1/assets/6f1c2a55-0000-4000-8000-000000000000', { token: b.token });
    expectError(missing, 404, 'NOT_FOUND');
    expect(missing.body.detail).toBe('asset not found');
  });

  it("does not list tenant A's assets or audit rows to tenant B", async () => {
    const list = await api.request('/api/v1/assets', { token: b.token });
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ items: [], total: 0, skip: 0, limit: 20 });
    const audit = await api.request('/api/v1/audit?limit=100', { token: b.token });
    expect(audit.body.items.every((e: { resource_id: string }) => e.resource_id !== assetOfA)).toBe(true);
  });

  it("refuses tenant A's asset as a parent for tenant B (422), and the database refuses it too", async () => {
    const res = await api.request('/api/v1/assets', { method: 'POST', token: b.token, json: { name: 'Child', type: 'motor', parent_id: assetOfA } });
    expectError(res, 422, 'VALIDATION_ERROR');
    expect(res.body.fields[0].field).toBe('body.parent_id');
    await expect(api.deps.db('assets').insert({ tenant_id: b.tenantId, name: 'x', type: 'y', parent_id: assetOfA })).rejects.toThrow(/assets_parent_same_tenant/);
  });

  it('treats a malformed id as not found rather than a server error', async () => {
    expectError(await api.request('/api/v1/assets/not-a-uuid', { token: a.token }), 404, 'NOT_FOUND');
  });
});
