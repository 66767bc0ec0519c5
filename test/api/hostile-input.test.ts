/**
 * Hostile input is ordinary input (issue 17): each probe below once took the API down or drew a
 * 500. Every route of the application is probed the same way, from its own route table, so a new
 * route is covered without being listed here.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { createApp } from '../../api/app';
import { RegisteredRoute } from '../../api/route';
import { createTenant, expectError, startTestApi, TestApi, TestTenant } from '../support/api';

let api: TestApi;
let tenant: TestTenant;
let routes: RegisteredRoute[];

beforeAll(async () => {
  api = await startTestApi();
  tenant = await createTenant(api);
  routes = createApp(api.deps).routes;
});
afterAll(() => api.close());

/** A concrete path for a route: well-formed ids that name nothing, a plain word elsewhere. */
function concrete(route: RegisteredRoute): string {
  const plain: Record<string, string> = { file: 'asset_health.pdf' };
  return route.fullPath.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => (name.endsWith('_id') ? randomUUID() : (plain[name] ?? 'x')));
}

/** A raw request with node:http: any method (fetch refuses TRACE), any header, the body as given. */
function raw(method: string, path: string, opts: { headers?: Record<string, string | number>; body?: string | Buffer; endBody?: boolean } = {}) {
  const url = new URL(api.baseUrl);
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: any }>((resolve, reject) => {
    // A body is framed by its length (node does not chunk a DELETE's body by default).
    const headers = { ...(opts.body !== undefined && opts.endBody !== false ? { 'Content-Length': Buffer.byteLength(opts.body) } : {}), ...opts.headers };
    const req = http.request({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text && (res.headers['content-type'] ?? '').includes('json') ? JSON.parse(text) : text });
      });
    });
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    if (opts.endBody !== false) req.end();
  });
}

async function apiStillUp(): Promise<void> {
  const res = await api.request('/api/v1/assets', { token: tenant.token });
  expect(res.status).toBe(200);
}

const auth = () => ({ Authorization: `Bearer ${tenant.token}` });

describe('unknown methods', () => {
  it('answer 405 with Allow and the error object on every path, TRACE and WebDAV alike', async () => {
    const paths = new Map<string, RegisteredRoute[]>();
    for (const route of routes) paths.set(route.fullPath, [...(paths.get(route.fullPath) ?? []), route]);
    const wrong: string[] = [];
    for (const [fullPath, onPath] of paths) {
      const path = concrete(onPath[0]!);
      for (const method of ['TRACE', 'PROPFIND', 'PURGE']) {
        const res = await raw(method, path, { headers: auth() });
        const allow = String(res.headers.allow ?? '').split(', ');
        const ok =
          res.status === 405 &&
          res.body?.error_code === 'METHOD_NOT_ALLOWED' &&
          typeof res.body?.request_id === 'string' &&
          onPath.every((r) => allow.includes(r.method.toUpperCase()));
        if (!ok) wrong.push(`${method} ${fullPath} → ${res.status} ${JSON.stringify(res.body).slice(0, 120)} allow=${res.headers.allow}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(paths.size).toBeGreaterThan(100);
  });

  it('answer OPTIONS with 204 and Allow, and an unknown path with 404', async () => {
    const res = await raw('OPTIONS', '/api/v1/assets');
    expect(res.status).toBe(204);
    expect(String(res.headers.allow).split(', ')).toEqual(expect.arrayContaining(['GET', 'HEAD', 'POST', 'OPTIONS']));
    const unknown = await raw('PROPFIND', '/api/v1/no-such-thing', { headers: auth() });
    expect({ status: unknown.status, code: unknown.body.error_code }).toEqual({ status: 404, code: 'NOT_FOUND' });
  });
});

describe('strings PostgreSQL cannot store', () => {
  it('a NUL in any JSON body is a 422 naming the field, on every route with a body (provider callbacks keep it as U+FFFD: whatsapp-webhook.test.ts)', async () => {
    const wrong: string[] = [];
    for (const route of routes.filter((r) => r.body && r.auth !== 'internal' && !r.providerPayload)) {
      const keys = Object.keys((route.body!.describe() as { keys?: Record<string, unknown> }).keys ?? { name: null });
      const body = JSON.stringify({ [keys[0] ?? 'name']: 'pump\u0000one' });
      const res = await raw(route.method.toUpperCase(), concrete(route), { headers: { ...auth(), 'Content-Type': 'application/json' }, body });
      if (res.status !== 422 || res.body?.fields?.[0]?.type !== 'string.nul')
        wrong.push(`${route.method} ${route.fullPath} → ${res.status} ${JSON.stringify(res.body).slice(0, 160)}`);
    }
    expect(wrong).toEqual([]);
  });

  it('a NUL in any query parameter is a 422, on every route with a query', async () => {
    const wrong: string[] = [];
    for (const route of routes.filter((r) => r.query && r.auth !== 'internal')) {
      const key = Object.keys((route.query!.describe() as { keys?: Record<string, unknown> }).keys ?? {})[0] ?? 'q';
      const res = await raw(route.method.toUpperCase(), `${concrete(route)}?${encodeURIComponent(key)}=a%00b`, { headers: auth() });
      if (res.status !== 422 || res.body?.fields?.[0]?.type !== 'string.nul')
        wrong.push(`${route.method} ${route.fullPath} → ${res.status} ${JSON.stringify(res.body).slice(0, 160)}`);
    }
    expect(wrong).toEqual([]);
  });

  it('a NUL in a path id is the 404 of any malformed id; in another path parameter a 4xx', async () => {
    expectError(await api.request('/api/v1/maintenance/plans/a%00b', { token: tenant.token }), 404, 'NOT_FOUND');
    const res = await api.request('/api/v1/predictive-config/pump%00x', { token: tenant.token });
    expect(res.status).toBe(422);
    expect(res.body.fields[0].type).toBe('string.nul');
  });

  it('the assets filter, a branding and a CSAT survey with a NUL store nothing', async () => {
    expectError(await api.request('/api/v1/assets?type=pu%00mp', { token: tenant.token }), 422, 'VALIDATION_ERROR');
    const branding = await api.request('/api/v1/brandings', { method: 'POST', token: tenant.token, json: { name: 'B\u0000', company_name: 'Acme' } });
    expectError(branding, 422, 'VALIDATION_ERROR');
    const survey = await api.request('/api/v1/csat/surveys', { method: 'POST', token: tenant.token, json: { name: 'S', question: 'How\u0000?' } });
    expect(survey.status).toBe(422);
    expect(await api.deps.db('brandings').where({ tenant_id: tenant.tenantId }).count({ n: '*' })).toEqual([{ n: '0' }]);
    await apiStillUp();
  });
});

describe('keys a client chooses', () => {
  it('a __proto__ key anywhere in a JSON body is refused on every route, and no prototype is touched', async () => {
    // The JSON parser (co-body) refuses a __proto__ key at any depth as a malformed body (400).
    const wrong: string[] = [];
    // A signature header of the right form: the WhatsApp webhook reads no body without one.
    const headers = { ...auth(), 'Content-Type': 'application/json', 'X-Hub-Signature-256': `sha256=${'0'.repeat(64)}` };
    for (const route of routes.filter((r) => r.body && r.auth !== 'internal')) {
      const body = '{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}}';
      const res = await raw(route.method.toUpperCase(), concrete(route), { headers, body });
      if (res.status !== 400 || typeof res.body?.request_id !== 'string') wrong.push(`${route.method} ${route.fullPath} → ${res.status}`);
      const keys = Object.keys((route.body!.describe() as { keys?: Record<string, unknown> }).keys ?? {});
      const nested = await raw(route.method.toUpperCase(), concrete(route), {
        headers,
        body: `{"${keys[0] ?? 'name'}": {"a": [{"__proto__": {"polluted": "yes"}}]}}`,
      });
      if (nested.status !== 400 || nested.body?.error_code !== 'BAD_REQUEST' || nested.body?.detail !== 'request body has a "__proto__" key, which is refused') {
        wrong.push(`nested: ${route.method} ${route.fullPath} → ${nested.status} ${nested.body?.detail}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    await apiStillUp();
  });

  it('a __proto__ query parameter is refused by the shared validation', async () => {
    const res = await api.request('/api/v1/assets?__proto__=x', { token: tenant.token });
    expectError(res, 422, 'VALIDATION_ERROR');
    expect(res.body.fields[0]).toMatchObject({ field: 'query.__proto__', type: 'object.reserved' });
  });

  it('documentation assets named like inherited keys are 404', async () => {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      expectError(await api.request(`/api/v1/docs/assets/${name}`), 404, 'NOT_FOUND');
    }
  });
});

describe('multipart form fields named like inherited keys', () => {
  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty', ''])('a field named %p is a 422, nothing is stored, the API stays up', async (name) => {
    const form = new FormData();
    form.append(name, 'x');
    form.append('file', new Blob(['hello'], { type: 'text/plain' }), 'a.txt');
    const res = await api.request('/api/v1/files', { method: 'POST', token: tenant.token, body: form });
    expectError(res, 422, 'VALIDATION_ERROR');
    expect(await api.deps.db('files').where({ tenant_id: tenant.tenantId }).count({ n: '*' })).toEqual([{ n: '0' }]);
    await apiStillUp();
  });

  it('a form field value with a NUL is a 422', async () => {
    const form = new FormData();
    form.append('contact_id', `${randomUUID()}\u0000`);
    form.append('file', new Blob(['hello'], { type: 'text/plain' }), 'a.txt');
    expectError(await api.request('/api/v1/files', { method: 'POST', token: tenant.token, body: form }), 422, 'VALIDATION_ERROR');
  });

  it('a malformed multipart body is a documented 400', async () => {
    const res = await raw('POST', '/api/v1/files', {
      headers: { ...auth(), 'Content-Type': 'multipart/form-data; boundary=XYZ' },
      body: '--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nhello', // never closed
    });
    expect({ status: res.status, code: res.body.error_code }).toEqual({ status: 400, code: 'BAD_REQUEST' });
    await apiStillUp();
  });
});

describe('ids', () => {
  it('a malformed path id is 404 everywhere, before any query', async () => {
    expectError(await api.request('/api/v1/maintenance/plans/0', { method: 'DELETE', token: tenant.token }), 404, 'NOT_FOUND');
    const wrong: string[] = [];
    for (const route of routes.filter((r) => /:[a-z_]+_id\b/.test(r.fullPath) && r.auth === 'user')) {
      const path = route.fullPath.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => (name.endsWith('_id') ? '0' : 'x'));
      const res = await raw(route.method.toUpperCase(), path, { headers: { ...auth(), 'Content-Type': 'application/json' }, body: route.body ? '{}' : undefined });
      if (res.status !== 404 || res.body?.error_code !== 'NOT_FOUND') wrong.push(`${route.method} ${route.fullPath} → ${res.status}`);
    }
    expect(wrong).toEqual([]);
  });

  it('a malformed id in a query filter is a 422, not an echo', async () => {
    const res = await api.request('/api/v1/csat/aggregates?survey_id=zz', { token: tenant.token });
    expectError(res, 422, 'VALIDATION_ERROR');
    expect(res.body.fields[0].field).toBe('query.survey_id');
  });
});

describe('bodies of anonymous requests', () => {
  it('are refused over 64 KiB from the declared length, before the body is sent', async () => {
    // Headers only: the answer comes although the client never sends the megabyte it announced.
    const res = await raw('POST', '/api/v1/auth/login', { headers: { 'Content-Type': 'application/json', 'Content-Length': 1_000_000 }, body: '{"email":', endBody: false });
    expect({ status: res.status, code: res.body.error_code }).toEqual({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
  });

  it('inbound e-mail without a verifiable signature is refused before its body is read', async () => {
    // Headers only, announcing 5 MB: answered 401 although the body never comes.
    const account = '6f1c2a4e-0b7d-4c1e-9a55-2d3b8e7f9a10';
    for (const signature of [undefined, 'sha256=zz', `sha256=${'a'.repeat(64)}`]) {
      const headers: Record<string, string | number> = { 'Content-Type': 'message/rfc822', 'Content-Length': 5_000_000 };
      if (signature) headers['X-Inbound-Signature'] = signature;
      const res = await raw('POST', `/api/v1/email/inbound/${account}`, { headers, body: 'From: a@b.test\r\n', endBody: false });
      expect({ status: res.status, code: res.body.error_code }).toEqual({ status: 401, code: 'UNAUTHENTICATED' });
    }
  });

  it('are refused over 64 KiB of JSON', async () => {
    const res = await api.request('/api/v1/auth/login', { method: 'POST', json: { email: 'a@b.test', password: 'x'.repeat(100_000) } });
    expectError(res, 413, 'PAYLOAD_TOO_LARGE');
  });
});

describe('colours', () => {
  it('accepts #RGB, expanded (answers show colours upper-case, as before)', async () => {
    const res = await api.request('/api/v1/brandings', {
      method: 'POST',
      token: tenant.token,
      json: { name: 'Short', company_name: 'Acme', primary_color: '#0AF', accent_color: '#12ab34' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ primary_color: '#00AAFF', accent_color: '#12AB34' });
    expect(await api.deps.db('brandings').where({ id: res.body.id }).first('primary_color')).toEqual({ primary_color: '#00aaff' });
    expectError(
      await api.request('/api/v1/brandings', { method: 'POST', token: tenant.token, json: { name: 'Bad', company_name: 'Acme', primary_color: '#0AFF' } }),
      422,
      'VALIDATION_ERROR',
    );
  });
});
