// The typed client (client/) against the real API: what an integrator writes compiles against the
// committed document and gets the answers the document promises, errors included.
import { createApiClient } from '../../client';
import { createTenant, startTestApi, TestApi, TestTenant } from '../support/api';

let api: TestApi;
let tenant: TestTenant;
let other: TestTenant;

beforeAll(async () => {
  api = await startTestApi();
  tenant = await createTenant(api);
  other = await createTenant(api);
});
afterAll(() => api.close());

it('signs in, creates and reads an asset, and pages the list with typed answers', async () => {
  const login = await createApiClient(api.baseUrl).POST('/api/v1/auth/login', { body: { email: tenant.email, password: tenant.password } });
  expect(login.response.status).toBe(200);
  const client = createApiClient(api.baseUrl, login.data!.access_token);

  const created = await client.POST('/api/v1/assets', { body: { name: 'Typed pump', type: 'pump' } });
  expect(created.response.status).toBe(201);
  const id = created.data!.id!;

  const read = await client.GET('/api/v1/assets/{asset_id}', { params: { path: { asset_id: id } } });
  expect(read.response.status).toBe(200);
  expect(read.data).toMatchObject({ id, name: 'Typed pump', type: 'pump' });
  expect(read.response.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);

  const page = await client.GET('/api/v1/assets', { params: { query: { limit: 1 } } });
  expect(page.data).toMatchObject({ total: 1, skip: 0, limit: 1 });
  expect(page.data!.items!.map((item) => item.id)).toEqual([id]);
});

it("answers another tenant's id with the documented error object", async () => {
  const mine = await createApiClient(api.baseUrl, tenant.token).POST('/api/v1/assets', { body: { name: 'Private pump', type: 'pump' } });
  const theirs = createApiClient(api.baseUrl, other.token);
  const res = await theirs.GET('/api/v1/assets/{asset_id}', { params: { path: { asset_id: mine.data!.id! } } });
  expect(res.response.status).toBe(404);
  expect(res.data).toBeUndefined();
  expect(res.error).toMatchObject({ error_code: 'NOT_FOUND', detail: expect.any(String), request_id: expect.any(String) });
});
