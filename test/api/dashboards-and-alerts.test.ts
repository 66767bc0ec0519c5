/**
 * The alert rules and the dashboards name metrics that the service really exports: the stack's API
 * and worker run the work each metric counts (a plan's workflow and its activities, a webhook
 * delivery, a workflow task that fails), then every metric name of every rule and panel query
 * must be in the /metrics of the API or of the worker (a histogram's `_bucket`, `_sum`, `_count`
 * included). The files' structure is checked without a stack in test/unit/deploy/observability.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { appendEvent } from '../../db/outbox';
import { loadConfig } from '../../infra/config';
import { workflowIds } from '../../infra/workflow-ids';
import { createTenant, send, startTestApi, TestApi, TestTenant } from '../support/api';
import { expressions } from '../support/observability';
import { exportedNames, sample } from '../support/prometheus';
import { parsePromql } from '../support/promql';
import { until } from '../support/until';
import { startWebhookReceiver, WebhookReceiver } from '../support/webhook-receiver';

jest.setTimeout(120_000);

const WORKER = process.env.TEST_WORKER_HTTP_URL!;
/** Series Prometheus makes itself: the scrape's health and the alerts' state. */
const PROMETHEUS_OWN = new Set(['up', 'ALERTS', 'ALERTS_FOR_STATE']);

let api: TestApi;
let tenant: TestTenant;
let receiver: WebhookReceiver;

beforeAll(async () => {
  api = await startTestApi();
  [tenant, receiver] = await Promise.all([createTenant(api), startWebhookReceiver()]);
});
afterAll(async () => {
  await receiver?.close();
  await api?.close();
});

const workerMetrics = async () => (await send(WORKER, '/metrics')).text;
/** One sample of the worker's /metrics (0 when absent). */
const workerSample =
  (name: string, labels: Record<string, string> = {}) =>
  async () =>
    sample(await workerMetrics(), name, labels) ?? 0;

/** A plan on the calendar: a workflow on the main queue. */
async function createCalendarPlan(): Promise<string> {
  const start = new Date(Date.now() + 7 * 24 * 3600_000).toISOString();
  const res = await api.request('/api/v1/maintenance/plans', {
    method: 'POST',
    token: tenant.token,
    json: { name: 'Inspect the press', trigger: { type: 'calendar', every: 1, unit: 'weeks', start_at: start, mode: 'fixed' } },
  });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

/**
 * A workflow task that fails, as a deploy's non-determinism or a bad payload would make it: a
 * signal whose payload no converter reads. The workflow is terminated once the failure is counted.
 */
async function failOneWorkflowTask(planId: string): Promise<void> {
  const client = await api.deps.temporal.client();
  const workflowId = workflowIds.maintenancePlan(tenant.tenantId, planId);
  await client.workflowService.signalWorkflowExecution({
    namespace: client.options.namespace,
    workflowExecution: { workflowId },
    signalName: 'readings',
    input: { payloads: [{ metadata: { encoding: Buffer.from('binary/unreadable') }, data: Buffer.from('?') }] },
    identity: 'dashboards-and-alerts test',
  });
  try {
    await until(workerSample('temporal_workflow_task_execution_failed_total'), (n) => n > 0, 'the worker to count a failed workflow task', 60_000, 500);
  } finally {
    await client.workflow.getHandle(workflowId).terminate('test: its workflow task was made to fail');
  }
}

it('names only metrics that the API or the worker exports', async () => {
  // A delivery of an asset's event to a webhook: attempts by result.
  const path = `/r/${randomUUID()}`;
  const webhook = await api.request('/api/v1/integrations/webhooks', { method: 'POST', token: tenant.token, json: { url: receiver.url(path), events: ['*'] } });
  expect(webhook.status).toBe(201);
  expect((await api.request('/api/v1/assets', { method: 'POST', token: tenant.token, json: { name: 'Press 4', type: 'press' } })).status).toBe(201);
  // A report: its file is made by an activity task (activity schedule-to-start).
  const report = await api.request('/api/v1/reports', {
    method: 'POST',
    token: tenant.token,
    json: { type: 'maintenance_compliance', format: 'pdf', period: { from: '2025-01-01', to: '2025-02-28' } },
  });
  expect(report.status).toBe(202);
  const planId = await createCalendarPlan();
  await receiver.waitFor(() => receiver.on(path).length > 0, 60_000, 'a webhook delivery');
  await until(workerSample('temporal_activity_schedule_to_start_latency_count'), (n) => n > 0, 'an activity task to be counted', 60_000, 500);
  await failOneWorkflowTask(planId);
  await until(workerSample('webhook_delivery_attempts_total', { result: 'success' }), (n) => n > 0, 'the delivery attempt to be counted', 30_000, 500);

  // The content sandbox's gauges have samples once its pool exists: the report renders in the worker's.
  await until(
    async () => sample(await workerMetrics(), 'content_sandbox_processes', { pool: 'worker' }),
    (n) => n !== undefined,
    "the worker's content sandbox",
    60_000,
    500,
  );

  const apiText = (await api.request('/metrics')).text;
  const workerText = await workerMetrics();
  for (const name of ['content_sandbox_replaced', 'content_sandbox_queued', 'content_sandbox_busy'])
    expect([name, sample(workerText, name, { pool: 'worker' })]).toEqual([name, expect.any(Number)]);
  // Parked deliveries and held events are read from PostgreSQL by the API: a sample on every scrape.
  for (const name of ['webhook_parked_deliveries', 'webhook_parked_oldest_seconds', 'webhook_parked_tenants_at_limit', 'outbox_events_held'])
    expect([name, sample(apiText, name)]).toEqual([name, expect.any(Number)]);
  const exported = new Set([...exportedNames(apiText), ...exportedNames(workerText), ...PROMETHEUS_OWN]);
  // The pool gauges tell the worker's pool as configured (the stack's worker has this process's environment).
  expect(sample(workerText, 'db_pool_connections_max')).toBe(loadConfig(process.env).databasePoolMax);
  expect(sample(workerText, 'db_pool_connections_in_use')! + sample(workerText, 'db_pool_connections_idle')!).toBeGreaterThan(0);
  // The labels the rules group by are there too.
  expect(sample(workerText, 'temporal_workflow_task_execution_failed_total', { task_queue: 'industrial-ops', workflow_type: 'maintenancePlanWorkflow' })).toBeGreaterThan(0);

  const all = expressions();
  expect(all.length).toBeGreaterThan(20);
  const unknown = all.flatMap(([where, expr]) =>
    parsePromql(expr)
      .metricNames.filter((name) => !exported.has(name))
      .map((name) => `${where}: ${name}`),
  );
  expect(unknown).toEqual([]);
});

it('counts failed webhook attempts by result and the circuit they open', async () => {
  const owner = await createTenant(api);
  const path = `/r/${randomUUID()}`;
  receiver.script(path, [{ status: 503 }]);
  const created = await api.request('/api/v1/integrations/webhooks', { method: 'POST', token: owner.token, json: { url: receiver.url(path), events: ['asset.*'] } });
  expect(created.status).toBe(201);
  // Counters of the whole worker (other tests' deliveries too): this test's share is a rise.
  const failedBefore = await workerSample('webhook_delivery_attempts_total', { result: 'http_status' })();
  const openedBefore = await workerSample('webhook_circuit_breaker_opens_total')();
  await api.deps.db.transaction(async (tx) => {
    for (let i = 0; i < 5; i++) await appendEvent(tx, { tenantId: owner.tenantId, type: 'asset.created', data: { asset_id: `breaker-${i}` } });
  });
  await receiver.waitFor(() => receiver.on(path).length >= 5, 30_000, 'five failed attempts');
  await until(workerSample('webhook_circuit_breaker_opens_total'), (n) => n >= openedBefore + 1, 'the circuit opening to be counted', 15_000, 200);
  expect(await workerSample('webhook_delivery_attempts_total', { result: 'http_status' })()).toBeGreaterThanOrEqual(failedBefore + 5);
  // Its deferred deliveries must not run on into other tests.
  expect((await api.request(`/api/v1/integrations/webhooks/${created.body.id}`, { method: 'DELETE', token: owner.token })).status).toBe(204);
});

it('reads metric names as Prometheus does, suffixes and all (the check above can fail)', () => {
  const text = ['# HELP h_seconds a histogram', '# TYPE h_seconds histogram', 'h_seconds_bucket{le="1"} 0', '# TYPE c_total counter', '# TYPE g gauge', 'g{state="open"} 2'].join(
    '\n',
  );
  const names = exportedNames(text);
  for (const name of ['h_seconds_bucket', 'h_seconds_sum', 'h_seconds_count', 'c_total', 'g']) expect([name, names.has(name)]).toEqual([name, true]);
  expect(names.has('c')).toBe(false);
  expect(parsePromql('histogram_quantile(0.9, sum by (le) (rate(h_seconds_bucket[5m]))) > on(instance) g offset 1h and {__name__="c_total"}').metricNames).toEqual([
    'h_seconds_bucket',
    'g',
    'c_total',
  ]);
  expect(parsePromql('sum(rate(missing_total[5m])) /').errors).not.toEqual([]);
});
