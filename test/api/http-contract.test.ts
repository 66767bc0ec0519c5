import fs from 'node:fs';
import path from 'node:path';
import { createApp } from '../../api/app';
import { internalOpenApiDocument } from '../../api/openapi-document';
import { CLIENT_FILES } from '../../scripts/openapi/client-files';
import { documentDrift } from '../../scripts/openapi/drift';
import { createTenant, expectError, send, startTestApi, TestApi, TestTenant } from '../support/api';

let api: TestApi;
let tenant: TestTenant;
beforeAll(async () => {
  api = await startTestApi();
  tenant = await createTenant(api);
});
afterAll(() => api.close());

describe('error bodies', () => {
  it('answers 404 with the error object for an unknown route', async () => {
    const res = await api.request('/api/v1/no-such-thing', { token: tenant.token });
    expectError(res, 404, 'NOT_FOUND');
  });

  it('answers 400 for malformed JSON', async () => {
    const res = await api.request('/api/v1/assets', {
      method: 'POST',
      token: tenant.token,
      headers: { 'Content-Type': 'application/json' },
      body: '{"name": "Pump", ',
    });
    expectError(res, 400, 'BAD_REQUEST');
    expect(await api.deps.db('assets').where({ tenant_id: tenant.tenantId }).count({ n: '*' })).toEqual([{ n: '0' }]);
  });

  it('answers 413 for a body over 1 MB', async () => {
    const res = await api.request('/api/v1/assets', {
      method: 'POST',
      token: tenant.token,
      json: { name: 'Pump', type: 'pump', metadata: { blob: 'x'.repeat(1_100_000) } },
    });
    expectError(res, 413, 'PAYLOAD_TOO_LARGE');
  });

  it('answers 422 naming every failing field, and stores nothing', async () => {
    const res = await api.request('/api/v1/assets', {
      method: 'POST',
      token: tenant.token,
      json: { type: 7, location: { floor: 'third' }, colour: 'red' },
    });
    expectError(res, 422, 'VALIDATION_ERROR');
    expect(res.body.fields.map((f: { field: string }) => f.field).sort()).toEqual(['body.colour', 'body.location.floor', 'body.name', 'body.type'].sort());
    const audit = await api.deps.db('audit_log').where({ tenant_id: tenant.tenantId, action: 'asset.created' });
    expect(audit).toHaveLength(0);
  });

  it('answers 422 for an out-of-range page size', async () => {
    const res = await api.request('/api/v1/assets?limit=101', { token: tenant.token });
    expectError(res, 422, 'VALIDATION_ERROR');
    expect(res.body.fields[0].field).toBe('query.limit');
  });

  it('answers 405 for a method the path does not have', async () => {
    const res = await api.request('/api/v1/audit/verify', { method: 'DELETE', token: tenant.token });
    expectError(res, 405, 'METHOD_NOT_ALLOWED');
  });

  it('answers 503 naming the database, without a stack trace or connection details, when PostgreSQL is unreachable', async () => {
    const broken = await startTestApi({ databaseUrl: 'postgres://app:s3cret-password@127.0.0.1:9/none' });
    try {
      const res = await broken.request('/api/v1/assets', { token: tenant.token });
      expectError(res, 503, 'DEPENDENCY_UNAVAILABLE');
      expect(res.body.down).toEqual(['postgres']);
      expect(res.text).not.toMatch(/s3cret|at .*\.(js|ts):\d+|ECONNREFUSED|stack|127\.0\.0\.1/);
    } finally {
      await broken.close();
    }
  });
});

describe('routing', () => {
  // Each router is consulted only for paths under its prefix (api/app.ts): the same answers as when
  // every router saw every request.
  it('routes a path under its prefix whatever the case of its letters and with a trailing slash', async () => {
    const created = await api.request('/api/v1/assets', { method: 'POST', token: tenant.token, json: { name: 'Routed pump', type: 'pump' } });
    expect(created.status).toBe(201);
    for (const path of ['/api/v1/assets', '/API/V1/Assets', '/api/v1/assets/']) {
      const res = await api.request(path, { token: tenant.token });
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      expect(res.body.items.map((a: { name: string }) => a.name)).toContain('Routed pump');
    }
    const one = await api.request(`/api/v1/ASSETS/${created.body.id}`, { token: tenant.token });
    expect(one.status).toBe(200);
    expect(one.body.id).toBe(created.body.id);
  });

  it('answers 404 for a path that only starts like a prefix, and 405 under a prefix for another method', async () => {
    expectError(await api.request('/api/v1/assetsx', { token: tenant.token }), 404, 'NOT_FOUND');
    expectError(await api.request('/api/v1/assets', { method: 'DELETE', token: tenant.token }), 405, 'METHOD_NOT_ALLOWED');
  });
});

describe('request ids', () => {
  it('echoes a sane X-Request-Id and uses it in error bodies', async () => {
    const res = await api.request('/api/v1/assets/00000000-0000-4000-8000-000000000000', {
      token: tenant.token,
      headers: { 'X-Request-Id': 'client-req-42' },
    });
    expect(res.headers.get('x-request-id')).toBe('client-req-42');
    expect(res.body.request_id).toBe('client-req-42');
  });

  it('replaces an unusable X-Request-Id by a generated one', async () => {
    const res = await api.request('/livez', { headers: { 'X-Request-Id': 'bad id with spaces' } });
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('headers', () => {
  it('sends HSTS exactly as SPEC.md, nosniff, and no X-Powered-By', async () => {
    for (const res of [await api.request('/livez'), await api.request('/api/v1/assets', { token: tenant.token }), await api.request('/nope')]) {
      expect(res.headers.get('strict-transport-security')).toBe('max-age=63072000; includeSubDomains; preload');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('x-powered-by')).toBeNull();
    }
  });

  it('sends Deprecation, Sunset and Link for a configured prefix only', async () => {
    const deprecating = await startTestApi({
      deprecations: [{ prefix: '/api/v1/assets', sunset: '2027-06-30T00:00:00Z', successor: '/api/v2/assets' }],
    });
    try {
      const hit = await deprecating.request('/api/v1/assets', { token: tenant.token });
      expect(hit.headers.get('deprecation')).toBe('true');
      expect(hit.headers.get('sunset')).toBe('Wed, 30 Jun 2027 00:00:00 GMT');
      expect(hit.headers.get('link')).toBe('</api/v2/assets>; rel="successor-version"');
      const miss = await deprecating.request('/api/v1/audit', { token: tenant.token });
      expect(miss.headers.get('deprecation')).toBeNull();
      expect((await api.request('/api/v1/assets', { token: tenant.token })).headers.get('deprecation')).toBeNull();
    } finally {
      await deprecating.close();
    }
  });
});

describe('OpenAPI and docs', () => {
  it('documents every registered route, from the same schemas: the public ones in the served document, the internal ones apart', async () => {
    const res = await api.request('/api/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    const internal = internalOpenApiDocument();
    const { routes } = createApp(api.deps);
    expect(routes.length).toBeGreaterThan(10);
    for (const route of routes) {
      const path = route.fullPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/(.)\/$/, '$1');
      const where = route.auth === 'internal' ? 'internal' : 'public';
      expect({ route: `${route.method} ${path}`, public: !!res.body.paths[path]?.[route.method], internal: !!internal.paths[path]?.[route.method] }).toEqual({
        route: `${route.method} ${path}`,
        public: where === 'public',
        internal: where === 'internal',
      });
    }
    expect(Object.keys(res.body.paths).filter((p) => p.startsWith('/internal'))).toEqual([]);
    // The create body schema is the one that validates: a required field shows as required.
    const create = res.body.paths['/api/v1/assets'].post.requestBody.content['application/json'].schema;
    expect(create.required).toEqual(expect.arrayContaining(['name', 'type']));
    const listParams = res.body.paths['/api/v1/assets'].get.parameters.map((p: { name: string }) => p.name);
    expect(listParams).toEqual(expect.arrayContaining(['skip', 'limit']));
  });

  it('serves the committed document (client/openapi.json, from which the typed client is generated)', async () => {
    const res = await api.request('/api/v1/openapi.json');
    const committed = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../..', CLIENT_FILES.document), 'utf8'));
    expect(documentDrift(res.body, committed, CLIENT_FILES.document)).toBeNull();
  });

  it('serves the docs page and its assets from the npm package (no CDN)', async () => {
    const page = await api.request('/api/v1/docs');
    expect(page.status).toBe(200);
    expect(page.text).toContain('/api/v1/docs/assets/swagger-ui-bundle.js');
    expect(page.text).not.toMatch(/https?:\/\//);
    const bundle = await send(api.baseUrl, '/api/v1/docs/assets/swagger-ui-bundle.js');
    expect(bundle.status).toBe(200);
    expect(bundle.text.length).toBeGreaterThan(100_000);
  });
});
