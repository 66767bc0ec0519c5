/**
 * Execute with no worker to answer (issue 23), on the real stack: the plan's workflow is moved to
 * a task queue nobody polls, so its Update cannot complete. The API answers 503 within its
 * deadline with a retry hint, holds no lock on the plan row while it waits (a concurrent
 * `FOR UPDATE NOWAIT` gets it), and writes no task; once a worker polls again, the client's
 * retry with the same Idempotency-Key executes once: one task, the schedule moved one step.
 */
import { randomUUID } from 'node:crypto';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createMaintenanceActivities } from '../../activities/maintenance';
import { createNotificationActivities } from '../../activities/notifications';
import { loadConfig } from '../../infra/config';
import { PlanIdKey, resourceSearchAttributes } from '../../infra/search-attributes';
import { workflowIds } from '../../infra/workflow-ids';
import { workflowStateOf } from '../../orchestration/maintenance';
import { stateQuery } from '../../workflows/maintenance-plan';
import { createTenant, expectError, startTestApi, TestApi, TestTenant } from '../support/api';

jest.setTimeout(120_000);

const DEADLINE_MS = 3_000;
let api: TestApi;
let t: TestTenant;

beforeAll(async () => {
  api = await startTestApi({ temporal: { ...loadConfig(process.env).temporal, callDeadlineMs: DEADLINE_MS } });
  t = await createTenant(api);
});
afterAll(() => api?.close());

it('answers 503 within the deadline holding no lock, and a retry with the same key after the worker is back executes exactly once', async () => {
  const start = new Date(Math.ceil((Date.now() + 7 * 24 * 3_600_000) / 3_600_000) * 3_600_000).toISOString();
  const created = await api.request('/api/v1/maintenance/plans', {
    method: 'POST',
    token: t.token,
    json: { name: 'Grease pump bearings', trigger: { type: 'calendar', every: 1, unit: 'weeks', start_at: start, mode: 'floating' } },
  });
  expect(created.status).toBe(201);
  const planId = created.body.id;
  const client = await api.deps.temporal.client();
  const workflowId = workflowIds.maintenancePlan(t.tenantId, planId);

  // The plan's workflow, restarted on a queue no worker polls: "the workers are down" for this plan only.
  await client.workflow.getHandle(workflowId).terminate('test: move to a queue nobody polls');
  const stalledQueue = `stalled-${randomUUID()}`;
  const row = await api.deps.db('maintenance_plans').where({ id: planId }).first();
  await client.workflow.start('maintenancePlanWorkflow', {
    taskQueue: stalledQueue,
    workflowId,
    args: [workflowStateOf(row, new Date())],
    typedSearchAttributes: resourceSearchAttributes(t.tenantId, planId, [[PlanIdKey, planId]]),
  });
  const seqBefore = Number(row.schedule_seq);

  const started = Date.now();
  const executeOnce = () =>
    api.request(`/api/v1/maintenance/plans/${planId}/execute`, { method: 'POST', token: t.token, json: {}, headers: { 'Idempotency-Key': `shift-${planId}` } });
  const pending = executeOnce();
  await new Promise((r) => setTimeout(r, 1_000));
  // While the API waits on Temporal, the plan row is free.
  await api.deps.db.transaction(async (tx) => {
    expect(await tx('maintenance_plans').where({ id: planId }).forUpdate().noWait().first('id')).toEqual({ id: planId });
  });
  const refused = await pending;
  const elapsed = Date.now() - started;
  expectError(refused, 503, 'DEPENDENCY_UNAVAILABLE');
  expect(refused.body.detail).toMatch(/retry with the same Idempotency-Key/);
  expect(elapsed).toBeLessThan(DEADLINE_MS + 3_000);
  expect(await api.deps.db('maintenance_tasks').where({ plan_id: planId })).toHaveLength(0);

  // A worker polls the queue again (the Update left pending may now be applied), and the client retries.
  const connection = await NativeConnection.connect({ address: api.deps.config.temporal.address });
  const worker = await Worker.create({
    connection,
    namespace: api.deps.config.temporal.namespace,
    taskQueue: stalledQueue,
    workflowsPath: require.resolve('../../workflows'),
    activities: { ...createMaintenanceActivities({ db: api.deps.db }), ...createNotificationActivities({ db: api.deps.db, mailer: null, from: 'test@example.com' }) },
  });
  await worker.runUntil(async () => {
    const retried = await executeOnce();
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({ task_code: 'PM-000001' });
    // And a third call, the response of the second being "lost": the same task, nothing more.
    const again = await executeOnce();
    expect(again.body).toEqual(retried.body);

    expect(await api.deps.db('maintenance_tasks').where({ plan_id: planId }).pluck('task_code')).toEqual(['PM-000001']);
    expect(await api.deps.db('maintenance_executions').where({ plan_id: planId })).toHaveLength(1);
    const state = await client.workflow.getHandle(workflowId).query(stateQuery);
    expect(state.snapshot.seq).toBe(seqBefore + 1);
    expect(Number((await api.deps.db('maintenance_plans').where({ id: planId }).first('schedule_seq')).schedule_seq)).toBe(seqBefore + 1);
    await client.workflow.getHandle(workflowId).terminate('test: done');
  });
  await connection.close();
});
