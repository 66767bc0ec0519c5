/**
 * One trace from an API request into the workflow and its activity (issue 18). The API runs in
 * this process with an in-memory exporter; the worker is a real process of a stack of its own
 * (a Temporal dev server and database of its own), configured only by the standard OTEL variables, exporting
 * over OTLP/HTTP to a collector stand-in on loopback. The request carries a W3C traceparent; the
 * API's span, the Temporal client's, the workflow's Update handler and the activity it runs all
 * carry its trace id.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { loadConfig } from '../../infra/config';
import { installTracing, Tracing } from '../../infra/tracing';
import { createTenant, startTestApi, TestApi } from '../support/api';
import { startServiceProcess, ServiceProcess } from '../../scripts/service-process';
import { DevServerForTest, startDevServerForTest } from '../support/temporal-env';
import { startTogether } from '../support/start-together';
import { startTestPostgres, TestPostgres } from '../support/test-postgres';
import { until } from '../support/until';

jest.setTimeout(240_000);

interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  service: string;
}

let temporal: DevServerForTest;
let postgres: TestPostgres;
let worker: ServiceProcess;
let collector: http.Server;
const exported: ExportedSpan[] = [];
const apiSpans = new InMemorySpanExporter();
let tracing: Tracing | null;
let api: TestApi;

/** OTLP/HTTP JSON (ExportTraceServiceRequest), as @opentelemetry/exporter-trace-otlp-http sends it. */
function collect(body: any): void {
  for (const resourceSpans of body.resourceSpans ?? []) {
    const service = (resourceSpans.resource?.attributes ?? []).find((a: any) => a.key === 'service.name')?.value?.stringValue;
    for (const scope of resourceSpans.scopeSpans ?? []) {
      for (const span of scope.spans ?? []) exported.push({ traceId: span.traceId, spanId: span.spanId, parentSpanId: span.parentSpanId, name: span.name, service });
    }
  }
}

beforeAll(async () => {
  collector = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces') collect(JSON.parse(Buffer.concat(chunks).toString()));
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
  [temporal, postgres] = await startTogether(startDevServerForTest(), startTestPostgres());
  const env = { TEMPORAL_ADDRESS: temporal.address, DATABASE_URL: postgres.databaseUrl };
  worker = await startServiceProcess(
    'worker',
    { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SERVICE_NAME: 'worker-under-test', OTEL_BSP_SCHEDULE_DELAY: '200' },
    path.resolve(__dirname, '../../.run/tracing-worker.log'),
  );
  tracing = installTracing('api-under-test', { exporter: apiSpans });
  const base = loadConfig({ ...process.env, ...env });
  api = await startTestApi({ databaseUrl: base.databaseUrl, temporal: base.temporal });
});

afterAll(async () => {
  await api?.close();
  await tracing?.shutdown();
  await worker?.stop();
  await Promise.all([temporal?.stop(), postgres?.stop()]);
  await new Promise((resolve) => collector?.close(resolve));
});

it('follows a counter reading from the API request into the Update handler and the activity it runs', async () => {
  const tenant = await createTenant(api);
  const created = await api.request('/api/v1/maintenance/plans', {
    method: 'POST',
    token: tenant.token,
    json: { name: 'Grease pump bearings', trigger: { type: 'counter', counter: 'operating_hours', unit: 'h', every: 100, start_value: 0 } },
  });
  expect(created.status).toBe(201);

  const traceId = randomBytes(16).toString('hex');
  const traceparent = `00-${traceId}-${randomBytes(8).toString('hex')}-01`;
  const counted = await api.request(`/api/v1/maintenance/plans/${created.body.id}/counter`, {
    method: 'POST',
    token: tenant.token,
    json: { value: 150, source: 'gateway-7' },
    headers: { traceparent, 'Idempotency-Key': randomUUID() },
  });
  expect(counted.status).toBe(200);

  // The API's own spans: the server span continues the caller's trace; the Update call is its child.
  const local = apiSpans.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
  const server = local.find((s) => s.name === 'POST /api/v1/maintenance/plans/:plan_id/counter');
  expect(server?.attributes['http.response.status_code']).toBe(200);
  const update = local.find((s) => s.name.startsWith('StartWorkflowUpdate:'));
  expect(update?.parentSpanId).toBe(server?.spanContext().spanId);

  // The worker's spans, exported over OTLP by the worker process, in the same trace.
  const remote = await until(
    async () => exported.filter((s) => s.traceId === traceId),
    (spans) => spans.some((s) => s.name.startsWith('RunActivity:')) && spans.some((s) => s.name.startsWith('HandleUpdate:')),
    'the worker to export the Update handler and activity spans',
    30_000,
    200,
  );
  expect(new Set(remote.map((s) => s.service))).toEqual(new Set(['worker-under-test']));
  const handler = remote.find((s) => s.name.startsWith('HandleUpdate:'))!;
  expect(handler.parentSpanId).toBe(update!.spanContext().spanId);
  // The activity's span descends from the handler (through the workflow's StartActivity span).
  const byId = new Map(remote.map((s) => [s.spanId, s]));
  const ancestors = (span: ExportedSpan | undefined): string[] => (span?.parentSpanId ? [span.parentSpanId, ...ancestors(byId.get(span.parentSpanId))] : []);
  const activity = remote.find((s) => s.name === 'RunActivity:recordCounterReading');
  expect(ancestors(activity)).toContain(handler.spanId);
});

it('sends no spans of requests without tracing headers to another trace', async () => {
  const before = apiSpans.getFinishedSpans().length;
  const res = await api.request('/livez');
  expect(res.status).toBe(200);
  const span = apiSpans
    .getFinishedSpans()
    .slice(before)
    .find((s) => s.name === 'GET /livez');
  // A new root span: no parent.
  expect(span?.parentSpanId).toBeUndefined();
});
