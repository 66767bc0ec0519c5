/**
 * One trace from an API request into the workflow, its activity and their database queries. The
 * API and the worker are real processes from dist/ of a stack of their own (a Temporal dev server
 * and database of its own), configured only by the OpenTelemetry SDK's standard variables: each
 * exports over OTLP to a collector stand-in on loopback, the API as http/protobuf, the worker as
 * http/json (OTEL_EXPORTER_OTLP_PROTOCOL). The request carries a W3C traceparent; the API's server
 * span, its pg queries, the Temporal client's Update, the workflow's handler, the activity and the
 * activity's pg queries all carry its trace id; the API's log line of the request carries the
 * trace and span ids. Tenants are set up by an untraced API in this process.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { loadConfig } from '../../infra/config';
import { createTenant, send, startTestApi, TestApi } from '../support/api';
import { startServiceProcess, ServiceProcess } from '../../scripts/service-process';
import { DevServerForTest, startDevServerForTest } from '../support/temporal-env';
import { startTogether } from '../support/start-together';
import { startTestPostgres, TestPostgres } from '../support/test-postgres';
import { decodeTraceRequest } from '../support/otlp-traces';
import { until } from '../support/until';
import { exportLinkOf } from '../../services/privacy';

jest.setTimeout(240_000);

const ROOT = path.resolve(__dirname, '..', '..');
const API_LOG = path.join(ROOT, '.run', 'tracing-api.log');
const VERSION = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;
/** A credential in the path of the API's language-model gateway: no span may record it. */
const GATEWAY_TOKEN = `gw_${randomBytes(16).toString('hex')}`;

interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  service: string;
  resource: Record<string, unknown>;
  attributes: Record<string, unknown>;
  /** The body's content type: what OTEL_EXPORTER_OTLP_PROTOCOL chose. */
  contentType: string;
}

let temporal: DevServerForTest;
let postgres: TestPostgres;
let worker: ServiceProcess;
let tracedApi: ServiceProcess;
let collector: http.Server;
const exported: ExportedSpan[] = [];
let admin: TestApi;

const hex = (id: unknown): string | undefined => (id == null ? undefined : typeof id === 'string' ? id : Buffer.from(id as Uint8Array).toString('hex') || undefined);
/** The URL a span recorded (old or stable HTTP semantic conventions), or ''. */
const urlOf = (span: ExportedSpan): string => {
  const url = span.attributes['http.url'] ?? span.attributes['url.full'];
  return typeof url === 'string' ? url : '';
};
const attributeMap = (attributes: any[] = []): Record<string, unknown> => Object.fromEntries(attributes.map((a) => [a.key, Object.values(a.value ?? {})[0]]));

/** An ExportTraceServiceRequest, from JSON or protobuf alike. */
function collect(body: any, contentType: string): void {
  for (const resourceSpans of body.resourceSpans ?? []) {
    const resource = attributeMap(resourceSpans.resource?.attributes);
    for (const scope of resourceSpans.scopeSpans ?? []) {
      for (const span of scope.spans ?? []) {
        exported.push({
          traceId: hex(span.traceId)!,
          spanId: hex(span.spanId)!,
          parentSpanId: hex(span.parentSpanId),
          name: span.name,
          kind: span.kind,
          service: String(resource['service.name']),
          resource,
          attributes: attributeMap(span.attributes),
          contentType,
        });
      }
    }
  }
}

beforeAll(async () => {
  collector = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const contentType = String(req.headers['content-type']);
      const body = Buffer.concat(chunks);
      if (req.url === '/v1/traces') {
        collect(contentType === 'application/x-protobuf' ? decodeTraceRequest(body) : JSON.parse(body.toString()), contentType);
      } else if (req.url?.endsWith('/chat/completions')) {
        // The API's language model, behind a gateway whose URL holds a token (LLM_BASE_URL below).
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ model: 'stand-in-1', choices: [{ message: { content: 'You are a careful plant assistant.' } }] }));
        return;
      }
      res.writeHead(200, { 'Content-Type': contentType });
      res.end(contentType === 'application/x-protobuf' ? undefined : '{}');
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
  [temporal, postgres] = await startTogether(startDevServerForTest(), startTestPostgres());
  const env = { TEMPORAL_ADDRESS: temporal.address, DATABASE_URL: postgres.databaseUrl };
  const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_BSP_SCHEDULE_DELAY: '200', OTEL_LOGS_EXPORTER: 'none' };
  worker = await startServiceProcess(
    'worker',
    { ...env, ...otel, OTEL_SERVICE_NAME: 'worker-under-test', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' },
    path.join(ROOT, '.run', 'tracing-worker.log'),
  );
  fs.rmSync(API_LOG, { force: true });
  tracedApi = await startServiceProcess(
    'api',
    // No OTEL_SERVICE_NAME: the default name, with the environment's resource attributes.
    {
      ...env,
      ...otel,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=trace-test',
      LOG_LEVEL: 'info',
      LLM_BASE_URL: `${endpoint}/gw/${GATEWAY_TOKEN}/v1`,
    },
    API_LOG,
  );
  const base = loadConfig({ ...process.env, ...env });
  admin = await startTestApi({ databaseUrl: base.databaseUrl, temporal: base.temporal });
});

afterAll(async () => {
  await admin?.close();
  await tracedApi?.stop();
  await worker?.stop();
  await Promise.all([temporal?.stop(), postgres?.stop()]);
  await new Promise((resolve) => collector?.close(resolve));
});

it('follows a counter reading from the API request into the Update handler, the activity it runs and the queries of both', async () => {
  const tenant = await createTenant(admin);
  const created = await admin.request('/api/v1/maintenance/plans', {
    method: 'POST',
    token: tenant.token,
    json: { name: 'Grease pump bearings', trigger: { type: 'counter', counter: 'operating_hours', unit: 'h', every: 100, start_value: 0 } },
  });
  expect(created.status).toBe(201);

  const traceId = randomBytes(16).toString('hex');
  const callerSpanId = randomBytes(8).toString('hex');
  const counted = await send(tracedApi.url, `/api/v1/maintenance/plans/${created.body.id}/counter`, {
    method: 'POST',
    token: tenant.token,
    json: { value: 150, source: 'gateway-7' },
    headers: { traceparent: `00-${traceId}-${callerSpanId}-01`, 'Idempotency-Key': randomUUID() },
  });
  expect(counted.status).toBe(200);

  const spans = await until(
    async () => exported.filter((s) => s.traceId === traceId),
    (found) =>
      ['POST /api/v1/maintenance/plans/', 'StartWorkflowUpdate:', 'HandleUpdate:', 'RunActivity:recordCounterReading'].every((name) => found.some((s) => s.name.startsWith(name))),
    'both processes to export their spans of the trace',
    30_000,
    200,
  );
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const ancestors = (span: ExportedSpan | undefined): string[] => (span?.parentSpanId ? [span.parentSpanId, ...ancestors(byId.get(span.parentSpanId))] : []);

  // The API: the HTTP instrumentation's server span continues the caller's trace, named by the route.
  const api = spans.filter((s) => s.service === 'industrial-ops-api');
  const server = api.find((s) => s.name === 'POST /api/v1/maintenance/plans/:plan_id/counter')!;
  expect(server.parentSpanId).toBe(callerSpanId);
  expect(server.attributes['http.route']).toBe('/api/v1/maintenance/plans/:plan_id/counter');
  // The SDK's resource: the default name, service.version from package.json, OTEL_RESOURCE_ATTRIBUTES.
  expect(server.resource).toMatchObject({ 'service.version': VERSION, 'deployment.environment': 'trace-test' });
  expect(server.contentType).toBe('application/x-protobuf');
  // The API's own queries (session check, the unit of work) under its server span.
  const apiQueries = api.filter((s) => s.name.startsWith('pg.query:'));
  expect(apiQueries.length).toBeGreaterThan(0);
  for (const query of apiQueries) expect(ancestors(query)).toContain(server.spanId);
  const update = api.find((s) => s.name.startsWith('StartWorkflowUpdate:'))!;
  expect(ancestors(update)).toContain(server.spanId);

  // The worker, in the same trace: the Update handler under the API's Update call, the activity
  // under the handler, the activity's queries under the activity.
  const remote = spans.filter((s) => s.service === 'worker-under-test');
  expect(new Set(remote.map((s) => s.contentType))).toEqual(new Set(['application/json']));
  expect(remote[0]!.resource['service.version']).toBe(VERSION);
  const handler = remote.find((s) => s.name.startsWith('HandleUpdate:'))!;
  expect(handler.parentSpanId).toBe(update.spanId);
  const activity = remote.find((s) => s.name === 'RunActivity:recordCounterReading')!;
  expect(ancestors(activity)).toContain(handler.spanId);
  const activityQueries = remote.filter((s) => s.name.startsWith('pg.query:') && ancestors(s).includes(activity.spanId));
  expect(activityQueries.length).toBeGreaterThan(0);
  expect(activityQueries[0]!.attributes['db.system.name']).toBe('postgresql');

  // The API's log line of the request names the trace and the server span.
  const line = await until(
    async () => (fs.existsSync(API_LOG) ? fs.readFileSync(API_LOG, 'utf8').split('\n') : []).filter((l) => l.includes('"msg":"request"') && l.includes(traceId)),
    (lines) => lines.length > 0,
    'the request log line',
    5_000,
    100,
  );
  expect(JSON.parse(line[0]!)).toMatchObject({ trace_id: traceId, span_id: server.spanId, status: 200 });
});

it('opens a new trace for a request without tracing headers, and none for probes', async () => {
  const before = exported.length;
  expect((await send(tracedApi.url, '/livez', {})).status).toBe(200);
  const res = await send(tracedApi.url, '/api/v1/openapi.json', {});
  expect(res.status).toBe(200);
  const fresh = await until(
    async () => exported.slice(before).filter((s) => s.service === 'industrial-ops-api' && s.kind === 2),
    (found) => found.some((s) => s.name.startsWith('GET /api/v1/openapi.json')),
    'the server span of the document request',
    10_000,
    100,
  );
  // A new root span: no parent; the probe made none.
  expect(fresh.find((s) => s.name.startsWith('GET /api/v1/openapi.json'))!.parentSpanId).toBeUndefined();
  expect(fresh.find((s) => s.name.startsWith('GET /api/v1/openapi.json'))!.attributes['url.path']).toBe('/api/v1/openapi.json');
  expect(fresh.filter((s) => s.attributes['url.path'] === '/livez')).toEqual([]);
});

it('records no credential a URL carries in any span or log line: query values, token paths and userinfo are redacted', async () => {
  const tenant = await createTenant(admin);
  const traceId = randomBytes(16).toString('hex');
  const traced = (path: string, init: Parameters<typeof send>[2] = {}) =>
    send(tracedApi.url, path, { ...init, headers: { ...(init.headers as Record<string, string>), traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` } });
  const collectorUrl = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
  const secrets: string[] = [GATEWAY_TOKEN];

  // The WhatsApp verify challenge: the verify token in the query string.
  const verifyToken = `verify-${randomUUID()}`;
  secrets.push(verifyToken);
  const challenge = await traced(`/api/v1/whatsapp/webhook?hub.mode=subscribe&hub.verify_token=${verifyToken}&hub.challenge=1234`);
  expect(challenge.status).toBeGreaterThanOrEqual(400); // no number has this token
  // A subject export's link: its signature in the query string.
  const [exportRow] = await admin.deps.db('privacy_exports').insert({ tenant_id: tenant.tenantId, subject_id: randomUUID() }).returning('*');
  const link = new URL(exportLinkOf(admin.deps.exportLinks, exportRow));
  secrets.push(link.searchParams.get('signature')!);
  expect((await traced(`${link.pathname}${link.search}`, { redirect: 'manual' })).status).toBe(503);
  // An outgoing call through node:http (a webhook test) to a URL with a token path and a token query.
  const hookToken = `Hk${randomBytes(12).toString('hex')}`;
  const querySecret = `qs-${randomUUID()}`;
  secrets.push(hookToken, querySecret);
  const hook = await admin.request('/api/v1/integrations/webhooks', {
    method: 'POST',
    token: tenant.token,
    json: { url: `${collectorUrl}/services/T0AB12CD/B0CD34EF/${hookToken}?token=${querySecret}`, events: ['task.created'] },
  });
  expect(hook.status).toBe(201);
  expect((await traced(`/api/v1/integrations/webhooks/${hook.body.id}/test`, { method: 'POST', token: tenant.token, json: { sample_payload: { probe: 1 } } })).status).toBe(200);
  // An outgoing call through fetch (undici): the language model behind its token path.
  const optimized = await traced('/api/v1/prompts/optimize', { method: 'POST', token: tenant.token, json: { system_prompt: 'Answer questions.' } });
  expect(optimized.body.engine).toBe('openai-compatible');

  const spans = await until(
    async () => exported.filter((span) => span.traceId === traceId),
    (found) => {
      const urls = found.map(urlOf);
      return urls.some((u) => u.includes('/services/')) && urls.some((u) => u.includes('/gw/')) && found.filter((span) => span.kind === 2).length >= 4;
    },
    'the server and client spans of the four requests',
    30_000,
    200,
  );
  const recorded = JSON.stringify(spans);
  for (const secret of secrets) expect(recorded).not.toContain(secret);
  // What is left tells the calls apart: names of query parameters, the routes, the destinations.
  // A server span records its target as url.path and url.query (the stable conventions), a client span its url.full.
  const targets = spans.map((span) =>
    typeof span.attributes['url.path'] === 'string' && span.kind === 2
      ? `${span.attributes['url.path']}${span.attributes['url.query'] ? `?${span.attributes['url.query'] as string}` : ''}`
      : urlOf(span),
  );
  expect(targets).toEqual(
    expect.arrayContaining([
      '/api/v1/whatsapp/webhook?hub.mode=REDACTED&hub.verify_token=REDACTED&hub.challenge=REDACTED',
      `${link.pathname}?tenant=REDACTED&expires=REDACTED&signature=REDACTED`,
      `${collectorUrl}/gw/REDACTED/v1/chat/completions`,
    ]),
  );
  const hookSpan = spans.find((span) => span.kind === 3 && urlOf(span).includes('/services/'))!;
  expect(urlOf(hookSpan)).toBe(`${collectorUrl}/services/T0AB12CD/B0CD34EF/REDACTED?token=REDACTED`);

  // Nor do the API's log lines of these requests (they name the path only).
  const lines = await until(
    async () => (fs.existsSync(API_LOG) ? fs.readFileSync(API_LOG, 'utf8').split('\n') : []).filter((l) => l.includes(traceId)),
    (found) => found.length >= 4,
    'the request log lines',
    5_000,
    100,
  );
  for (const secret of secrets) expect(lines.join('\n')).not.toContain(secret);
});
