/**
 * The hostile corpus for messages (test/support/hostile-corpus/): deep and wide JSON, compression
 * bombs, MIME of thousands of parts and megabytes of headers with lying transfer encodings, and
 * multipart bodies of thousands of parts, each sent through every entry point that accepts it, to
 * an API process started from dist/. Each attack is answered with the 4xx error object naming the
 * bound it broke (or, for what is merely large, stored as usual), while the API process and the
 * stack's worker answer /livez within 2 s as the same processes under a stated resident memory,
 * and another tenant's requests answer within 2 s (test/support/hostile-probe.ts).
 */
import { createHmac, randomUUID } from 'node:crypto';
import path from 'node:path';
import { createApp } from '../../api/app';
import { MAIL_LIMITS } from '../../infra/inbound-mail';
import { startServiceProcess, type ServiceProcess } from '../../scripts/service-process';
import { createTenant, expectError, send, startTestApi, type TestApi, type TestResponse, type TestTenant } from '../support/api';
import { expectContained, stackWorker, underHostileLoad } from '../support/hostile-probe';
import * as json from '../support/hostile-corpus/json';
import * as gzip from '../support/hostile-corpus/gzip';
import * as mime from '../support/hostile-corpus/mime';
import * as multipart from '../support/hostile-corpus/multipart';
import { sinkEmailAccount } from '../support/mail';
import { registerWhatsappNumber } from '../support/whatsapp-inbound';

jest.setTimeout(600_000);

const MIB = 1024 * 1024;
const APP_SECRET = `app-secret-${randomUUID()}`;
/**
 * Resident memory the processes stay under while attacked: the API process's own share of its
 * pod's limit (it starts at about 220 MiB and holds the 10 MiB bodies in flight and a parse thread
 * of at most 96 MiB of heap; docs/decisions/pod-memory-from-measured-parts.md), the worker well
 * under its own.
 */
const RSS_MIB = { api: 500, worker: 1_000 };

let admin: TestApi;
let tenant: TestTenant;
let other: TestTenant;
let api: ServiceProcess;
let inbound: { id: string; inbound_secret: string };

beforeAll(async () => {
  admin = await startTestApi();
  [tenant, other] = await Promise.all([createTenant(admin), createTenant(admin)]);
  api = await startServiceProcess('api', {}, path.join(__dirname, '..', '..', '.run', 'hostile-messages-api.log'));
  inbound = await sinkEmailAccount(admin, tenant);
  await registerWhatsappNumber(admin, tenant, APP_SECRET);
});
afterAll(async () => {
  await api?.stop();
  await admin?.close();
});

/** Runs `attack` against the API process while it, the stack's worker and another tenant are watched. */
async function contained<T>(attack: () => Promise<T>): Promise<T> {
  const report = await underHostileLoad(
    {
      watched: [{ name: 'api', pid: api.pid, livezUrl: `${api.url}/livez` }, stackWorker()],
      otherTenant: async () => (await send(api.url, '/api/v1/assets?limit=5', { token: other.token })).status,
    },
    attack,
  );
  expectContained(report, { rssMiB: RSS_MIB });
  return report.result;
}

function post(pathname: string, body: Buffer | string, headers: Record<string, string>): Promise<TestResponse> {
  return send(api.url, pathname, { method: 'POST', headers, body });
}

const sign = (secret: string, bytes: Buffer | string) => `sha256=${createHmac('sha256', secret).update(bytes).digest('hex')}`;

function whatsapp(body: Buffer | string, headers: Record<string, string> = {}): Promise<TestResponse> {
  const decoded = headers['Content-Encoding'] ? '' : body;
  return post('/api/v1/whatsapp/webhook', body, { 'Content-Type': 'application/json', 'X-Hub-Signature-256': sign(APP_SECRET, decoded), ...headers });
}

function mail(raw: Buffer, headers: Record<string, string> = {}): Promise<TestResponse> {
  return post(`/api/v1/email/inbound/${inbound.id}`, raw, { 'Content-Type': 'message/rfc822', 'X-Inbound-Signature': sign(inbound.inbound_secret, raw), ...headers });
}

function asTenant(pathname: string, body: Buffer | string, headers: Record<string, string> = {}): Promise<TestResponse> {
  return post(pathname, body, { 'Content-Type': 'application/json', Authorization: `Bearer ${tenant.token}`, ...headers });
}

/** `[status, error_code]` of each answer, to compare in one assertion; every 4xx must carry the error object. */
function outcome(res: TestResponse): [number, string | undefined] {
  if (res.status >= 400) expectError(res, res.status, res.body?.error_code);
  return [res.status, res.body?.error_code];
}

describe('deep and wide JSON', () => {
  it('refuses 100 000-deep JSON on the signed WhatsApp webhook with 400 JSON_TOO_DEEP, arrays and objects alike', async () => {
    const answers = await contained(async () => [await whatsapp(json.whatsappEnvelope(json.deepArray(100_000))), await whatsapp(json.whatsappEnvelope(json.deepObject(40_000)))]);
    expect(answers.map(outcome)).toEqual([
      [400, 'JSON_TOO_DEEP'],
      [400, 'JSON_TOO_DEEP'],
    ]);
    expect(answers[0]!.body.max_depth).toBe(64);
  });

  it('refuses deep JSON before parsing it on every route that takes a JSON body', async () => {
    const routes = createApp(admin.deps).routes.filter((r) => r.body && r.auth !== 'internal');
    const deep = json.deepArray(30_000); // 60 000 bytes: under the anonymous routes' 64 KiB
    const answers = await contained(async () => {
      const out: string[] = [];
      for (const route of routes) {
        const concrete = route.fullPath.replace(/:([A-Za-z0-9_]+)/g, () => randomUUID());
        const res = await send(api.url, concrete, {
          method: route.method.toUpperCase(),
          headers: { 'Content-Type': 'application/json', 'X-Hub-Signature-256': `sha256=${'0'.repeat(64)}`, 'X-Inbound-Signature': `sha256=${'0'.repeat(64)}` },
          token: route.auth === 'user' ? tenant.token : undefined,
          body: deep,
        });
        out.push(`${route.method.toUpperCase()} ${route.fullPath} ${res.status} ${res.body?.error_code}`);
      }
      return out;
    });
    expect(answers.filter((line) => !line.endsWith(' 400 JSON_TOO_DEEP'))).toEqual([]);
    expect(answers.length).toBeGreaterThan(50);
  });

  it('refuses wide JSON (60 000 members) before parsing it with 400 JSON_TOO_WIDE, and judges a wide invalid body by its first error', async () => {
    const readings = (n: number) => Array.from({ length: n }, (_, i) => `{"i":${i}}`).join(',');
    const answers = await contained(async () => [
      await asTenant('/api/v1/assets', json.wideObject(60_000)),
      await asTenant('/api/v1/machine/readings/batch', `{"readings":${json.wideArray(60_000)}}`),
      await whatsapp(json.whatsappEnvelope(json.wideArray(15_000).slice(1, -1))),
      await asTenant('/api/v1/machine/readings/batch', `{"readings":[${readings(1_999)}]}`),
    ]);
    expect(answers.map(outcome)).toEqual([
      [400, 'JSON_TOO_WIDE'],
      [400, 'JSON_TOO_WIDE'],
      [400, 'JSON_TOO_WIDE'],
      [422, 'VALIDATION_ERROR'],
    ]);
    expect(answers[0]!.body.max_members).toBe(2_000);
    expect(answers[3]!.body.fields).toHaveLength(1);
  });
});

describe('compressed bodies', () => {
  it('refuses a gzip, x-gzip or deflate bomb by its ratio before it inflates, on JSON routes and on inbound mail', async () => {
    const answers = await contained(async () => [
      await asTenant('/api/v1/assets', gzip.jsonBomb(512), { 'Content-Encoding': 'gzip' }),
      await asTenant('/api/v1/assets', gzip.jsonBomb(64), { 'Content-Encoding': 'x-gzip' }),
      await asTenant('/api/v1/assets', gzip.deflateJsonBomb(16), { 'Content-Encoding': 'deflate' }),
      await whatsapp(gzip.jsonBomb(128), { 'Content-Encoding': 'gzip' }),
      await mail(gzip.gzipBomb(1_024, { prefix: 'From: a@outside.example\r\n\r\n' }), { 'Content-Encoding': 'gzip' }),
    ]);
    expect(answers.map(outcome)).toEqual([
      [413, 'COMPRESSION_RATIO_TOO_HIGH'],
      [413, 'COMPRESSION_RATIO_TOO_HIGH'],
      [413, 'COMPRESSION_RATIO_TOO_HIGH'],
      [413, 'COMPRESSION_RATIO_TOO_HIGH'],
      [413, 'COMPRESSION_RATIO_TOO_HIGH'],
    ]);
  });

  it('caps the inflated bytes of a body whose ratio is ordinary, refuses codings it does not decode, and decodes what fits', async () => {
    // Readings that compress about 10x: 3 MiB inflated from about 300 KB sent.
    const readings = Array.from({ length: 60_000 }, (_, i) => `{"series":"s${i % 97}","value":${(i * 7919) % 10007}.${i % 89}}`).join(',');
    const large = gzip.gzipText(`{"readings":[${readings}]}`);
    expect(large.length).toBeLessThan(MIB);
    const small = gzip.gzipText(JSON.stringify({ name: 'Compressed pump', type: 'pump' }));
    const answers = await contained(async () => [
      await asTenant('/api/v1/machine/readings/batch', large, { 'Content-Encoding': 'gzip' }),
      await asTenant('/api/v1/assets', gzip.notGzip(4_096), { 'Content-Encoding': 'gzip' }),
      await asTenant('/api/v1/assets', '{}', { 'Content-Encoding': 'br' }),
      await post('/api/v1/files', multipart.manyParts(1, 'files').body, {
        'Content-Type': multipart.manyParts(1, 'files').contentType,
        'Content-Encoding': 'gzip',
        Authorization: `Bearer ${tenant.token}`,
      }),
      await asTenant('/api/v1/assets', small, { 'Content-Encoding': 'gzip' }),
    ]);
    expect(answers.map(outcome)).toEqual([
      [413, 'PAYLOAD_TOO_LARGE'],
      [400, 'BAD_REQUEST'],
      [415, 'UNSUPPORTED_CONTENT_ENCODING'],
      [415, 'UNSUPPORTED_CONTENT_ENCODING'],
      [201, undefined],
    ]);
    expect(answers[4]!.body.name).toBe('Compressed pump');
  });
});

describe('MIME', () => {
  it('refuses mail of thousands of parts, deep nesting and megabytes of headers with the bound each broke', async () => {
    const answers = await contained(async () => [
      await mail(mime.manyParts(5_000)),
      await mail(mime.nestedParts(2_000)),
      await mail(mime.headerLines(2 * MIB)),
      await mail(mime.longHeader(MIB)),
      await mail(mime.manyAddresses(40_000)),
    ]);
    expect(answers.map(outcome)).toEqual([
      [422, 'MESSAGE_TOO_MANY_PARTS'],
      [422, 'MESSAGE_TOO_MANY_PARTS'],
      [413, 'MESSAGE_HEADERS_TOO_LARGE'],
      [413, 'MESSAGE_HEADERS_TOO_LARGE'],
      [413, 'MESSAGE_HEADERS_TOO_LARGE'],
    ]);
    expect(answers[0]!.body).toMatchObject({ reason: 'too_many_parts', detail: `the message has more than ${MAIL_LIMITS.maxParts} MIME parts` });
  });

  it('stores mail whose transfer encodings lie, and large ordinary mail, without blocking the loop', async () => {
    const html = Buffer.from(`From: a@outside.example\r\nContent-Type: text/html\r\n\r\n${'<div><p>hello <b>world</b></p></div>\r\n'.repeat(Math.floor((9 * MIB) / 38))}`);
    const text = Buffer.from(`From: a@outside.example\r\nContent-Type: text/plain\r\n\r\n${'an ordinary line of a long report\r\n'.repeat(Math.floor((9.5 * MIB) / 35))}`);
    const answers = await contained(async () => [
      await mail(mime.badTransferEncodings.notBase64(2 * MIB)),
      await mail(mime.badTransferEncodings.brokenQuotedPrintable(2 * MIB)),
      await mail(mime.badTransferEncodings.unknown(2 * MIB)),
      await mail(mime.badTransferEncodings.binaryAs7bit(2 * MIB)),
      await mail(mime.largeAttachment(7 * MIB)),
      await mail(mime.manyAddresses(1_000)),
      await mail(html),
      await mail(text),
      await mail(mime.ordinary()),
    ]);
    expect(answers.map(outcome)).toEqual(Array.from({ length: 9 }, () => [200, undefined]));
  });
});

describe('multipart uploads', () => {
  it('refuses thousands of parts, named, unnamed or files, and a part header without end', async () => {
    const upload = ({ body, contentType }: multipart.MultipartBody) => post('/api/v1/files', body, { 'Content-Type': contentType, Authorization: `Bearer ${tenant.token}` });
    const answers = await contained(async () => [
      await upload(multipart.manyParts(5_000, 'unnamed')),
      await upload(multipart.manyParts(5_000, 'fields')),
      await upload(multipart.manyParts(5_000, 'files')),
      await upload(multipart.endlessPartHeader(MIB)),
    ]);
    expect(answers.map(outcome)).toEqual([
      [422, 'MULTIPART_TOO_MANY_PARTS'],
      [422, 'VALIDATION_ERROR'],
      [422, 'VALIDATION_ERROR'],
      [400, 'BAD_REQUEST'],
    ]);
  });
});
