/**
 * /api/v1/maintenance over real HTTP against the real stack: each plan is a running
 * `maintenance-plan/<tenant>/<plan>` workflow on the Temporal dev server, executed by the suite's
 * worker (real activities, PostgreSQL), and mail goes to the suite's SMTP sink.
 */
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../../infra/config';
import { PlanIdKey, ResourceIdKey, TenantIdKey } from '../../infra/search-attributes';
import { reconcilePlanWorkflows } from '../../workers/reconcile';
import { expectNoPersonalData, historyText } from '../support/history-text';
import { createTenant, createUser, expectError, startTestApi, TestApi, TestTenant } from '../support/api';
import { waitForMail } from '../support/mail';
import { untilPasses } from '../support/until';

jest.setTimeout(120_000);

const M = '/api/v1/maintenance';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let api: TestApi;
let tenant: TestTenant;
let other: TestTenant;

beforeAll(async () => {
  api = await startTestApi();
  [tenant, other] = await Promise.all([createTenant(api), createTenant(api)]);
});
afterAll(() => api.close());

const iso = (ms: number) => new Date(ms).toISOString();
/** A whole hour in the future, so grid arithmetic is easy to state. */
const hourAhead = (hours: number) => iso(Math.ceil((Date.now() + hours * HOUR) / HOUR) * HOUR);
const calendar = (start_at: string, mode: 'fixed' | 'floating' = 'fixed', every = 1, unit = 'weeks') => ({ type: 'calendar', every, unit, start_at, mode });
const counter = (every = 100, start_value = 0) => ({ type: 'counter', counter: 'operating_hours', unit: 'h', every, start_value });

async function createPlan(t: TestTenant, body: Record<string, unknown>) {
  const res = await api.request(`${M}/plans`, { method: 'POST', token: t.token, json: { name: 'Grease pump bearings', ...body } });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`);
  return res.body;
}

async function newAsset(t: TestTenant, location?: object): Promise<string> {
  const res = await api.request('/api/v1/assets', {
    method: 'POST',
    token: t.token,
    json: { name: `Pump ${randomUUID().slice(0, 4)}`, type: 'pump', ...(location ? { location } : {}) },
  });
  return res.body.id;
}

const post = (t: TestTenant, path: string, json: unknown = {}, headers?: Record<string, string>) => api.request(`${M}${path}`, { method: 'POST', token: t.token, json, headers });
const get = (t: TestTenant, path: string) => api.request(`${M}${path}`, { token: t.token });
/** A deliberate execution, with its own key (as a client that may retry sends it). */
const execute = (t: TestTenant, planId: string) => post(t, `/plans/${planId}/execute`, {}, { 'Idempotency-Key': randomUUID() });
const events = (t: TestTenant, type: string) => api.deps.db('outbox_events').where({ tenant_id: t.tenantId, type }).orderBy('created_at');

const workflowOf = async (t: TestTenant, planId: string) => (await api.deps.temporal.client()).workflow.getHandle(`maintenance-plan/${t.tenantId}/${planId}`);

describe('plans CRUD and the workflow behind each plan', () => {
  it('creates a plan with its workflow (search attributes, readable timer), reads, lists, updates and deletes it', async () => {
    const asset = await newAsset(tenant);
    const start = hourAhead(48);
    const plan = await createPlan(tenant, {
      asset_ids: [asset],
      trigger: calendar(start),
      checklist: ['Clean nipple', 'Grease 5 g'],
      priority: 'high',
      estimated_minutes: 30,
      task_prefix: 'LUB',
    });
    expect(plan).toMatchObject({
      name: 'Grease pump bearings',
      status: 'active',
      asset_ids: [asset],
      trigger: { type: 'calendar', every: 1, unit: 'weeks', start_at: start, mode: 'fixed' },
      next_due_at: start,
      next_due_trigger: 'calendar',
      interval_hours: 168,
      on_open_task: 'skip',
      generate_ahead: 'P0D',
      task_prefix: 'LUB',
      version: 1,
      workflow_id: `maintenance-plan/${tenant.tenantId}/${plan.id}`,
    });

    const handle = await workflowOf(tenant, plan.id);
    const description = await handle.describe();
    expect(description.type).toBe('maintenancePlanWorkflow');
    expect(description.status.name).toBe('RUNNING');
    expect(description.typedSearchAttributes.get(TenantIdKey)).toBe(tenant.tenantId);
    expect(description.typedSearchAttributes.get(ResourceIdKey)).toBe(plan.id);
    expect(description.typedSearchAttributes.get(PlanIdKey)).toBe(plan.id);
    // The due timer carries a one-line summary the Temporal UI shows.
    const timerSummary = await untilPasses(async () => {
      const history = await handle.fetchHistory();
      const timer = history.events?.find((e) => e.timerStartedEventAttributes);
      expect(timer?.userMetadata?.summary?.data).toBeTruthy();
      return JSON.parse(Buffer.from(timer!.userMetadata!.summary!.data!).toString());
    });
    expect(timerSummary).toBe(`create the task of due ${start} at ${start}`);

    expect((await get(tenant, `/plans/${plan.id}`)).body).toEqual(plan);
    const list = await get(tenant, `/plans?asset_id=${asset}&limit=5`);
    expect(list.body).toMatchObject({ total: 1, skip: 0, limit: 5, items: [{ id: plan.id }] });

    // A new grid start re-arms the running workflow; the answer shows its new due time.
    const newStart = hourAhead(72);
    const put = await api.request(`${M}/plans/${plan.id}`, {
      method: 'PUT',
      token: tenant.token,
      json: { trigger: calendar(newStart, 'fixed', 2, 'days'), name: 'Grease bearings' },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ name: 'Grease bearings', version: 2, next_due_at: newStart, interval_hours: 48 });
    expect((await handle.query('state')) as any).toMatchObject({ version: 2, next_due: { at: newStart } });

    const del = await api.request(`${M}/plans/${plan.id}`, { method: 'DELETE', token: tenant.token });
    expect(del.status).toBe(204);
    expect(await handle.result()).toEqual({ status: 'archived', executions_total: 0 });
    expectError(await get(tenant, `/plans/${plan.id}`), 404, 'NOT_FOUND');
    const row = await api.deps.db('maintenance_plans').where({ id: plan.id }).first();
    expect(row).toMatchObject({ status: 'archived' });
    expect(row.deleted_at).not.toBeNull();
  });

  it('refuses invalid bodies with 422, foreign references, and the plan limit with 403', async () => {
    const bad = await api.request(`${M}/plans`, {
      method: 'POST',
      token: tenant.token,
      json: { name: 'x', trigger: { type: 'calendar', every: 0, unit: 'weeks', start_at: '2030-01-01T08:00:00', mode: 'fixed' } },
    });
    expectError(bad, 422, 'VALIDATION_ERROR');
    expect(bad.body.fields.map((f: { field: string }) => f.field).sort()).toEqual(['body.trigger.every', 'body.trigger.start_at']);
    expectError(await api.request(`${M}/plans`, { method: 'POST', token: tenant.token, json: { name: 'x', trigger: { type: 'weekly' } } }), 422, 'VALIDATION_ERROR');
    expectError(await api.request(`${M}/plans`, { method: 'POST', token: tenant.token, json: { name: 'x', trigger: counter(), task_prefix: 'pm' } }), 422, 'VALIDATION_ERROR');
    expectError(
      await api.request(`${M}/plans`, { method: 'POST', token: tenant.token, json: { name: 'x', trigger: counter(), generate_ahead: '1 day' } }),
      422,
      'VALIDATION_ERROR',
    );

    const foreignAsset = await newAsset(other);
    const foreign = await api.request(`${M}/plans`, { method: 'POST', token: tenant.token, json: { name: 'x', trigger: counter(), asset_ids: [foreignAsset] } });
    expectError(foreign, 422, 'VALIDATION_ERROR');
    expect(foreign.body.fields[0].field).toBe('body.asset_ids');
    const foreignUser = await api.request(`${M}/plans`, {
      method: 'POST',
      token: tenant.token,
      json: { name: 'x', trigger: counter(), notify: { recipients: [other.adminUserId], lead_time: 'P1D' } },
    });
    expectError(foreignUser, 422, 'VALIDATION_ERROR');

    const free = await createTenant(api, 'free');
    await api.deps.db('maintenance_plans').insert(Array.from({ length: 10 }, (_, i) => ({ tenant_id: free.tenantId, name: `p${i}`, trigger: JSON.stringify(counter()) })));
    const limited = await api.request(`${M}/plans`, { method: 'POST', token: free.token, json: { name: 'eleventh', trigger: counter() } });
    expectError(limited, 403, 'PLAN_LIMIT_REACHED');
    expect(limited.body).toMatchObject({ resource: 'maintenance_plans', limit: 10 });
  });

  it('answers 503 and leaves no plan when Temporal is unreachable', async () => {
    const down = await startTestApi({ temporal: { ...loadConfig(process.env).temporal, address: '127.0.0.1:1', callDeadlineMs: 2_000 } });
    try {
      const before = await api.deps.db('maintenance_plans').where({ tenant_id: tenant.tenantId }).count({ n: '*' });
      const res = await down.request(`${M}/plans`, { method: 'POST', token: tenant.token, json: { name: 'never', trigger: counter() } });
      expectError(res, 503, 'DEPENDENCY_UNAVAILABLE');
      const after = await api.deps.db('maintenance_plans').where({ tenant_id: tenant.tenantId }).count({ n: '*' });
      expect(after).toEqual(before);
      expect(await api.deps.db('maintenance_plans').where({ tenant_id: tenant.tenantId, name: 'never' })).toHaveLength(0);
    } finally {
      await down.close();
    }
  });

  it('repairs a plan whose workflow is gone: the worker reconciler, and any call that finds it missing', async () => {
    const t = await createTenant(api);
    const start = hourAhead(24);
    const plan = await createPlan(t, { trigger: calendar(start) });
    const client = await api.deps.temporal.client();
    const first = await workflowOf(t, plan.id);
    await first.terminate('test: lost workflow');
    // A row written around the API with an unusable trigger must not stop the repair of the others.
    await api.deps.db('maintenance_plans').insert({ tenant_id: t.tenantId, name: 'broken', trigger: JSON.stringify({ type: 'calendar' }) });
    const restarted = await untilPasses(async () => {
      await reconcilePlanWorkflows(api.deps.db, api.deps.temporal, api.deps.logger);
      const d = await client.workflow.getHandle(first.workflowId).describe();
      expect(d.status.name).toBe('RUNNING');
      return d;
    });
    expect(restarted.typedSearchAttributes.get(PlanIdKey)).toBe(plan.id);
    expect(((await client.workflow.getHandle(first.workflowId).query('state')) as any).next_due.at).toBe(start);

    // Terminated again: an execute starts it from the row and goes through.
    await client.workflow.getHandle(first.workflowId).terminate('test: lost again');
    const executed = await execute(t, plan.id);
    expect(executed.status).toBe(200);
    expect(executed.body).toMatchObject({ task_code: 'PM-000001', next_due_at: start });
  });

  it('lets a viewer read but not change plans', async () => {
    const viewer = await createUser(api, tenant.tenantId, 'viewer');
    expect((await api.request(`${M}/plans`, { token: viewer.token })).status).toBe(200);
    expectError(await api.request(`${M}/plans`, { method: 'POST', token: viewer.token, json: { name: 'x', trigger: counter() } }), 403, 'FORBIDDEN');
  });
});

describe('execute, preview and history', () => {
  it('executes through an Update: fixed keeps next_due_at, floating moves it; a retried call gets the same task', async () => {
    const t = await createTenant(api);
    const start = hourAhead(24);
    const fixed = await createPlan(t, { trigger: calendar(start, 'fixed') });
    const floating = await createPlan(t, { trigger: calendar(start, 'floating', 2, 'days') });

    const preview = await get(t, `/plans/${fixed.id}/preview`);
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({
      plan_id: fixed.id,
      status: 'active',
      action_on_due: 'create_task',
      open_tasks: 0,
      task: { task_code: 'PM-000001', task_code_reserved: false, title: 'Grease pump bearings', due_at: start, trigger: 'calendar', kind: 'preventive' },
      generate_at: start,
      notify_at: null,
    });
    expect(await api.deps.db('maintenance_tasks').where({ tenant_id: t.tenantId })).toHaveLength(0); // no side effect

    const first = await post(t, `/plans/${fixed.id}/execute`, {}, { 'Idempotency-Key': 'exec-fixed-1' });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ task_id: expect.any(String), task_code: 'PM-000001', next_due_at: start });
    const retry = await post(t, `/plans/${fixed.id}/execute`, {}, { 'Idempotency-Key': 'exec-fixed-1' });
    expect(retry.body).toEqual(first.body);

    const before = Date.now();
    const moved = await execute(t, floating.id);
    expect(moved.body.task_code).toBe('PM-000002');
    const nextDue = new Date(moved.body.next_due_at).getTime();
    expect(nextDue).toBeGreaterThanOrEqual(before + 2 * DAY - 5_000);
    expect(nextDue).toBeLessThanOrEqual(Date.now() + 2 * DAY + 5_000);
    expect((await get(t, `/plans/${floating.id}`)).body.next_due_at).toBe(moved.body.next_due_at);

    // Preview now shows the next code and that a due time would be skipped (the task is open).
    expect((await get(t, `/plans/${fixed.id}/preview`)).body).toMatchObject({ action_on_due: 'skip', open_tasks: 1, task: { task_code: 'PM-000003' } });

    const history = await get(t, `/plans/${fixed.id}/history`);
    expect(history.body).toMatchObject({
      total: 1,
      items: [{ task_id: first.body.task_id, task_code: 'PM-000001', trigger: 'calendar', executed_by: t.adminUserId, outcome: 'created' }],
    });
    const task = await get(t, `/tasks/${first.body.task_id}`);
    expect(task.body).toMatchObject({ task_code: 'PM-000001', plan_id: fixed.id, status: 'open', title: 'Grease pump bearings', kind: 'preventive', trigger: 'calendar' });
    const created = await events(t, 'task.created');
    expect(created.map((e) => e.data.task_code)).toEqual(['PM-000001', 'PM-000002']);
    const audit = await api.deps.db('audit_log').where({ tenant_id: t.tenantId, action: 'maintenance_plan.executed' });
    expect(audit.map((a) => a.actor_id)).toEqual([t.adminUserId, t.adminUserId]);

    // The Update and the user id are in the workflow's history; the user's email is not.
    expect(JSON.stringify(await (await workflowOf(t, fixed.id)).fetchHistory())).toContain('workflowExecutionUpdateAcceptedEventAttributes');
    const handle = await workflowOf(t, fixed.id);
    await expectNoPersonalData(await api.deps.temporal.client(), handle.workflowId, fixed.id, [t.email]);

    // Paginated history: two more executions, pages of two.
    await post(t, `/plans/${fixed.id}/execute`, {}, { 'Idempotency-Key': 'exec-fixed-2' });
    await post(t, `/plans/${fixed.id}/execute`, {}, { 'Idempotency-Key': 'exec-fixed-3' });
    const page = await get(t, `/plans/${fixed.id}/history?skip=1&limit=2`);
    expect(page.body).toMatchObject({ total: 3, skip: 1, limit: 2 });
    expect(page.body.items).toHaveLength(2);
    expect(page.body.items[1].task_code).toBe('PM-000001');
    expectError(await get(t, `/plans/${fixed.id}/history?limit=0`), 422, 'VALIDATION_ERROR');
  });

  it('concurrent retries of one request (same Idempotency-Key) write one task and all answer it', async () => {
    const plan = await createPlan(other, { trigger: calendar(hourAhead(48)), task_prefix: 'RACE' });
    const answers = await Promise.all([1, 2, 3].map(() => post(other, `/plans/${plan.id}/execute`, {}, { 'Idempotency-Key': `race-${plan.id}` })));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(new Set(answers.map((a) => a.body.task_id)).size).toBe(1);
    expect(answers[0].body.task_code).toBe('RACE-000001');
    expect(await api.deps.db('maintenance_tasks').where({ plan_id: plan.id })).toHaveLength(1);
    expect(await api.deps.db('maintenance_executions').where({ plan_id: plan.id })).toHaveLength(1);
    const created = await api.deps.db('outbox_events').where({ tenant_id: other.tenantId, type: 'task.created' }).whereRaw(`data->>'plan_id' = ?`, [plan.id]);
    expect(created.map((e) => e.data.task_code)).toEqual(['RACE-000001']);
    // The next request takes the next number: none was lost to the retries.
    expect((await execute(other, plan.id)).body.task_code).toBe('RACE-000002');
  });

  it('without an Idempotency-Key every execute generates a task, even the same user twice in a row', async () => {
    const plan = await createPlan(other, { trigger: calendar(hourAhead(48)), task_prefix: 'TWICE', on_open_task: 'skip' });
    const [first, second] = [await post(other, `/plans/${plan.id}/execute`), await post(other, `/plans/${plan.id}/execute`)];
    expect([first.status, second.status]).toEqual([200, 200]);
    expect([first.body.task_code, second.body.task_code]).toEqual(['TWICE-000001', 'TWICE-000002']);
    expect(second.body.task_id).not.toBe(first.body.task_id);
    expect(await api.deps.db('maintenance_tasks').where({ plan_id: plan.id }).orderBy('task_code').pluck('status')).toEqual(['open', 'open']);
    expect(await api.deps.db('maintenance_executions').where({ plan_id: plan.id, executed_by: other.adminUserId, outcome: 'created' })).toHaveLength(2);
    const audit = await api.deps.db('audit_log').where({ tenant_id: other.tenantId, resource_id: plan.id }).whereLike('action', 'maintenance_plan.execute%').pluck('action');
    expect(audit).toEqual(['maintenance_plan.executed', 'maintenance_plan.executed']);
  });
});

describe('pause and resume', () => {
  // A due time passing while paused (no task, and the next grid point on resume) is moved through
  // by the time-skipping tests of test/workflows/maintenance-plan.test.ts, not by a real sleep here.
  it('pauses (keeps next_due_at) and resumes, both harmless twice, over HTTP with their events', async () => {
    const t = await createTenant(api);
    const start = iso(Date.now() + 2 * DAY);
    const plan = await createPlan(t, { trigger: calendar(start, 'fixed', 1, 'days') });

    const paused = await post(t, `/plans/${plan.id}/pause`);
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ status: 'paused', next_due_at: start });
    expect((await post(t, `/plans/${plan.id}/pause`)).body).toMatchObject({ status: 'paused', next_due_at: start });
    expect(await events(t, 'maintenance.plan.paused')).toHaveLength(1);

    const resumed = await post(t, `/plans/${plan.id}/resume`);
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({ status: 'active', next_due_at: start });
    expect((await post(t, `/plans/${plan.id}/resume`)).body).toMatchObject({ status: 'active', next_due_at: start });
    expect(await events(t, 'maintenance.plan.resumed')).toHaveLength(1);
    expect(await api.deps.db('maintenance_tasks').where({ plan_id: plan.id })).toHaveLength(0);

    // Execute on a paused plan is allowed and keeps it paused.
    await post(t, `/plans/${plan.id}/pause`);
    const executed = await execute(t, plan.id);
    expect(executed.status).toBe(200);
    expect((await get(t, `/plans/${plan.id}`)).body.status).toBe('paused');
  });
});

describe('counter readings', () => {
  it('a reading that crosses more thresholds than an integer holds is recorded (the fuzzer found the Update stuck on it); intervals under 1e-6 are refused', async () => {
    const t = await createTenant(api);
    expectError(await api.request(`${M}/plans`, { method: 'POST', token: t.token, json: { name: 'x', trigger: counter(1e-7) } }), 422, 'VALIDATION_ERROR');
    const plan = await createPlan(t, { trigger: counter(1e-6) });
    const r = await post(t, `/plans/${plan.id}/counter`, { value: 1e15, source: 'gw' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ executed: true, thresholds_crossed: expect.any(Number) });
    expect(r.body.thresholds_crossed).toBeGreaterThan(2 ** 31);
    const [row] = await api.deps.db('maintenance_counter_readings').where({ tenant_id: t.tenantId, plan_id: plan.id });
    expect(row.thresholds_crossed).toBe(r.body.thresholds_crossed);
  });

  it('executes at the threshold, once for several, refuses going backwards (422) unless reset, and pages the history', async () => {
    const t = await createTenant(api);
    const plan = await createPlan(t, { trigger: counter(100), on_open_task: 'stack' });
    const read = (value: number, extra: object = {}) => post(t, `/plans/${plan.id}/counter`, { value, source: 'gateway-7', ...extra });

    const r1 = await read(50);
    expect(r1.status).toBe(200);
    expect(r1.body).toMatchObject({
      reading: { value: 50, source: 'gateway-7', reset: false, total: 50, counter: 'operating_hours' },
      thresholds_crossed: 0,
      executed: false,
      execution: null,
      next_threshold: 100,
    });
    const r2 = await read(350);
    expect(r2.body).toMatchObject({ thresholds_crossed: 3, executed: true, execution: { outcome: 'created', task_code: 'PM-000001' }, next_threshold: 400 });
    expect((await get(t, `/tasks/${r2.body.execution.task_id}`)).body).toMatchObject({ trigger: 'counter', status: 'open' });

    const back = await read(300);
    expectError(back, 422, 'COUNTER_WENT_BACKWARDS');
    expect(back.body.reason).toMatchObject({ last_value: 350, value: 300 });
    const reset = await read(20, { reset: true });
    expect(reset.body).toMatchObject({ reading: { reset: true, total: 370 }, executed: false, next_threshold: 50 });
    // SPEC.md: the source is free text. It is stored and answered trimmed; the plan workflow's
    // history carries only a reference to it.
    const text = 'Line 3 PLC (north hall, Ana Lopez)';
    const free = await read(30, { source: `  ${text}  ` });
    expect(free.body).toMatchObject({ reading: { value: 30, source: text } });
    const history = await historyText(await api.deps.temporal.client(), plan.workflow_id);
    expect(history).toContain('operating_hours'); // the payloads were decoded: the counter's name is in them
    expect(history).not.toContain('Ana Lopez');
    expectError(await read(40, { source: 'two\nlines' }), 422, 'VALIDATION_ERROR');
    expectError(await read(40, { source: 'x'.repeat(201) }), 422, 'VALIDATION_ERROR');

    const page = await get(t, `/plans/${plan.id}/counter/history?limit=2`);
    expect(page.body).toMatchObject({ total: 4, limit: 2 });
    expect(page.body.items.map((r: { value: number; source: string }) => [r.value, r.source])).toEqual([
      [30, text],
      [20, 'gateway-7'],
    ]);
    expect((await get(t, `/plans/${plan.id}/history`)).body.items).toMatchObject([{ trigger: 'counter', executed_by: 'system', thresholds_crossed: 3 }]);

    const calendarPlan = await createPlan(t, { trigger: calendar(hourAhead(24)) });
    expectError(await post(t, `/plans/${calendarPlan.id}/counter`, { value: 1, source: 'gw' }), 422, 'PLAN_HAS_NO_COUNTER');
  });
});

describe('tasks', () => {
  it('lists, reads, starts, completes (event) and cancels tasks; wrong transitions are 409', async () => {
    const t = await createTenant(api);
    const plan = await createPlan(t, { trigger: calendar(hourAhead(24)) });
    const a = (await execute(t, plan.id)).body.task_id;
    const b = (await execute(t, plan.id)).body.task_id;

    const list = await get(t, `/tasks?plan_id=${plan.id}&status=open`);
    expect(list.body).toMatchObject({ total: 2, items: [{ task_code: 'PM-000001' }, { task_code: 'PM-000002' }] });
    expect((await get(t, `/tasks?plan_id=${randomUUID()}`)).body.total).toBe(0);

    expect((await post(t, `/tasks/${a}/start`)).body).toMatchObject({ status: 'in_progress', started_at: expect.any(String) });
    expectError(await post(t, `/tasks/${a}/start`), 409, 'INVALID_STATE');
    const done = await post(t, `/tasks/${a}/complete`, { notes: 'greased' });
    expect(done.body).toMatchObject({ status: 'done', completed_by: t.adminUserId, notes: 'greased', completed_at: expect.any(String) });
    expectError(await post(t, `/tasks/${a}/complete`), 409, 'INVALID_STATE');
    expectError(await post(t, `/tasks/${a}/cancel`), 409, 'INVALID_STATE');
    expect((await post(t, `/tasks/${b}/cancel`)).body.status).toBe('cancelled');

    const completed = await events(t, 'task.completed');
    expect(completed.map((e) => e.data)).toEqual([expect.objectContaining({ task_id: a, task_code: 'PM-000001', plan_id: plan.id })]);
    expect((await get(t, '/tasks?status=done')).body.items.map((x: { id: string }) => x.id)).toEqual([a]);
  });

  it('a counter plan task with no known meter rate yet gets a day of grace: the plan workflow arms its overdue check at due + 24 h', async () => {
    // Marking at the deadline, with its event, is covered on the time-skipping server (test/workflows/maintenance-plan.test.ts).
    const t = await createTenant(api);
    const plan = await createPlan(t, { trigger: counter(100) });
    const { execution } = (await post(t, `/plans/${plan.id}/counter`, { value: 120, source: 'gw-1' })).body;
    const task = (await get(t, `/tasks/${execution.task_id}`)).body;
    expect(task.overdue).toBe(false);
    const wake = await untilPasses(async () => {
      const state = await (await workflowOf(t, plan.id)).query<{ wake: { at: string; reasons: string[] } | null }>('state');
      expect(state.wake?.reasons).toEqual(['overdue_check']);
      return state.wake!;
    });
    expect(new Date(wake.at).getTime() - new Date(task.due_at).getTime()).toBe(24 * 3_600_000);
    expect((await get(t, '/tasks?overdue=true')).body.items).toEqual([]);
    expect(await events(t, 'task.overdue')).toEqual([]);
  });
});

describe('compliance', () => {
  it('computes SMRP-style compliance for the period and refuses bad or reversed dates', async () => {
    const t = await createTenant(api);
    const plan = await createPlan(t, { trigger: calendar(hourAhead(24 * 3)) }); // weekly: grace 16.8 h
    const onTime = (await execute(t, plan.id)).body.task_id;
    const cancelled = (await execute(t, plan.id)).body.task_id;
    await execute(t, plan.id); // open, within its grace: pending
    await post(t, `/tasks/${onTime}/complete`);
    await post(t, `/tasks/${cancelled}/cancel`);
    // One done 10 days late (due 10 days ago, completed now): delay 240 h.
    const today = new Date().toISOString().slice(0, 10);
    const tenDaysAgo = new Date(Date.now() - 10 * DAY);
    const late = (await execute(t, plan.id)).body.task_id;
    await api.deps.db('maintenance_tasks').where({ id: late }).update({ due_at: tenDaysAgo });
    await post(t, `/tasks/${late}/complete`);

    // A second plan executed once, on time; a third whose only task is still within its grace.
    const second = await createPlan(t, { trigger: calendar(hourAhead(24 * 3)) });
    await post(t, `/tasks/${(await execute(t, second.id)).body.task_id}/complete`);
    const third = await createPlan(t, { trigger: calendar(hourAhead(24 * 3)) });
    await execute(t, third.id);

    // SPEC.md counts plans: the first is overdue (one late execution), the second on time, the
    // third not counted yet. The average delay is over late executions only.
    const start = tenDaysAgo.toISOString().slice(0, 10);
    const res = await get(t, `/compliance?start_date=${start}&end_date=${today}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      start_date: start,
      end_date: today,
      on_time_count: 1,
      overdue_count: 1,
      compliance_rate: 50,
      pending_count: 1,
      total_plans: 3,
      tasks: { on_time_count: 2, overdue_count: 1, pending_count: 2, cancelled_count: 1, total: 6, compliance_rate: 66.67 },
      total_tasks: 6,
    });
    expect(res.body.average_delay_hours).toBeGreaterThan(239.9);
    expect(res.body.average_delay_hours).toBeLessThan(240.1);
    expect(res.body.tasks.average_delay_hours).toBe(res.body.average_delay_hours);
    // Today alone: the late task is outside the period, so the first plan was executed on time too.
    expect((await get(t, `/compliance?start_date=${today}&end_date=${today}`)).body).toMatchObject({
      on_time_count: 2,
      overdue_count: 0,
      pending_count: 1,
      compliance_rate: 100,
      average_delay_hours: null,
    });
    expect((await get(t, `/compliance?start_date=${start}&end_date=${today}&plan_id=${plan.id}`)).body).toMatchObject({ total_plans: 1, overdue_count: 1, compliance_rate: 0 });
    expect((await get(other, `/compliance?start_date=${start}&end_date=${today}&plan_id=${plan.id}`)).body).toMatchObject({
      total_tasks: 0,
      total_plans: 0,
      compliance_rate: null,
    });

    expectError(await get(t, `/compliance?start_date=2024-02-30&end_date=2024-03-01`), 422, 'VALIDATION_ERROR');
    expectError(await get(t, `/compliance?start_date=2024-03-02&end_date=2024-03-01`), 422, 'VALIDATION_ERROR');
    expectError(await get(t, `/compliance?start_date=03/01/2024&end_date=2024-03-01`), 422, 'VALIDATION_ERROR');
    expectError(await get(t, `/compliance?end_date=2024-03-01`), 422, 'VALIDATION_ERROR');
  });
});

describe('optimize', () => {
  it('drafts suggestions from the history, approves them through the workflow, refuses a stale draft (409) and rejects', async () => {
    const t = await createTenant(api);
    const tech = await createUser(api, t.tenantId, 'technician');
    const plan = await createPlan(t, { trigger: calendar(hourAhead(24), 'fixed', 1, 'weeks') });
    // Eight clean, on-time weeks and no failure: the interval can be lengthened.
    await api.deps.db('maintenance_tasks').insert(
      Array.from({ length: 8 }, (_, i) => {
        const due = new Date(Date.now() - (i + 1) * 7 * DAY);
        return {
          tenant_id: t.tenantId,
          plan_id: plan.id,
          task_code: `HIST-${String(i + 1).padStart(6, '0')}`,
          title: 'old',
          due_at: due,
          status: 'done',
          completed_at: new Date(due.getTime() + HOUR),
          interval_hours: 168,
        };
      }),
    );
    const draft = await post(t, `/plans/${plan.id}/optimize`);
    expect(draft.status).toBe(201);
    expect(draft.body).toMatchObject({ plan_id: plan.id, plan_version: 1, status: 'draft', basis: { completed_tasks: 8, failures: 0 } });
    const kinds = draft.body.suggestions.map((s: { kind: string }) => s.kind);
    expect(kinds).toEqual(['frequency', 'workload']);
    expect(draft.body.suggestions[0]).toMatchObject({ current: { every: 1, unit: 'weeks' }, suggested: { every: 2, unit: 'weeks' } });
    expect(draft.body.suggestions[1]).toMatchObject({ suggested: { assignee_id: tech.userId } });
    expect((await get(t, `/plans/${plan.id}/optimize/${draft.body.id}`)).body).toEqual(draft.body);

    const approved = await post(t, `/plans/${plan.id}/optimize/${draft.body.id}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body.draft.status).toBe('approved');
    expect(approved.body.plan).toMatchObject({ version: 2, assignee_id: tech.userId, trigger: { every: 2, unit: 'weeks' }, interval_hours: 336 });
    const state: any = await (await workflowOf(t, plan.id)).query('state');
    expect(state.version).toBe(2);
    expectError(await post(t, `/plans/${plan.id}/optimize/${draft.body.id}/approve`), 409, 'INVALID_STATE');

    // A draft made before the plan changed cannot be approved.
    const stale = await post(t, `/plans/${plan.id}/optimize`);
    await api.request(`${M}/plans/${plan.id}`, { method: 'PUT', token: t.token, json: { estimated_minutes: 45 } });
    const refused = await post(t, `/plans/${plan.id}/optimize/${stale.body.id}/approve`);
    expectError(refused, 409, 'STALE_DRAFT');
    expect(refused.body).toMatchObject({ plan_version: 3, draft_plan_version: 2 });
    const rejected = await post(t, `/plans/${plan.id}/optimize/${stale.body.id}/reject`);
    expect(rejected.body.status).toBe('rejected');
    expectError(await post(t, `/plans/${plan.id}/optimize/${stale.body.id}/reject`), 409, 'INVALID_STATE');
  });
});

describe('notifications', () => {
  it('test-notification sends a real mail to the plan recipients and says where it went', async () => {
    const t = await createTenant(api);
    const tech = await createUser(api, t.tenantId, 'technician');
    const plan = await createPlan(t, {
      name: `Compressor ${randomUUID().slice(0, 6)}`,
      trigger: calendar(hourAhead(24)),
      notify: { recipients: [t.adminUserId], lead_time: 'P1D' },
      assignee_id: tech.userId,
    });
    const res = await post(t, `/plans/${plan.id}/test-notification`);
    expect(res.status).toBe(202);
    const techEmail = (await api.deps.db('users').where({ id: tech.userId }).first()).email;
    expect(res.body).toMatchObject({ channel: 'email', via: 'smtp', status: 'queued', delivery_started: true });
    expect(res.body.recipients.map((r: { email: string }) => r.email).sort()).toEqual([t.email, techEmail].sort());
    const mail = await waitForMail((m) => m.subject.includes(plan.name) && m.to.includes(t.email));
    expect(mail.subject).toBe(`[Test] Maintenance plan "${plan.name}"`);
    expect(mail.to.sort()).toEqual([t.email, techEmail].sort());
    expect(mail.text).toContain(`This is a test notification of maintenance plan "${plan.name}" (${plan.id})`);
    // Sent by the platform for the tenant, and saying so.
    expect(mail.raw).toMatch(new RegExp(`^X-Tenant-Id: ${t.tenantId}\\r?$`, 'im'));
    expect(mail.text).toMatch(new RegExp(`^Sent by Industrial Ops on behalf of Tenant [0-9a-f]{8} \\(tenant ${t.tenantId}\\)\\.$`, 'm'));
    await untilPasses(async () => expect((await api.deps.db('notifications').where({ id: res.body.notification_id }).first()).status).toBe('sent'));

    const silent = await createPlan(t, { trigger: calendar(hourAhead(24)) });
    expectError(await post(t, `/plans/${silent.id}/test-notification`), 422, 'PLAN_HAS_NO_RECIPIENTS');
  });

  it('the workflow mails the lead-time notification before the due time', async () => {
    const t = await createTenant(api);
    const name = `Chiller ${randomUUID().slice(0, 6)}`;
    const due = iso(Date.now() + 60 * 60_000);
    await createPlan(t, { name, trigger: calendar(due, 'fixed', 1, 'days'), notify: { recipients: [t.adminUserId], lead_time: 'PT59M59S' } });
    const mail = await waitForMail((m) => m.subject === `Maintenance due: ${name}`, 20_000);
    expect(mail.to).toEqual([t.email]);
    expect(mail.text).toContain(`is due at ${due}`);
  });
});

describe('tenant isolation', () => {
  it("answers 404 for another tenant's plan, task and draft on every route", async () => {
    const plan = await createPlan(tenant, { trigger: counter(), notify: { recipients: [tenant.adminUserId], lead_time: 'P1D' } });
    const { task_id } = (await execute(tenant, plan.id)).body;
    const draft = (await post(tenant, `/plans/${plan.id}/optimize`)).body;
    const p = `/plans/${plan.id}`;
    const calls: Array<[string, string, unknown?]> = [
      ['GET', p],
      ['PUT', p, { name: 'stolen' }],
      ['DELETE', p],
      ['POST', `${p}/execute`],
      ['GET', `${p}/preview`],
      ['POST', `${p}/test-notification`],
      ['POST', `${p}/pause`],
      ['POST', `${p}/resume`],
      ['POST', `${p}/counter`, { value: 1, source: 'gw' }],
      ['GET', `${p}/counter/history`],
      ['GET', `${p}/history`],
      ['POST', `${p}/optimize`],
      ['GET', `${p}/optimize/${draft.id}`],
      ['POST', `${p}/optimize/${draft.id}/approve`],
      ['POST', `${p}/optimize/${draft.id}/reject`],
      ['GET', `/tasks/${task_id}`],
      ['POST', `/tasks/${task_id}/start`],
      ['POST', `/tasks/${task_id}/complete`],
      ['POST', `/tasks/${task_id}/cancel`],
    ];
    for (const [method, path, json] of calls) {
      const res = await api.request(`${M}${path}`, { method, token: other.token, json: json ?? (method === 'GET' || method === 'DELETE' ? undefined : {}) });
      expect({ call: `${method} ${path}`, status: res.status, code: res.body?.error_code }).toEqual({ call: `${method} ${path}`, status: 404, code: 'NOT_FOUND' });
    }
    expectError(await get(tenant, '/plans/not-a-uuid'), 404, 'NOT_FOUND');
    expectError(await get(tenant, '/tasks/not-a-uuid'), 404, 'NOT_FOUND');
    expect((await get(other, `/tasks?plan_id=${plan.id}`)).body.total).toBe(0);
    // The execute's Update overlaps its plan read: the other tenant's id reached no workflow of
    // its own, and none was started for it from a row it cannot read.
    await expect((await workflowOf(other, plan.id)).describe()).rejects.toThrow(/not found/i);
    expect(await api.deps.db('maintenance_executions').where({ plan_id: plan.id })).toHaveLength(1);
    // Nothing happened to the owner's plan.
    expect((await get(tenant, p)).body).toMatchObject({ status: 'active', version: 1 });
    expect((await get(tenant, `/tasks/${task_id}`)).body.status).toBe('open');
  });
});
