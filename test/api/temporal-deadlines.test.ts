/**
 * A Temporal that stops answering, on the real stack: an API whose Temporal address is a proxy
 * that goes silent (its open connection passes no more bytes; a new one is accepted and never
 * answered). Every route that calls Temporal answers 503 DEPENDENCY_UNAVAILABLE within the call
 * deadline, holds no pooled connection and no row lock while it waits, and changes nothing
 * (plan update: saved, as its 503 says); another tenant's reads on the same API keep answering.
 */
import { randomUUID } from 'node:crypto';
import { appendEvent } from '../../db/outbox';
import { loadConfig } from '../../infra/config';
import { createTenant, expectError, startTestApi, TestApi, TestResponse, TestTenant } from '../support/api';
import { startStallingProxy, StallingProxy } from '../support/stalling-proxy';
import { until } from '../support/until';

jest.setTimeout(180_000);

const DEADLINE_MS = 2_000;
/** What the answer may take beyond the deadline on a loaded machine (HTTP, the reads before the call). */
const SLACK_MS = 2_500;
const POOL = 4;

let api: TestApi;
let t: TestTenant;
let other: TestTenant;
const closers: Array<() => Promise<void>> = [];

/** An API of its own whose Temporal is behind a proxy that can go silent, with a small pool. */
async function apiBehindProxy(callDeadlineMs = DEADLINE_MS): Promise<{ slow: TestApi; proxy: StallingProxy }> {
  const temporal = loadConfig(process.env).temporal;
  const proxy = await startStallingProxy(temporal.address);
  const slow = await startTestApi({ temporal: { ...temporal, address: proxy.address, callDeadlineMs }, databasePoolMax: POOL });
  closers.push(
    () => slow.close(),
    () => proxy.close(),
  );
  return { slow, proxy };
}

const M = '/api/v1/maintenance/plans';
const R = '/api/v1/scheduled-reports';
const W = '/api/v1/integrations/webhooks';
const reportBody = {
  name: 'Weekly compliance',
  report_type: 'maintenance_compliance',
  format: 'pdf',
  period_rule: 'previous_month',
  schedule: { cron: '0 6 1 * *' },
  time_zone: 'UTC',
  recipients: ['lead@plant.example.com'],
};

async function created(path: string, json: unknown): Promise<string> {
  const res = await api.request(path, { method: 'POST', token: t.token, json });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function createPlan(): Promise<string> {
  const start = new Date(Math.ceil((Date.now() + 7 * 24 * 3_600_000) / 3_600_000) * 3_600_000).toISOString();
  return created(M, { name: 'Grease pump bearings', trigger: { type: 'calendar', every: 1, unit: 'weeks', start_at: start, mode: 'floating' } });
}

async function createOpenConversation(): Promise<string> {
  const db = api.deps.db;
  const [contact] = await db('contacts')
    .insert({ tenant_id: t.tenantId, name: 'Visitor', phone: `+4915${Math.floor(1e8 + Math.random() * 8e8)}` })
    .returning('id');
  const [conversation] = await db('conversations').insert({ tenant_id: t.tenantId, agent_id: randomUUID(), contact_id: contact.id, channel: 'whatsapp' }).returning('id');
  return conversation.id;
}

/** A webhook with one delivery that failed for good, of a stored event: what redeliver and recover start again. */
async function webhookWithFailedDelivery(): Promise<{ webhookId: string; deliveryId: string }> {
  const webhookId = await created(W, { url: 'http://127.0.0.1:9/hook', events: ['*'] });
  const eventId = await api.deps.db.transaction(async (tx) => {
    const { id } = await appendEvent(tx, { tenantId: t.tenantId, type: 'asset.created', data: { asset_id: 'x' } });
    await tx('outbox_events').where({ id }).update({ dispatched_at: tx.fn.now() });
    return id;
  });
  const deliveryId = randomUUID();
  await api.deps.db('webhook_deliveries').insert({
    tenant_id: t.tenantId,
    webhook_id: webhookId,
    delivery_id: deliveryId,
    event_id: eventId,
    event_type: 'asset.created',
    attempt: 1,
    status: 'failed',
    status_code: 500,
    failure_cause: 'http_status',
    next_attempt_at: null,
  });
  return { webhookId, deliveryId };
}

beforeAll(async () => {
  api = await startTestApi();
  [t, other] = await Promise.all([createTenant(api), createTenant(api)]);
});
afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => undefined);
  await api?.close();
});

it('answers 503 within the deadline on every Temporal route, holding no connection or lock, while another tenant reads', async () => {
  const [planId, reportId, conversationId, hook] = await Promise.all([createPlan(), created(R, reportBody), createOpenConversation(), webhookWithFailedDelivery()]);
  await api.request(`${M}/${planId}/pause`, { method: 'POST', token: t.token }); // so that resume has something to change
  const planBefore = await api.deps.db('maintenance_plans').where({ id: planId }).first();
  const auditBefore = Number((await api.deps.db('audit_log').where({ tenant_id: t.tenantId }).count({ n: '*' }).first())!.n);

  const { slow, proxy } = await apiBehindProxy();
  // Through the proxy while it still passes bytes: the API's connection to Temporal is up.
  const warm = await slow.request(`${R}/${reportId}`, { token: t.token });
  expect(warm.body.next_runs).toHaveLength(3);
  proxy.stall();

  const since = encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString());
  const calls: Array<[string, string, unknown?]> = [
    ['POST', `${M}/${planId}/resume`],
    ['POST', `${M}/${planId}/pause`],
    ['DELETE', `${M}/${planId}`],
    ['POST', R, { ...reportBody, name: 'never created' }],
    ['PATCH', `${R}/${reportId}`, { schedule: { cron: '0 7 1 * *' } }],
    ['POST', `${R}/${reportId}/pause`],
    ['DELETE', `${R}/${reportId}`],
    ['POST', `/api/v1/conversations/${conversationId}/close`],
    ['POST', `${W}/${hook.webhookId}/deliveries/${hook.deliveryId}/redeliver`],
    ['POST', `${W}/${hook.webhookId}/recover?since=${since}`],
  ];
  const started = Date.now();
  // More requests in flight than the pool has connections: a route that held one across the call would starve the rest.
  const pending = calls.map(([method, path, json]) => slow.request(path, { method, token: t.token, json }).then((res): [TestResponse, number] => [res, Date.now() - started]));

  // While they wait on Temporal: no pooled connection is taken, and the rows are free.
  await until(
    async () => (slow.deps.db.client as { pool: { numUsed(): number } }).pool.numUsed(),
    (used) => used === 0,
    'the slow API to hold no database connection while it waits on Temporal',
    DEADLINE_MS,
    20,
  );
  expect(Date.now() - started).toBeLessThan(DEADLINE_MS);
  await api.deps.db.transaction(async (tx) => {
    expect(await tx('maintenance_plans').where({ id: planId }).forUpdate().noWait().first('id')).toEqual({ id: planId });
    expect(await tx('scheduled_reports').where({ id: reportId }).forUpdate().noWait().first('id')).toEqual({ id: reportId });
    expect(await tx('conversations').where({ id: conversationId }).forUpdate().noWait().first('id')).toEqual({ id: conversationId });
  });
  // Another tenant's reads on the same API answer at once, again and again.
  for (let i = 0; i < 5; i++) {
    const readStarted = Date.now();
    const read = await slow.request('/api/v1/assets', { token: other.token });
    expect(read.status).toBe(200);
    expect(Date.now() - readStarted).toBeLessThan(1_000);
  }

  const answers = await Promise.all(pending);
  answers.forEach(([res, elapsed], i) => {
    const [method, path] = calls[i]!;
    try {
      expectError(res, 503, 'DEPENDENCY_UNAVAILABLE');
      expect(res.body.component).toBe('temporal');
      expect(elapsed).toBeLessThan(DEADLINE_MS + SLACK_MS);
    } catch (err) {
      throw new Error(`${method} ${path}: ${(err as Error).message}`, { cause: err });
    }
  });

  // Nothing changed: the plan still paused and live, the report and its schedule as they were,
  // no second report, the conversation open, no audit row for any of these.
  const planAfter = await api.deps.db('maintenance_plans').where({ id: planId }).first();
  expect(planAfter).toMatchObject({ status: 'paused', deleted_at: null, version: planBefore.version });
  const reports = await api.deps.db('scheduled_reports').where({ tenant_id: t.tenantId });
  expect(reports.map((r) => [r.id, r.status, r.schedule])).toEqual([[reportId, 'active', { cron: '0 6 1 * *' }]]);
  expect(await api.deps.db('conversations').where({ id: conversationId }).first('status')).toEqual({ status: 'open' });
  expect(Number((await api.deps.db('audit_log').where({ tenant_id: t.tenantId }).count({ n: '*' }).first())!.n)).toBe(auditBefore);
});

it('answers 503 within the deadline when the Temporal address accepts connections and never answers', async () => {
  const planId = await createPlan();
  // A deadline shorter than the connect timeout (3 s): connecting is bounded by the call's deadline too.
  const deadline = 1_000;
  const { slow, proxy } = await apiBehindProxy(deadline);
  proxy.stall(); // before the API's first connection: connecting itself never completes
  const started = Date.now();
  const res = await slow.request(`${M}/${planId}/pause`, { method: 'POST', token: t.token });
  expectError(res, 503, 'DEPENDENCY_UNAVAILABLE');
  expect(Date.now() - started).toBeLessThan(deadline + 1_500);
  expect(await api.deps.db('maintenance_plans').where({ id: planId }).first('status')).toEqual({ status: 'active' });
});

const workflowState = async (planId: string) =>
  (await (await api.deps.temporal.client()).workflow.getHandle(`maintenance-plan/${t.tenantId}/${planId}`).query('state')) as { version: number; schedule: unknown };

it('saves a plan update whose signal cannot be delivered and says so; the same update again applies it', async () => {
  const planId = await createPlan();
  const before = await api.deps.db('maintenance_plans').where({ id: planId }).first();
  const { slow, proxy } = await apiBehindProxy();
  proxy.stall();
  const res = await slow.request(`${M}/${planId}`, { method: 'PUT', token: t.token, json: { on_open_task: 'skip' } });
  expectError(res, 503, 'DEPENDENCY_UNAVAILABLE');
  expect(res.body.detail).toMatch(/saved .* send it again/);
  expect(await api.deps.db('maintenance_plans').where({ id: planId }).first('version', 'on_open_task')).toEqual({ version: before.version + 1, on_open_task: 'skip' });

  const again = await api.request(`${M}/${planId}`, { method: 'PUT', token: t.token, json: { on_open_task: 'skip' } });
  expect(again.status).toBe(200);
  expect((await workflowState(planId)).version).toBe(before.version + 2);
});

it("saves an optimization approval whose Update cannot be delivered and says so; the plan's next pause brings its workflow in line", async () => {
  const DAY = 24 * 3_600_000;
  const start = new Date(Math.ceil((Date.now() + DAY) / 3_600_000) * 3_600_000).toISOString();
  const planId = await created(M, { name: 'Weekly check', trigger: { type: 'calendar', every: 1, unit: 'weeks', start_at: start, mode: 'fixed' } });
  // Eight clean, on-time weeks: the draft suggests a longer interval (a changed trigger, so an Update).
  await api.deps.db('maintenance_tasks').insert(
    Array.from({ length: 8 }, (_, i) => {
      const due = new Date(Date.now() - (i + 1) * 7 * DAY);
      return {
        tenant_id: t.tenantId,
        plan_id: planId,
        task_code: `HIST-${randomUUID().slice(0, 8)}`,
        title: 'old',
        due_at: due,
        status: 'done',
        completed_at: due,
        interval_hours: 168,
      };
    }),
  );
  const draft = await api.request(`${M}/${planId}/optimize`, { method: 'POST', token: t.token, json: {} });
  expect(draft.status).toBe(201);
  const before = await workflowState(planId);

  const { slow, proxy } = await apiBehindProxy();
  proxy.stall();
  const res = await slow.request(`${M}/${planId}/optimize/${draft.body.id}/approve`, { method: 'POST', token: t.token, json: { kinds: ['frequency'] } });
  expectError(res, 503, 'DEPENDENCY_UNAVAILABLE');
  expect(res.body.detail).toMatch(/approval is saved/);
  const row = await api.deps.db('maintenance_plans').where({ id: planId }).first('version', 'trigger');
  expect(row.trigger).toMatchObject({ every: 2, unit: 'weeks' });
  expect((await workflowState(planId)).version).toBe(before.version);

  const paused = await api.request(`${M}/${planId}/pause`, { method: 'POST', token: t.token });
  expect(paused.status).toBe(200);
  expect(paused.body).toMatchObject({ status: 'paused', version: row.version, interval_hours: 336 });
  expect((await workflowState(planId)).version).toBe(row.version);
});
