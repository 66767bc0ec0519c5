/**
 * Metrics and probes of both processes (issue 18): the API's GET /metrics (request histogram by
 * route template, error codes, outbox backlog) and the worker's own port (/livez, /readyz,
 * /metrics with the Temporal SDK's metrics merged in), scraped after a workflow ran.
 */
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../../infra/config';
import { createTenant, expectError, send, startTestApi, TestApi, TestTenant } from '../support/api';
import { sample } from '../support/prometheus';
import { until } from '../support/until';

let api: TestApi;
let tenant: TestTenant;
const WORKER = process.env.TEST_WORKER_HTTP_URL!;

beforeAll(async () => {
  api = await startTestApi();
  tenant = await createTenant(api);
});
afterAll(() => api?.close());

describe('API /metrics', () => {
  it('counts requests by route template (no ids), error codes, and requests in flight', async () => {
    const assetId = randomUUID();
    expectError(await api.request(`/api/v1/assets/${assetId}`, { token: tenant.token }), 404, 'NOT_FOUND');
    expectError(await api.request('/api/v1/assets'), 401, 'UNAUTHENTICATED');
    const res = await api.request('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(sample(res.text, 'http_request_duration_seconds_count', { method: 'GET', route: '/api/v1/assets/:asset_id', status: '404' })).toBeGreaterThanOrEqual(1);
    expect(sample(res.text, 'http_errors_total', { error_code: 'UNAUTHENTICATED' })).toBeGreaterThanOrEqual(1);
    // The scrape itself is in flight while it is answered.
    expect(sample(res.text, 'http_requests_in_flight')).toBeGreaterThanOrEqual(1);
    expect(res.text).not.toContain(assetId);
    expect(res.text).not.toContain(tenant.tenantId);
    // Node.js runtime metrics of the process.
    expect(sample(res.text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(sample(res.text, 'nodejs_eventloop_lag_seconds')).toBeDefined();
  });

  it('reports the outbox backlog: a parked event shows in outbox_events_parked', async () => {
    const parkedNow = async () => sample((await api.request('/metrics')).text, 'outbox_events_parked') ?? -1;
    const before = await parkedNow();
    expect(before).toBeGreaterThanOrEqual(0);
    await api.deps.db('outbox_events').insert({
      tenant_id: tenant.tenantId,
      type: 'asset.created',
      data: JSON.stringify({ asset_id: randomUUID() }),
      occurred_at: new Date(),
      source: 'api',
      attempts: 8,
      last_error: 'test: parked',
      parked_at: new Date(),
      dispatched_at: new Date(),
    });
    // Read from PostgreSQL at most every 5 s per process.
    await until(parkedNow, (parked) => parked === before + 1, 'outbox_events_parked to count the parked event', 15_000, 500);
    const text = (await api.request('/metrics')).text;
    expect(sample(text, 'outbox_events_pending')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'outbox_oldest_pending_seconds')).toBeGreaterThanOrEqual(0);
  });

  it('asks for the metrics token when METRICS_TOKEN is set', async () => {
    const token = randomUUID();
    const guarded = await startTestApi({ metricsToken: token });
    try {
      expectError(await guarded.request('/metrics'), 401, 'UNAUTHENTICATED');
      expectError(await guarded.request('/metrics', { token: 'wrong' }), 401, 'UNAUTHENTICATED');
      const res = await guarded.request('/metrics', { token });
      expect(res.status).toBe(200);
      expect(sample(res.text, 'http_request_duration_seconds_count', { route: '/metrics', status: '401' })).toBe(2);
    } finally {
      await guarded.close();
    }
  });
});

describe('worker probes and /metrics', () => {
  it('is alive and ready while it polls and its dependencies answer', async () => {
    expect(WORKER).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const live = await send(WORKER, '/livez');
    expect([live.status, live.body]).toEqual([200, { status: 'ok' }]);
    const ready = await send(WORKER, '/readyz');
    expect([ready.status, ready.body]).toEqual([200, { status: 'ready' }]);
    expect((await send(WORKER, '/nothing-here')).status).toBe(404);
    expect((await send(WORKER, '/metrics', { method: 'POST' })).status).toBe(405);
  });

  it('serves its own and the Temporal SDK metrics after a workflow ran', async () => {
    // A plan is a workflow on the worker's main queue; reading it back queries that workflow.
    const created = await api.request('/api/v1/maintenance/plans', {
      method: 'POST',
      token: tenant.token,
      json: { name: 'Grease pump bearings', trigger: { type: 'counter', counter: 'operating_hours', unit: 'h', every: 100, start_value: 0 } },
    });
    expect(created.status).toBe(201);
    const metrics = await until(
      async () => (await send(WORKER, '/metrics')).text,
      (text) => (sample(text, 'temporal_workflow_completed_total') ?? 0) + (sample(text, 'temporal_workflow_task_execution_latency_count') ?? 0) > 0,
      'the SDK metrics to count a workflow task',
      30_000,
      500,
    );
    expect(sample(metrics, 'temporal_worker_task_slots_available', { worker_type: 'WorkflowWorker' })).toBeGreaterThan(0);
    expect(sample(metrics, 'process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('keeps the token rule of the API (config read the same way)', () => {
    expect(loadConfig({ ...process.env, METRICS_TOKEN: ' abc ' }).metricsToken).toBe('abc');
    expect(loadConfig({ ...process.env, METRICS_TOKEN: '' }).metricsToken).toBeNull();
  });
});
