/**
 * JSON bodies as @koa/bodyparser parses them behind the bounds of api/request-body.ts and the shape
 * scan (api/middleware/json-body.ts): which refusal wins when a body breaks more than one rule,
 * what the parser accepts (a byte order mark), and a streamed body past the limit.
 */
import { createTenant, expectError, startTestApi, TestApi, TestTenant } from '../support/api';
import * as json from '../support/hostile-corpus/json';

let api: TestApi;
let tenant: TestTenant;
beforeAll(async () => {
  api = await startTestApi();
  tenant = await createTenant(api);
});
afterAll(() => api.close());

const postAsset = (body: RequestInit['body'], headers: Record<string, string> = {}, init: RequestInit = {}) =>
  api.request('/api/v1/assets', { method: 'POST', token: tenant.token, headers: { 'Content-Type': 'application/json', ...headers }, body, ...init });

describe('JSON bodies', () => {
  it('refuses a body that is not an object or an array as malformed, however deep it nests after that', async () => {
    for (const body of ['"pump"', '42', `x${json.deepArray(1_000)}`, ` 1${json.wideArray(3_000)}`]) {
      const res = await postAsset(body);
      expectError(res, 400, 'BAD_REQUEST');
      expect(res.body.detail).toBe('request body is not valid JSON');
    }
  });

  it('judges the shape before the __proto__ key, and the __proto__ key of a body within the shape', async () => {
    expectError(await postAsset(`{"__proto__": ${json.deepArray(100)}}`), 400, 'JSON_TOO_DEEP');
    const res = await postAsset('{"name": "Pump", "type": "pump", "metadata": {"__proto__": {"polluted": true}}}');
    expectError(res, 400, 'BAD_REQUEST');
    expect(res.body.detail).toBe('request body has a "__proto__" key, which is refused');
  });

  it('reads a body that starts with a UTF-8 byte order mark', async () => {
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify({ name: 'Marked pump', type: 'pump' }))]);
    const res = await postAsset(body);
    expect(res.status).toBe(201);
    expect(res.body.name).toBe('Marked pump');
  });

  it('refuses a streamed body without Content-Length once it passes the limit, and closes the connection', async () => {
    const chunk = new TextEncoder().encode(`{"name": "Pump", "type": "pump", "metadata": {"blob": "${'x'.repeat(64 * 1024)}`);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        // 2 MiB of a string value, more than the route's 1 MiB, then the rest would follow.
        if (sent++ < 32) controller.enqueue(sent === 1 ? chunk : new TextEncoder().encode('x'.repeat(64 * 1024)));
        else controller.close();
      },
    });
    const res = await postAsset(stream, {}, { duplex: 'half' } as RequestInit);
    expectError(res, 413, 'PAYLOAD_TOO_LARGE');
    expect(res.body.max_bytes).toBe(1024 * 1024);
    expect(res.headers.get('connection')).toBe('close');
  });
});
