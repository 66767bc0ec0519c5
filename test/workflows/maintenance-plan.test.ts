/**
 * The maintenance plan workflow on the time-skipping server, with its real activities against a
 * real (migrated) PostgreSQL: tasks, execution history, counter readings and notification rows
 * are read back from the database. Years of timers run in seconds.
 */
import { randomUUID } from 'node:crypto';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createMaintenanceActivities } from '../../activities/maintenance';
import { createNotificationActivities } from '../../activities/notifications';
import { PlanRow, saveScheduleSnapshot } from '../../db/queries/maintenance';
import { upsertLatestReadings } from '../../db/queries/readings';
import { provisionTenant } from '../../db/tenants';
import type { Trigger } from '../../domain/maintenance';
import { ResourceIdKey, TenantIdKey } from '../../infra/search-attributes';
import { TASK_QUEUES } from '../../infra/task-queues';
import { workflowIds } from '../../infra/workflow-ids';
import { recordManualExecution, workflowStateOf } from '../../orchestration/maintenance';
import {
  archiveSignal,
  executeUpdate,
  maintenancePlanWorkflow,
  pauseSignal,
  previewQuery,
  readingsSignal,
  recordCounterUpdate,
  resumeSignal,
  stateQuery,
  workOrderCompletedSignal,
  type CounterRequest,
} from '../../workflows/maintenance-plan';
import { snapshotOf } from '../../workflows/maintenance-plan-state';
import { nudgePlansBehindOnReadings, plansBehindOnReadings } from '../../workers/reconcile';
import type { TemporalGateway } from '../../infra/temporal';
import { DEFAULT_ACTION_THRESHOLDS } from '../../domain/prognostics';
import { createTimeSkippingEnv, queryOnTestServer, registerSearchAttributes } from '../support/temporal-env';
import { expectNoPersonalData, historyTextOf } from '../support/history-text';
import { recordHistory } from '../support/record-history';
import { startTestPostgres, TestPostgres } from '../support/test-postgres';
import { untilPasses } from '../support/until';

jest.setTimeout(240_000);

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let pg: TestPostgres;
let env: TestWorkflowEnvironment;
let worker: Worker;
let running: Promise<void>;
const workflowsPath = require.resolve('../../workflows');

interface Tenant {
  tenantId: string;
  adminUserId: string;
  email: string;
}

beforeAll(async () => {
  [pg, env] = await Promise.all([startTestPostgres(), createTimeSkippingEnv()]);
  await registerSearchAttributes(env); // the notification child carries TenantId and ResourceId, as in production
  worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: TASK_QUEUES.main,
    workflowsPath,
    activities: {
      ...createMaintenanceActivities({ db: pg.db }),
      ...createNotificationActivities({ db: pg.db, mailer: null, from: 'test@example.com' }),
    },
  });
  running = worker.run();
});

afterAll(async () => {
  if (worker && worker.getState() === 'RUNNING') worker.shutdown();
  await running?.catch(() => undefined);
  await env?.teardown();
  await pg?.stop();
});

async function newTenant(): Promise<Tenant> {
  const suffix = randomUUID().slice(0, 8);
  const email = `admin-${suffix}@example.com`;
  const t = await provisionTenant(pg.db, { name: `mp ${suffix}`, plan: 'enterprise', adminEmail: email, adminPassword: 'pw-0123456789' });
  return { tenantId: t.tenant_id, adminUserId: t.admin_user_id, email };
}

const serverNow = async () => new Date(await env.currentTimeMs());

interface PlanOptions {
  trigger: Trigger;
  on_open_task?: 'skip' | 'stack';
  generate_ahead?: string;
  notify?: { recipients: string[]; lead_time: string } | null;
  run_event_limit?: number;
  asset_ids?: string[];
}

/** A plan row and its running workflow, as the API creates them (without search attributes: the test server has none). */
async function createPlan(t: Tenant, o: PlanOptions) {
  const [row]: PlanRow[] = await pg
    .db('maintenance_plans')
    .insert({
      tenant_id: t.tenantId,
      name: 'Lubricate bearings',
      trigger: JSON.stringify(o.trigger),
      on_open_task: o.on_open_task ?? 'skip',
      generate_ahead: o.generate_ahead ?? 'P0D',
      notify: o.notify ? JSON.stringify(o.notify) : null,
      ...(o.asset_ids ? { asset_ids: o.asset_ids } : {}),
    })
    .returning('*');
  const now = await serverNow();
  const state = { ...workflowStateOf(row, now), ...(o.run_event_limit ? { run_event_limit: o.run_event_limit } : {}) };
  await saveScheduleSnapshot(pg.db, t.tenantId, row.id, snapshotOf(state, now));
  const handle = await env.client.workflow.start(maintenancePlanWorkflow, {
    taskQueue: TASK_QUEUES.main,
    workflowId: workflowIds.maintenancePlan(t.tenantId, row.id),
    args: [state],
  });
  return { row, handle };
}

const tasksOf = (planId: string) => pg.db('maintenance_tasks').where({ plan_id: planId }).orderBy('due_at');
const executionsOf = (planId: string) => pg.db('maintenance_executions').where({ plan_id: planId }).orderBy('executed_at');
const planRow = (planId: string) => pg.db('maintenance_plans').where({ id: planId }).first();
const day = (d: Date | string) => new Date(d).toISOString().slice(0, 10);
const origin = (t: Tenant) => ({ requestId: randomUUID(), actor: { type: 'user' as const, id: t.adminUserId } });

/** A user's execute as the API makes it: the Update first, then task and history in a short transaction. */
async function execute(t: Tenant, planId: string, requestId: string) {
  const handle = env.client.workflow.getHandle(workflowIds.maintenancePlan(t.tenantId, planId));
  const request = { requestId, userId: t.adminUserId, taskId: randomUUID(), at: await serverNow() };
  const answered = await handle.executeUpdate(executeUpdate, {
    args: [{ requestId, executedBy: t.adminUserId, taskId: request.taskId, dueAt: request.at.toISOString() }],
    updateId: requestId,
  });
  return pg.db.transaction(async (tx) => {
    const plan: PlanRow = await tx('maintenance_plans').where({ id: planId }).forUpdate().first();
    return recordManualExecution(tx, plan, request, answered);
  });
}

/** Polls (real time) until `check` passes: activities run in real time while the clock is locked. */
/**
 * Skips the test server's clock to `target`. After a child workflow (the notification) the test
 * server may reach the time without answering the sleep call, so the clock is checked as well.
 */
async function sleepUntil(target: Date): Promise<void> {
  for (;;) {
    const ms = target.getTime() - (await env.currentTimeMs());
    if (ms <= 0) return;
    await Promise.race([env.sleep(ms), new Promise((resolve) => setTimeout(resolve, 2_000))]);
  }
}

/** Skips the clock by `ms` from now, the same robust way (env.sleep alone can go unanswered under load). */
async function sleepFor(ms: number): Promise<void> {
  await sleepUntil(new Date((await env.currentTimeMs()) + ms));
}

function rejectionOf(err: unknown): { type: string | null | undefined } {
  expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
  const cause = (err as WorkflowUpdateFailedError).cause;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  return { type: (cause as ApplicationFailure).type };
}

describe('calendar plans over a year', () => {
  it('fixed stays on the month-end grid (leap February); floating counts from each execution', async () => {
    const t = await newTenant();
    const start = '2028-01-31T08:00:00.000Z'; // 2028 is a leap year
    const fixed = await createPlan(t, { trigger: { type: 'calendar', every: 1, unit: 'months', start_at: start, mode: 'fixed' }, on_open_task: 'stack' });
    const floating = await createPlan(t, { trigger: { type: 'calendar', every: 1, unit: 'months', start_at: start, mode: 'floating' }, on_open_task: 'stack' });

    // A month at a time, each month's two tasks waited for: skipping the year in one go lets the
    // test server run past a floating plan's timer while the other plan's activity runs (seen
    // under load), and a floating plan then counts from the late execution, as it should.
    for (let month = 0; month < 12; month++) {
      await sleepUntil(new Date(Date.UTC(2028, month, 31 - (month === 1 ? 2 : [3, 5, 8, 10].includes(month) ? 1 : 0), 12)));
      await untilPasses(async () => {
        expect(await tasksOf(fixed.row.id)).toHaveLength(month + 1);
        expect(await tasksOf(floating.row.id)).toHaveLength(month + 1);
      }, 20_000);
    }

    const fixedTasks = await untilPasses(async () => {
      const rows = await tasksOf(fixed.row.id);
      expect(rows).toHaveLength(12);
      return rows;
    });
    expect(fixedTasks.map((r) => new Date(r.due_at).toISOString())).toEqual([
      '2028-01-31T08:00:00.000Z',
      '2028-02-29T08:00:00.000Z',
      '2028-03-31T08:00:00.000Z',
      '2028-04-30T08:00:00.000Z',
      '2028-05-31T08:00:00.000Z',
      '2028-06-30T08:00:00.000Z',
      '2028-07-31T08:00:00.000Z',
      '2028-08-31T08:00:00.000Z',
      '2028-09-30T08:00:00.000Z',
      '2028-10-31T08:00:00.000Z',
      '2028-11-30T08:00:00.000Z',
      '2028-12-31T08:00:00.000Z',
    ]);
    const floatingTasks = await untilPasses(async () => {
      const rows = await tasksOf(floating.row.id);
      expect(rows).toHaveLength(12);
      return rows;
    });
    // Floating: Feb 29 + 1 month = Mar 29, and the 29th sticks from then on.
    expect(floatingTasks.map((r) => day(r.due_at))).toEqual([
      '2028-01-31',
      '2028-02-29',
      '2028-03-29',
      '2028-04-29',
      '2028-05-29',
      '2028-06-29',
      '2028-07-29',
      '2028-08-29',
      '2028-09-29',
      '2028-10-29',
      '2028-11-29',
      '2028-12-29',
    ]);

    // The read model follows, and the codes are gap-free across the tenant's two plans.
    await untilPasses(async () => {
      expect(new Date((await planRow(fixed.row.id)).next_due_at).toISOString()).toBe('2029-01-31T08:00:00.000Z');
      expect(day((await planRow(floating.row.id)).next_due_at)).toBe('2029-01-29');
    });
    const codes = [...fixedTasks, ...floatingTasks].map((r) => r.task_code).sort();
    expect(codes).toEqual(Array.from({ length: 24 }, (_, i) => `PM-${String(i + 1).padStart(6, '0')}`));
    const history = await executionsOf(fixed.row.id);
    expect(history.map((h) => [h.trigger, h.executed_by, h.outcome])).toEqual(Array(12).fill(['calendar', 'system', 'created']));
    expect((await queryOnTestServer(env, () => fixed.handle.query(stateQuery))).executions_total).toBe(12);

    for (const p of [fixed, floating]) await p.handle.signal(archiveSignal);
    expect(await fixed.handle.result()).toEqual({ status: 'archived', executions_total: 12 });
  });

  it('on_open_task skip records skipped executions while the task stays open', async () => {
    const t = await newTenant();
    const now = await serverNow();
    const start = new Date(now.getTime() + DAY).toISOString();
    const plan = await createPlan(t, { trigger: { type: 'calendar', every: 1, unit: 'days', start_at: start, mode: 'fixed' } });
    await sleepFor(3 * DAY + HOUR);
    const history = await untilPasses(async () => {
      const rows = await executionsOf(plan.row.id);
      expect(rows).toHaveLength(3);
      return rows;
    });
    expect(history.map((h) => h.outcome)).toEqual(['created', 'skipped', 'skipped']);
    const [task] = await tasksOf(plan.row.id);
    expect(history.slice(1).map((h) => h.kept_task_id)).toEqual([task.id, task.id]);
    await plan.handle.signal(archiveSignal);
  });
});

describe('a due time as a local activity (issue 19)', () => {
  it("creates exactly one task in the timer's workflow task: no activity task, one local-activity marker; a re-run of the execution creates nothing", async () => {
    const t = await newTenant();
    const now = await serverNow();
    const due = new Date(Math.ceil((now.getTime() + DAY) / HOUR) * HOUR);
    const plan = await createPlan(t, { trigger: { type: 'calendar', every: 1, unit: 'weeks', start_at: due.toISOString(), mode: 'fixed' } });

    await sleepUntil(new Date(due.getTime() + HOUR));
    const [task] = await untilPasses(async () => {
      const rows = await tasksOf(plan.row.id);
      expect(rows.map((r) => new Date(r.due_at).toISOString())).toEqual([due.toISOString()]);
      return rows;
    });
    expect((await executionsOf(plan.row.id)).map((e) => [e.idempotency_key, e.outcome, e.task_id])).toEqual([[`due:${due.toISOString()}`, 'created', task.id]]);
    await untilPasses(async () => expect(new Date((await planRow(plan.row.id)).next_due_at).toISOString()).toBe(new Date(due.getTime() + 7 * DAY).toISOString()));

    const events = (await plan.handle.fetchHistory()).events ?? [];
    const scheduled = events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'executePlan');
    expect(scheduled).toHaveLength(0);
    const markers = events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity');
    expect(markers).toHaveLength(1);
    expect(historyTextOf([markers[0]])).toContain('executePlan');
    expect(historyTextOf([markers[0]])).toContain(task.id);
    // Recorded in the completion of the workflow task the due timer woke: one task for the due time.
    const fired = events.findIndex((e) => e.timerFiredEventAttributes);
    const marker = events.indexOf(markers[0]);
    expect(fired).toBeGreaterThan(-1);
    expect(events.slice(fired, marker).filter((e) => e.workflowTaskCompletedEventAttributes)).toHaveLength(1);

    // A worker that dies after the commit but before its workflow task completes: the replay runs
    // the execution again with the same input; it answers the first task and writes nothing.
    const again = await createMaintenanceActivities({ db: pg.db }).executePlan({
      tenantId: t.tenantId,
      planId: plan.row.id,
      execution: {
        key: `due:${due.toISOString()}`,
        trigger: 'calendar',
        executedBy: 'system',
        executedAt: due.toISOString(),
        dueAt: due.toISOString(),
        onOpenTask: 'skip',
        intervalHours: 168,
      },
      snapshot: { seq: 1, next_due_at: due.toISOString(), next_due_trigger: 'calendar', interval_hours: 168 },
    });
    expect(again).toMatchObject({ outcome: 'created', task_id: task.id, task_code: task.task_code, repeated: true });
    expect(await tasksOf(plan.row.id)).toHaveLength(1);
    expect(await executionsOf(plan.row.id)).toHaveLength(1);
    expect(await pg.db('outbox_events').where({ tenant_id: t.tenantId, type: 'task.created' })).toHaveLength(1);

    await plan.handle.signal(archiveSignal);
    expect(await plan.handle.result()).toEqual({ status: 'archived', executions_total: 1 });
    await recordHistory('maintenance-plan-due-local-execution', plan.handle);
  });
});

describe('pause and resume', () => {
  it('a fixed plan paused across its due time keeps next_due_at, and on resume moves to the next grid point', async () => {
    const t = await newTenant();
    const now = await serverNow();
    const start = new Date(Math.ceil((now.getTime() + 2 * DAY) / HOUR) * HOUR);
    const plan = await createPlan(t, { trigger: { type: 'calendar', every: 1, unit: 'days', start_at: start.toISOString(), mode: 'fixed' } });

    await plan.handle.signal(pauseSignal);
    await plan.handle.signal(pauseSignal); // twice is harmless
    await sleepFor(5 * DAY);
    expect(await tasksOf(plan.row.id)).toHaveLength(0);
    const paused = await queryOnTestServer(env, () => plan.handle.query(stateQuery));
    expect(paused.status).toBe('paused');
    expect(paused.next_due?.at).toBe(start.toISOString());

    await plan.handle.signal(resumeSignal);
    await plan.handle.signal(resumeSignal);
    const resumedAt = await env.currentTimeMs();
    const expected = new Date(start.getTime() + Math.floor((resumedAt - start.getTime()) / DAY + 1) * DAY).toISOString();
    const resumed = await queryOnTestServer(env, () => plan.handle.query(stateQuery));
    expect(resumed.status).toBe('active');
    expect(resumed.next_due?.at).toBe(expected);
    await untilPasses(async () => expect(new Date((await planRow(plan.row.id)).next_due_at).toISOString()).toBe(expected));

    await sleepUntil(new Date(new Date(expected).getTime() + HOUR));
    const tasks = await untilPasses(async () => {
      const rows = await tasksOf(plan.row.id);
      expect(rows).toHaveLength(1);
      return rows;
    });
    expect(new Date(tasks[0].due_at).toISOString()).toBe(expected); // nothing fired for the missed days
    await plan.handle.signal(archiveSignal);
  });

  it('a floating plan resumed after its due time is due one interval after the resume; execute while paused creates a task and keeps it paused', async () => {
    const t = await newTenant();
    const now = await serverNow();
    const plan = await createPlan(t, { trigger: { type: 'calendar', every: 2, unit: 'days', start_at: new Date(now.getTime() + DAY).toISOString(), mode: 'floating' } });
    await plan.handle.signal(pauseSignal);

    const executed = await execute(t, plan.row.id, 'exec-1');
    expect(executed.task_code).toBe('PM-000001');
    const afterExecute = await queryOnTestServer(env, () => plan.handle.query(stateQuery));
    expect(afterExecute.status).toBe('paused');
    // Floating: a user execution moves the due time to execution + interval.
    expect(Math.abs(new Date(afterExecute.next_due!.at).getTime() - (now.getTime() + 2 * DAY))).toBeLessThan(60_000);
    expect(executed.next_due_at).toBe(afterExecute.next_due!.at);

    await sleepFor(4 * DAY);
    await plan.handle.signal(resumeSignal);
    const resumedAt = await env.currentTimeMs();
    const resumed = await queryOnTestServer(env, () => plan.handle.query(stateQuery));
    expect(Math.abs(new Date(resumed.next_due!.at).getTime() - (resumedAt + 2 * DAY))).toBeLessThan(60_000);
    const [history] = await executionsOf(plan.row.id);
    expect(history).toMatchObject({ executed_by: t.adminUserId, trigger: 'calendar', outcome: 'created' });
    await plan.handle.signal(archiveSignal);
  });
});

describe('counter plans', () => {
  it('executes at the threshold, once for several thresholds, refuses going backwards, accepts resets, projects the next due date', async () => {
    const t = await newTenant();
    const plan = await createPlan(t, { trigger: { type: 'counter', counter: 'operating_hours', unit: 'h', every: 100, start_value: 0 }, on_open_task: 'stack' });
    const read = (requestId: string, value: number, extra: Partial<CounterRequest> = {}) =>
      plan.handle.executeUpdate(recordCounterUpdate, { args: [{ requestId, value, source: 'gw-1', origin: origin(t), ...extra }], updateId: requestId });

    const r50 = await read('r-50', 50);
    expect(r50).toMatchObject({ thresholds_crossed: 0, execution: null, next_threshold: 100 });
    await sleepFor(10 * HOUR);
    const r120 = await read('r-120', 120);
    expect(r120).toMatchObject({ thresholds_crossed: 1, execution: { outcome: 'created', task_code: 'PM-000001' }, next_threshold: 200 });
    await sleepFor(10 * HOUR);
    const r450 = await read('r-450', 450);
    expect(r450).toMatchObject({ thresholds_crossed: 3, execution: { outcome: 'created', task_code: 'PM-000002' }, next_threshold: 500 });

    // The same request again: the first answer, nothing recorded twice.
    expect(await read('r-120', 120)).toEqual(r120);

    const backwards = await read('r-400', 400).catch((e) => e);
    expect(rejectionOf(backwards).type).toBe('COUNTER_WENT_BACKWARDS');

    // The meter was replaced: 50 still to go, so the threshold is 50 on the new scale.
    const reset = await read('r-reset', 30, { reset: true });
    expect(reset).toMatchObject({ thresholds_crossed: 0, execution: null, next_threshold: 50 });

    // ~21 per hour over the last readings: the next threshold is projected ahead, not null.
    const preview = await queryOnTestServer(env, () => plan.handle.query(previewQuery));
    expect(preview).toMatchObject({ trigger: 'counter', projected: true, next_threshold: 50, counter_value: 30 });
    expect(new Date(preview.due_at!).getTime()).toBeGreaterThanOrEqual(await env.currentTimeMs());

    // Paused: the reading is recorded, the threshold it passes is consumed without a task.
    await plan.handle.signal(pauseSignal);
    const whilePaused = await read('r-paused', 80);
    expect(whilePaused).toMatchObject({ thresholds_crossed: 1, execution: null, next_threshold: 150 });

    const readings = await pg.db('maintenance_counter_readings').where({ plan_id: plan.row.id }).orderBy('read_at');
    expect(readings.map((r) => [r.value, r.reset, r.total])).toEqual([
      [50, false, 50],
      [120, false, 120],
      [450, false, 450],
      [30, true, 480],
      [80, false, 530],
    ]);
    const tasks = await tasksOf(plan.row.id);
    expect(tasks.map((x) => [x.task_code, x.trigger])).toEqual([
      ['PM-000001', 'counter'],
      ['PM-000002', 'counter'],
    ]);
    expect((await executionsOf(plan.row.id)).map((e) => e.thresholds_crossed)).toEqual([1, 3]);

    await plan.handle.signal(archiveSignal);
    await plan.handle.result();
    await recordHistory('maintenance-plan-counter-pause', plan.handle);
  });
});

describe('overdue', () => {
  it('a counter task with no known meter rate is overdue a day after its due time, with one event', async () => {
    const t = await newTenant();
    const plan = await createPlan(t, { trigger: { type: 'counter', counter: 'operating_hours', unit: 'h', every: 100, start_value: 0 } });
    // The first reading crosses the threshold: no rate is known yet, so the interval is unknown.
    const result = await plan.handle.executeUpdate(recordCounterUpdate, { args: [{ requestId: 'r-120', value: 120, source: 'gw-1', origin: origin(t) }], updateId: 'r-120' });
    expect(result.execution).toMatchObject({ outcome: 'created' });
    const [task] = await tasksOf(plan.row.id);
    const overdueEvents = () => pg.db('outbox_events').where({ tenant_id: t.tenantId, type: 'task.overdue' });

    await sleepUntil(new Date(new Date(task.due_at).getTime() + 23 * HOUR));
    expect((await pg.db('maintenance_tasks').where({ id: task.id }).first()).overdue_at).toBeNull();

    await sleepUntil(new Date(new Date(task.due_at).getTime() + DAY + 60_000));
    const marked = await untilPasses(async () => {
      const row = await pg.db('maintenance_tasks').where({ id: task.id }).first();
      expect(row.overdue_at).not.toBeNull();
      return row;
    });
    expect(new Date(marked.overdue_at).getTime() - new Date(task.due_at).getTime()).toBeGreaterThanOrEqual(DAY);
    expect((await overdueEvents()).map((e) => e.data.task_id)).toEqual([task.id]);
    await plan.handle.signal(archiveSignal);
    await plan.handle.result();
  });
});

describe('lead-time notification', () => {
  it('queues one notification lead_time before due, delivered by the notification workflow, then the due time creates the task', async () => {
    const t = await newTenant();
    const now = await serverNow();
    const due = new Date(Math.ceil((now.getTime() + 3 * DAY) / HOUR) * HOUR);
    const plan = await createPlan(t, {
      trigger: { type: 'calendar', every: 1, unit: 'weeks', start_at: due.toISOString(), mode: 'fixed' },
      notify: { recipients: [t.adminUserId], lead_time: 'P1D' },
    });
    const leadNotifications = () => pg.db('notifications').where({ tenant_id: t.tenantId, category: 'maintenance.lead_time' });

    await sleepUntil(new Date(due.getTime() - DAY - HOUR));
    expect(await leadNotifications()).toHaveLength(0);
    await sleepUntil(new Date(due.getTime() - DAY + HOUR));
    const [notification] = await untilPasses(async () => {
      const rows = await leadNotifications();
      expect(rows.map((r) => r.status)).toEqual(['recorded']); // no SMTP here: delivered by recording
      return rows;
    });
    expect(notification.recipients).toEqual([t.email]);
    expect(notification.body).toContain(due.toISOString());
    // Operators find the child by tenant, like every workflow the API starts.
    const child = await env.client.workflow.getHandle(workflowIds.notification(t.tenantId, notification.id)).describe();
    expect(child.typedSearchAttributes.get(TenantIdKey)).toBe(t.tenantId);
    expect(child.typedSearchAttributes.get(ResourceIdKey)).toBe(notification.id);
    expect(await tasksOf(plan.row.id)).toHaveLength(0);

    await sleepUntil(new Date(due.getTime() + HOUR));
    await untilPasses(async () => expect((await tasksOf(plan.row.id)).map((x) => new Date(x.due_at).toISOString())).toEqual([due.toISOString()]));
    expect(await leadNotifications()).toHaveLength(1);
    // No personal data in the plan's history: the address stays in the notification row.
    await expectNoPersonalData(env.client, plan.handle.workflowId, plan.row.id, [t.email]);
    await expectNoPersonalData(env.client, workflowIds.notification(t.tenantId, notification.id), notification.id, [t.email]);
    await plan.handle.signal(archiveSignal);
    await plan.handle.result();
    await recordHistory('maintenance-plan-lead-time-notification', plan.handle);
  });
});

describe('continue-as-new', () => {
  it('continues as new after run_event_limit events and keeps its state and its memory of update results', async () => {
    const t = await newTenant();
    const now = await serverNow();
    const plan = await createPlan(t, {
      trigger: { type: 'calendar', every: 1, unit: 'months', start_at: new Date(now.getTime() + 30 * DAY).toISOString(), mode: 'fixed' },
      run_event_limit: 8,
    });
    const firstRunId = plan.handle.firstExecutionRunId;
    const results = [];
    for (let i = 0; i < 25; i += 1) results.push(await execute(t, plan.row.id, `exec-${i}`));
    expect(results.map((r) => r.task_code)).toEqual(Array.from({ length: 25 }, (_, i) => `PM-${String(i + 1).padStart(6, '0')}`));

    const latest = env.client.workflow.getHandle(plan.handle.workflowId);
    const description = await latest.describe();
    expect(description.runId).not.toBe(firstRunId);
    const firstRun = await env.client.workflow.getHandle(plan.handle.workflowId, firstRunId).fetchHistory();
    await recordHistory('maintenance-plan-continued-as-new', env.client.workflow.getHandle(plan.handle.workflowId, firstRunId));
    expect(firstRun.events?.at(-1)?.workflowExecutionContinuedAsNewEventAttributes).toBeTruthy();

    const view = await queryOnTestServer(env, () => latest.query(stateQuery));
    expect(view).toMatchObject({ executions_total: 25, status: 'active', version: 1 });
    // A retried call after the run changed: same task, no new one.
    const again = await execute(t, plan.row.id, 'exec-24');
    expect(again).toEqual({ ...results[24], repeated: true });
    // An Update of a request from two runs ago is answered from the carried memory, not counted again.
    await latest.executeUpdate(executeUpdate, { args: [{ requestId: 'exec-3', executedBy: t.adminUserId, taskId: results[3].task_id, dueAt: new Date().toISOString() }] });
    expect((await queryOnTestServer(env, () => latest.query(stateQuery))).executions_total).toBe(25);
    expect(await tasksOf(plan.row.id)).toHaveLength(25);
    await latest.signal(archiveSignal);
    expect(await latest.result()).toEqual({ status: 'archived', executions_total: 25 });
  });
});

describe('condition plans', () => {
  const MINUTE = 60_000;
  const vibration = { type: 'condition' as const, parameter: 'vibration', above: 3.5, for_minutes: 60 };

  async function conditionPlan(o: Omit<PlanOptions, 'trigger' | 'asset_ids'> = {}) {
    const t = await newTenant();
    const [asset] = await pg.db('assets').insert({ tenant_id: t.tenantId, name: 'Pump 1', type: 'pump' }).returning('id');
    const plan = await createPlan(t, { trigger: vibration, on_open_task: 'stack', asset_ids: [asset.id], ...o });
    const base = (await serverNow()).getTime() - 24 * HOUR;
    /** The current run, whichever it is after continue-as-new. */
    const latest = () => env.client.workflow.getHandle(plan.handle.workflowId);
    let n = 0;
    /** Stores readings every 5 minutes from `minute` (device time) and tells the plan once. */
    const readings = async (minute: number, values: number[]) => {
      const rows = values.map((value, i) => ({
        tenant_id: t.tenantId,
        asset_id: asset.id,
        parameter: 'vibration',
        ts: new Date(base + (minute + 5 * i) * MINUTE),
        value,
        sender_event_id: `r-${(n += 1)}`,
      }));
      await pg.db('sensor_readings').insert(rows);
      await latest().signal(readingsSignal);
      return rows.at(-1)!.ts.toISOString();
    };
    /** Until the plan's workflow has evaluated the readings up to `last`. */
    const evaluated = (last: string) =>
      untilPasses(async () => {
        const view = await queryOnTestServer(env, () => latest().query(stateQuery));
        expect(view.schedule.type === 'condition' && view.schedule.condition.assets[asset.id]?.last_at).toBe(last);
      });
    const at = (minute: number) => new Date(base + minute * MINUTE).toISOString();
    return { t, asset: asset.id as string, plan, latest, readings, evaluated, at };
  }

  it('a flapping sensor makes one work order with its evidence; back inside for the window re-arms it', async () => {
    const { t, asset, plan, readings, evaluated, at } = await conditionPlan();
    await readings(0, Array(6).fill(4)); // minutes 0..25: beyond, not yet for 60 minutes
    let last = await readings(30, Array(7).fill(4)); // ..60: persisted
    for (let k = 0; k < 6; k += 1) last = await readings(65 + 25 * k, [3.4, 3.6, 3.4, 3.6, 3.6]); // flapping around the limit
    await evaluated(last);

    // The query shows the readings judged before the activity that follows writes the work order.
    const executions = await untilPasses(async () => {
      const rows = await executionsOf(plan.row.id);
      expect(rows.map((e) => [e.trigger, e.outcome, e.idempotency_key])).toEqual([['condition', 'created', `condition:${asset}:${at(0)}`]]);
      return rows;
    });
    const evidence = {
      asset_id: asset,
      parameter: 'vibration',
      limit: { above: 3.5 },
      deadband: 0.175,
      for_minutes: 60,
      first_reading: { at: at(0), value: 4 },
      last_reading: { at: at(60), value: 4 },
    };
    expect(executions[0].evidence).toEqual(evidence);
    const [task] = await tasksOf(plan.row.id);
    expect(task).toMatchObject({ trigger: 'condition', evidence });
    const [event] = await pg.db('outbox_events').where({ tenant_id: t.tenantId, type: 'task.created' });
    expect(event.data).toMatchObject({ task_id: task.id, trigger: 'condition', evidence });

    await readings(220, Array(13).fill(2)); // minutes 220..280: inside for the window
    last = await readings(300, Array(13).fill(5));
    await evaluated(last);
    // The query shows the readings judged as soon as they are; the work order they fired is written
    // by the activity that follows, so it is awaited (a third one would fail the result below).
    await untilPasses(async () =>
      expect((await executionsOf(plan.row.id)).map((e) => e.evidence.first_reading)).toEqual([
        { at: at(0), value: 4 },
        { at: at(300), value: 5 },
      ]),
    );
    // The history grew with the signals (one per batch), not with the readings.
    const events = (await plan.handle.fetchHistory()).events ?? [];
    expect(events.filter((e) => e.workflowExecutionSignaledEventAttributes).length).toBe(10);
    await plan.handle.signal(archiveSignal);
    expect(await plan.handle.result()).toEqual({ status: 'archived', executions_total: 2 });
    await recordHistory('maintenance-plan-condition-flapping', plan.handle);
  });

  it('paused, readings do nothing; resumed, it continues from the current state; continue-as-new keeps the state', async () => {
    const { plan, latest, readings, evaluated, at, asset } = await conditionPlan({ run_event_limit: 4 });
    const firstRunId = plan.handle.firstExecutionRunId;
    await evaluated(await readings(0, Array(7).fill(4))); // 0..30: an excursion under way
    await latest().signal(pauseSignal);
    await readings(35, Array(7).fill(4)); // 35..65: persisted, but paused
    const paused = await queryOnTestServer(env, () => latest().query(stateQuery));
    expect(paused.status).toBe('paused');
    expect(paused.schedule.type === 'condition' && paused.schedule.condition.assets[asset]?.last_at).toBe(at(30));
    expect(await executionsOf(plan.row.id)).toHaveLength(0);

    await latest().signal(resumeSignal);
    await evaluated(at(65));
    await untilPasses(async () => expect((await latest().describe()).runId).not.toBe(firstRunId));
    // The excursion that began before the pause (and before the new run) made its one work order.
    expect((await executionsOf(plan.row.id)).map((e) => e.evidence.first_reading.at)).toEqual([at(0)]);
    await evaluated(await readings(70, [4, 3.4, 3.6])); // still the same excursion after continue-as-new
    expect(await executionsOf(plan.row.id)).toHaveLength(1);
    await latest().signal(archiveSignal);
    expect(await latest().result()).toEqual({ status: 'archived', executions_total: 1 });
  });
});

describe('predictive plans', () => {
  const trigger = { type: 'predictive' as const, parameter: 'vibration', lead_days: 3, min_probability: 0.5 };

  /** A pump whose type has a vibration failure limit of 7.1, and its plan. */
  async function predictivePlan(o: Partial<PlanOptions> = {}) {
    const t = await newTenant();
    const [asset] = await pg.db('assets').insert({ tenant_id: t.tenantId, name: 'Pump 7', type: 'pump' }).returning('id');
    await pg.db('predictive_configs').insert({
      tenant_id: t.tenantId,
      asset_type: 'pump',
      model_inputs: {},
      cycle_length_days: 1,
      action_thresholds: JSON.stringify(DEFAULT_ACTION_THRESHOLDS),
      alert_sensitivity: 1,
      operational_parameters: {},
      failure_limits: JSON.stringify({ vibration: { upper: 7.1 } }),
    });
    const plan = await createPlan(t, { trigger, on_open_task: 'stack', asset_ids: [asset.id], ...o });
    const latest = () => env.client.workflow.getHandle(plan.handle.workflowId);
    let n = 0;
    /**
     * Readings every `stepMs` over `spanMs` ending now (server time), from `from` rising by `perDay`
     * with some noise, and the series' latest-reading row, as the gateway stores them; not signalled.
     */
    const store = async (spanMs: number, stepMs: number, from: number, perDay: number) => {
      const end = (await serverNow()).getTime();
      const rows = Array.from({ length: spanMs / stepMs + 1 }, (_, i) => ({
        tenant_id: t.tenantId,
        asset_id: asset.id,
        parameter: 'vibration',
        ts: new Date(end - spanMs + i * stepMs),
        value: from + (perDay * i * stepMs) / DAY + 0.4 * Math.sin(i * 1.7),
        sender_event_id: `p-${(n += 1)}`,
      }));
      await pg.db('sensor_readings').insert(rows);
      const last = rows.at(-1)!;
      await upsertLatestReadings(pg.db, t.tenantId, [{ asset_id: asset.id, parameter: 'vibration', ts: last.ts, value: last.value, unit: null, source: null, recent: [] }]);
    };
    const forecastOf = async () => {
      const view = await queryOnTestServer(env, () => latest().query(stateQuery));
      return view.schedule.type === 'predictive' ? view.schedule.predictive.assets[asset.id] : undefined;
    };
    return { t, asset: asset.id as string, plan, latest, store, forecastOf };
  }

  it("a projected crossing sets a durable timer; its work order comes lead_days before the crossing, with the forecast's evidence", async () => {
    const { t, asset, plan, latest, store, forecastOf } = await predictivePlan();
    await store(10 * DAY, HOUR, 2, 0.25); // 4.5 now: 7.1 in about 10 days
    await latest().signal(readingsSignal);
    await untilPasses(async () => expect((await forecastOf())?.due_at).toEqual(expect.any(String)));
    const forecast = (await forecastOf())!;
    const crossing = Date.parse(forecast.evidence!.projected_crossing_at!);
    const dueAt = Date.parse(forecast.due_at!);
    expect(Math.abs(dueAt - (crossing - 3 * DAY))).toBeLessThan(HOUR);
    expect(dueAt - (await serverNow()).getTime()).toBeGreaterThan(5 * DAY);
    expect(await executionsOf(plan.row.id)).toHaveLength(0);
    // The read model and the preview show the projected due time.
    await untilPasses(async () => expect(await planRow(plan.row.id)).toMatchObject({ next_due_trigger: 'predictive', next_due_at: new Date(forecast.due_at!) }));
    const preview = await queryOnTestServer(env, () => latest().query(previewQuery));
    expect(preview).toMatchObject({ due_at: forecast.due_at, trigger: 'predictive', projected: true, forecasts: [forecast.evidence] });

    await sleepUntil(new Date(dueAt + 60_000));
    await untilPasses(async () => expect(await executionsOf(plan.row.id)).toHaveLength(1));
    const [execution] = await executionsOf(plan.row.id);
    expect(execution).toMatchObject({ trigger: 'predictive', outcome: 'created' });
    const evidence = execution.evidence;
    expect(evidence).toMatchObject({
      asset_id: asset,
      parameter: 'vibration',
      model_version: 'degradation-trend-v2',
      limit: { above: 7.1 },
      lead_days: 3,
      readings: { count: 241 },
    });
    expect(evidence.probability).toBeGreaterThanOrEqual(0.5);
    // Due lead_days before the crossing the prognosis projected when it decided (not at the first prediction).
    const [task] = await tasksOf(plan.row.id);
    expect(task).toMatchObject({ trigger: 'predictive', evidence });
    expect(task.due_at.getTime()).toBe(Math.max(Date.parse(evidence.predicted_at), Date.parse(evidence.projected_crossing_at) - 3 * DAY));
    expect(Math.abs(task.due_at.getTime() - dueAt)).toBeLessThan(HOUR);
    const [event] = await pg.db('outbox_events').where({ tenant_id: t.tenantId, type: 'task.created' });
    expect(event.data).toMatchObject({ task_id: task.id, trigger: 'predictive', evidence });
    // Fired: the same readings told again make no second work order.
    await latest().signal(readingsSignal);
    await untilPasses(async () =>
      expect((await queryOnTestServer(env, () => latest().query(stateQuery))).schedule).toMatchObject({ predictive: { assets: { [asset]: { fired: true } } } }),
    );
    expect(await executionsOf(plan.row.id)).toHaveLength(1);
    await latest().signal(archiveSignal);
    expect(await latest().result()).toEqual({ status: 'archived', executions_total: 1 });
    await recordHistory('maintenance-plan-predictive-lead', plan.handle);
  });

  it('paused, it does nothing; a completed work order re-arms it from the readings after it; resumed, it continues; continue-as-new keeps the state', async () => {
    const { asset, plan, latest, store, forecastOf } = await predictivePlan({ trigger: { ...trigger, lead_days: 14 }, run_event_limit: 4 });
    const firstRunId = plan.handle.firstExecutionRunId;
    await store(10 * DAY, HOUR, 2, 0.25); // crossing within 14 days: due now
    await latest().signal(readingsSignal);
    await untilPasses(async () => expect(await executionsOf(plan.row.id)).toHaveLength(1));

    await latest().signal(pauseSignal);
    const [task] = await tasksOf(plan.row.id);
    await pg
      .db('maintenance_tasks')
      .where({ id: task.id })
      .update({ status: 'done', completed_at: await serverNow() });
    await latest().signal(workOrderCompletedSignal, { assetId: asset });
    await untilPasses(async () => expect((await forecastOf())?.fired).toBe(false));
    const since = (await forecastOf())!.since!;
    await sleepFor(2 * HOUR);
    await store(2 * HOUR, 5 * 60_000, 5, 24); // after the repair: two hours rising fast
    await latest().signal(readingsSignal);
    expect((await queryOnTestServer(env, () => latest().query(stateQuery))).status).toBe('paused');
    expect(await executionsOf(plan.row.id)).toHaveLength(1);

    await latest().signal(resumeSignal);
    await untilPasses(async () => expect(await executionsOf(plan.row.id)).toHaveLength(2));
    const second = (await executionsOf(plan.row.id))[1].evidence;
    // Only the readings after the completion made the new forecast.
    expect(Date.parse(second.readings.from)).toBeGreaterThan(Date.parse(since));
    expect(second.readings.count).toBeLessThanOrEqual(25);
    await untilPasses(async () => expect((await latest().describe()).runId).not.toBe(firstRunId));
    // The new run carries the state: fired, and the re-arm's cutoff.
    expect(await forecastOf()).toMatchObject({ fired: true, since });
    await latest().signal(readingsSignal);
    await untilPasses(async () => expect((await forecastOf())?.evidence?.predicted_at).not.toBe(second.predicted_at));
    expect(await executionsOf(plan.row.id)).toHaveLength(2);
    await latest().signal(archiveSignal);
    expect(await latest().result()).toEqual({ status: 'archived', executions_total: 2 });
  });

  it('a lost readings signal: the catch-up sweep tells the plan, which then evaluates them; a plan up to date is left alone', async () => {
    const { t, plan, latest, store } = await predictivePlan({ trigger: { ...trigger, lead_days: 14 } });
    await store(10 * DAY, HOUR, 2, 0.25); // stored, but the signal never came
    const behind = await plansBehindOnReadings(pg.db, { perTenant: 20, total: 10_000 });
    expect(behind).toContainEqual({ tenant_id: t.tenantId, id: plan.row.id });
    const gateway = { client: async () => env.client, callDeadlineMs: 5_000 } as unknown as TemporalGateway;
    expect(await nudgePlansBehindOnReadings(pg.db, gateway, { warn: () => undefined })).toBeGreaterThanOrEqual(1);
    await untilPasses(async () => expect(await executionsOf(plan.row.id)).toHaveLength(1));
    expect((await plansBehindOnReadings(pg.db, { perTenant: 20, total: 10_000 })).map((p) => p.id)).not.toContain(plan.row.id);
    // One tenant's many plans are told a few at a time.
    expect(await plansBehindOnReadings(pg.db, { perTenant: 0, total: 10 })).toEqual([]);
    await latest().signal(archiveSignal);
    await latest().result();
  });
});
