/**
 * Preventive maintenance plans, without HTTP. Each plan is driven by its long-running workflow
 * `maintenance-plan/<tenant>/<plan>`; the row is the definition and a read model of the schedule.
 * Every Temporal call has the API's call deadline (orchestration/temporal-call.ts) and none waits
 * with a row locked: pause, resume and delete signal first and then change the row, an edit
 * commits and then signals its new version, create starts the workflow before its insert commits;
 * execute and counter readings are Updates whose results come back. api/routes/maintenance.ts is the HTTP face; the order of
 * each change is described there.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Db, Queryable } from '../db/knex';
import { insertNotification } from '../db/notifications';
import { counterSourceRef } from '../db/queries/counter-sources';
import {
  countLivePlans,
  countOpenTasks,
  counterReadingsQuery,
  CounterReadingRow,
  ExecutionListRow,
  executionsQuery,
  findPlan,
  lockPlan,
  peekTaskCode,
  planNotificationText,
  planRecipients,
  PlanRecipient,
  PlanRow,
  plansQuery,
  policyOf,
  saveScheduleSnapshot,
  updatePlanRow,
} from '../db/queries/maintenance';
import { isUuid, tenantScope, type TenantScope } from '../db/tenant-scope';
import { runUnit, type UnitContext, type UserUnitContext } from '../db/unit-of-work';
import { counterPartOf, type Trigger } from '../domain/maintenance';
import { isoTime } from '../domain/time';
import type { TemporalGateway } from '../infra/temporal';
import {
  classifyPlanCallError,
  executePlan,
  lockPlanForManualExecution,
  unkeyedExecuteRequestId,
  planHandle,
  queryPlanPreview,
  queryPlanState,
  recordCounter,
  recordManualExecution,
  signalPlan,
  startPlanWorkflow,
  workflowStateOf,
  type PlanSignal,
} from '../orchestration/maintenance';
import { startNotificationDelivery } from '../orchestration/notifications';
import { snapshotOf, type PlanPreview, type PlanStateView } from '../workflows/maintenance-plan-state';
import type { CounterRequest, CounterResult } from '../workflows/maintenance-plan';
import { AppError, dependencyUnavailable, notFound, validationError } from '../domain/errors';
import { callTemporal } from '../orchestration/temporal-call';
import { findOr404 } from '../db/find-or-404';
import { paginate, type Page, type PageRequest } from '../db/pagination';
import { assertWithinPlanLimit } from '../db/plan-limits';
import { checkConditionTrigger } from './maintenance-condition';

/** What a plan's calls need: the database, Temporal (with the API's call deadline), and where a repair is logged. */
export interface PlanDeps {
  db: Db;
  temporal: TemporalGateway;
  log: Pick<Logger, 'warn'>;
}

export interface PlanFields {
  name?: string;
  description?: string | null;
  asset_ids?: string[];
  trigger?: PlanRow['trigger'];
  checklist?: string[];
  assignee_id?: string | null;
  priority?: PlanRow['priority'];
  estimated_minutes?: number | null;
  task_kind?: PlanRow['task_kind'];
  task_prefix?: string;
  notify?: PlanRow['notify'];
  on_open_task?: PlanRow['on_open_task'];
  generate_ahead?: string;
  status?: 'active' | 'paused';
}

// ---- lookups and rules -----------------------------------------------------------------------

/** The fields the plan's workflow keeps (its schedule policy). */
const POLICY_FIELDS = ['trigger', 'on_open_task', 'generate_ahead', 'notify'] as const;

/** A live plan of the tenant; another tenant's, a deleted one or a malformed id: 404. */
export function requirePlan(scope: TenantScope, id: string): Promise<PlanRow> {
  return findOr404('maintenance plan', id, () => findPlan(scope, id));
}

async function lockLivePlan(tx: Knex.Transaction, tenantId: string, planId: string): Promise<PlanRow> {
  const row = await lockPlan(tx, tenantId, planId);
  if (!row || row.deleted_at !== null) throw notFound('maintenance plan');
  return row;
}

const unknownReference = (field: string, message: string) => validationError(`${field} ${message}`, [{ field: `body.${field}`, message, type: 'any.unknown_reference' }]);

/** asset_ids, assignee_id and notify.recipients must name records of the caller's tenant. */
export async function checkReferences(scope: TenantScope, fields: PlanFields): Promise<void> {
  if (fields.asset_ids?.length) {
    const valid = fields.asset_ids.filter(isUuid);
    const found = valid.length ? ((await scope.table('assets').whereIn('id', valid).pluck('id')) as string[]) : [];
    if (found.length !== fields.asset_ids.length) throw unknownReference('asset_ids', 'must name assets of this tenant');
  }
  const users = [...new Set([...(fields.assignee_id ? [fields.assignee_id] : []), ...(fields.notify?.recipients ?? [])])];
  if (users.length) {
    const found = (await scope.table('users').whereIn('id', users).pluck('id')) as string[];
    if (fields.assignee_id && !found.includes(fields.assignee_id)) throw unknownReference('assignee_id', 'must name a user of this tenant');
    if (found.length !== users.length) throw unknownReference('notify.recipients', 'must name users of this tenant');
  }
}

/** Column values of a plan body (JSON columns serialised; arrays of uuids as they are). */
export function planColumns(fields: PlanFields): Record<string, unknown> {
  const out: Record<string, unknown> = { ...fields };
  if (fields.trigger !== undefined) out.trigger = JSON.stringify(fields.trigger);
  if (fields.checklist !== undefined) out.checklist = JSON.stringify(fields.checklist);
  if (fields.notify !== undefined) out.notify = fields.notify === null ? null : JSON.stringify(fields.notify);
  if (fields.description === '') out.description = null;
  if (fields.task_prefix === undefined && 'task_prefix' in out) delete out.task_prefix;
  return out;
}

// ---- the plan's workflow ---------------------------------------------------------------------

const REJECTION_STATUS: Record<string, number> = {
  COUNTER_WENT_BACKWARDS: 422,
  READING_OUT_OF_ORDER: 422,
  INVALID_READING: 422,
  PLAN_HAS_NO_COUNTER: 422,
  STALE_PLAN_VERSION: 409,
  EXECUTION_SKIPPED: 409,
  INVALID_REQUEST: 400,
};

/**
 * Runs a call on the plan's workflow and maps its failures: a refused Update to its code (422 for
 * readings, 409 for stale versions), an archived plan to 404, Temporal unreachable or late to 503.
 * A live plan whose workflow is missing gets it started from its row (what the reconciler would
 * do), and the call is made once more, all within the one deadline.
 */
export function callPlanWorkflow<T>(deps: PlanDeps, plan: PlanRow, call: (client: Client) => Promise<T>): Promise<T> {
  return callPlanWorkflowLoading(deps, plan.id, () => Promise.resolve(plan), call);
}

/** `callPlanWorkflow` for a plan whose row is still being read: `loadPlan` is awaited only to start a missing workflow. */
function callPlanWorkflowLoading<T>(deps: PlanDeps, planId: string, loadPlan: () => Promise<PlanRow>, call: (client: Client) => Promise<T>): Promise<T> {
  return callTemporal(deps.temporal, "the plan's workflow did not answer; retry with the same Idempotency-Key (applied once)", async (client) => {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await call(client);
      } catch (err) {
        const failure = classifyPlanCallError(err);
        if (failure.kind === 'rejected') {
          if (failure.code === 'PLAN_ARCHIVED') throw notFound('maintenance plan');
          const extra = failure.details && typeof failure.details === 'object' ? { reason: failure.details } : {};
          throw new AppError(failure.code as Uppercase<string>, failure.message, extra, REJECTION_STATUS[failure.code] ?? 409);
        }
        if (failure.kind === 'workflow_missing' && attempt === 1) {
          const plan = await loadPlan();
          deps.log.warn({ planId }, 'maintenance plan workflow missing: starting it from the plan row');
          await startPlanWorkflow(client, workflowStateOf(plan, new Date()), { restart: true });
          continue;
        }
        throw err;
      }
    }
  });
}

/** Writes what the workflow answered into the plan row's read model (never older than what is there). */
export async function saveView(db: Queryable, plan: PlanRow, view: PlanStateView): Promise<void> {
  await saveScheduleSnapshot(db, plan.tenant_id, plan.id, view.snapshot);
}

/** Sends a signal with the call deadline and no transaction open: Temporal down or late → 503. */
function signalOrFail(deps: PlanDeps, plan: PlanRow, signal: PlanSignal): Promise<void> {
  return callTemporal(deps.temporal, "could not signal the plan's workflow", async (client) => {
    try {
      await signalPlan(client, plan.tenant_id, plan.id, signal);
    } catch (err) {
      // An archive of a workflow that is already gone has nothing left to do.
      if (signal.kind === 'archive' && (err as Error).name === 'WorkflowNotFoundError') return;
      throw err;
    }
  });
}

/**
 * After a signal: the workflow's state (a query sees the signal) written to the row, and the row
 * read again. A workflow behind the row's version (a change committed whose signal or Update was
 * lost to a 503, or an edit of fields it does not keep) is sent the row's policy at that version
 * first: re-sending an unchanged trigger keeps the schedule.
 */
async function withWorkflowState(deps: PlanDeps, plan: PlanRow): Promise<PlanRow> {
  const scope = tenantScope(deps.db, plan.tenant_id);
  const row = await requirePlan(scope, plan.id);
  const query = (c: Client) => queryPlanState(c, row.tenant_id, row.id);
  let view = await callPlanWorkflow(deps, row, query);
  if (view.version < row.version) {
    await signalOrFail(deps, row, { kind: 'planChanged', change: { version: row.version, policy: policyOf(row) } });
    view = await callPlanWorkflow(deps, row, query);
  }
  await saveView(deps.db, row, view);
  return requirePlan(scope, plan.id);
}

// ---- reads -----------------------------------------------------------------------------------

export function listPlans(scope: TenantScope, filter: { status?: string; asset_id?: string }, page: PageRequest): Promise<Page<PlanRow>> {
  return paginate(plansQuery(scope, filter), page);
}

export async function listCounterReadings(scope: TenantScope, planId: string, page: PageRequest): Promise<Page<CounterReadingRow>> {
  const plan = await requirePlan(scope, planId);
  return paginate(counterReadingsQuery(scope, plan.id), page);
}

export async function listExecutions(scope: TenantScope, planId: string, page: PageRequest): Promise<Page<ExecutionListRow>> {
  const plan = await requirePlan(scope, planId);
  return paginate(executionsQuery(scope, plan.id), page);
}

export interface PlanPreviewParts {
  plan: PlanRow;
  preview: PlanPreview;
  openTasks: number;
  nextTaskCode: string;
}

/** What the next execution would generate: the workflow's query, the open tasks and the next code. */
export async function previewPlan(deps: PlanDeps, scope: TenantScope, planId: string): Promise<PlanPreviewParts> {
  const plan = await requirePlan(scope, planId);
  const [preview, open, code] = await Promise.all([
    callPlanWorkflow(deps, plan, (c) => queryPlanPreview(c, scope.tenantId, plan.id)),
    countOpenTasks(deps.db, scope.tenantId, plan.id),
    peekTaskCode(deps.db, scope.tenantId, plan.task_prefix),
  ]);
  return { plan, preview, openTasks: open.count, nextTaskCode: code };
}

// ---- changes ---------------------------------------------------------------------------------

/**
 * The row is inserted in a unit, the workflow started, and only then the unit commits: Temporal
 * down → rollback → 503 and no row. The start runs in the transaction (the only exception to
 * "no Temporal call in a transaction", docs/decisions/plan-create-starts-its-workflow.md): the new row is invisible to every other
 * transaction and locks nothing they wait on, and the call deadline bounds the connection's hold.
 * A workflow whose row did not commit is terminated.
 */
export async function createPlan(deps: PlanDeps, context: UserUnitContext, fields: PlanFields): Promise<PlanRow> {
  const { tenantId } = context;
  let started: { planId: string } | null = null;
  try {
    return await runUnit(deps.db, context, async (unit) => {
      await checkReferences(unit.scope, fields);
      await checkConditionTrigger(unit.scope, fields.trigger as Trigger, fields.asset_ids ?? []);
      await assertWithinPlanLimit(unit.tx, tenantId, 'maintenance_plans', countLivePlans(tenantId));
      const id = randomUUID();
      const [inserted] = (await unit.scope.insert('maintenance_plans', { ...planColumns(fields), id, created_by: context.userId })) as PlanRow[];
      const state = workflowStateOf(inserted!, new Date());
      const snapshot = snapshotOf(state, new Date());
      await saveScheduleSnapshot(unit.tx, tenantId, id, snapshot);
      unit.audit({ action: 'maintenance_plan.created', resourceType: 'maintenance_plan', resourceId: id, details: { fields: Object.keys(fields) } });
      await callTemporal(deps.temporal, "could not start the plan's workflow", (client) => startPlanWorkflow(client, state));
      started = { planId: id };
      return (await findPlan(unit.scope, id)) as PlanRow;
    });
  } catch (err) {
    // The workflow runs but its row did not commit: stop it rather than leave it to time out.
    const orphan = started as { planId: string } | null;
    if (orphan)
      await callTemporal(deps.temporal, 'terminate', (client) => planHandle(client, tenantId, orphan.planId).terminate('plan creation rolled back')).catch(() => undefined);
    throw err;
  }
}

/**
 * The fields sent change, committed first; then a changed trigger or policy reaches the workflow
 * (no row lock waits on Temporal), and the answer is its state. The signal carries the row's new
 * version and the workflow applies only a newer one, so concurrent edits converge on the last
 * committed. Temporal down after the commit: 503 saying the change is saved but not yet applied;
 * the same request again (a newer version) applies it.
 */
export async function updatePlan(deps: PlanDeps, context: UnitContext, planId: string, fields: PlanFields): Promise<PlanRow> {
  const { tenantId } = context;
  const { row, change } = await runUnit(deps.db, context, async (unit) => {
    const plan = await lockLivePlan(unit.tx, tenantId, planId);
    await checkReferences(unit.scope, fields);
    if (fields.trigger !== undefined || fields.asset_ids !== undefined) await checkConditionTrigger(unit.scope, fields.trigger ?? plan.trigger, fields.asset_ids ?? plan.asset_ids);
    const updated = await updatePlanRow(unit.scope, plan.id, { ...planColumns(fields), version: plan.version + 1, updated_at: new Date() });
    unit.audit({ action: 'maintenance_plan.updated', resourceType: 'maintenance_plan', resourceId: plan.id, details: { fields: Object.keys(fields), version: updated.version } });
    // Any policy field sent is signalled, changed or not: a repeat of an update whose signal was
    // lost (503 after the commit) then reaches the workflow. An unchanged trigger keeps the schedule.
    const namesPolicy = POLICY_FIELDS.some((field) => fields[field] !== undefined);
    return { row: updated, change: namesPolicy ? { version: updated.version, policy: policyOf(updated) } : null };
  });
  if (!change) return row;
  await signalOrFail(deps, row, { kind: 'planChanged', change }).catch((err: AppError) => {
    throw dependencyUnavailable('temporal', `the change is saved (version ${row.version}) but the plan's schedule has not taken it yet; send it again: ${err.message}`);
  });
  return withWorkflowState(deps, row);
}

/**
 * The plan is archived and its workflow ends; its history and tasks are kept. The workflow hears
 * it first (archive is idempotent), then the row is archived in a short unit: Temporal down → 503
 * and the plan stays.
 */
export async function deletePlan(deps: PlanDeps, context: UnitContext, planId: string): Promise<void> {
  const plan = await requirePlan(tenantScope(deps.db, context.tenantId), planId);
  await signalOrFail(deps, plan, { kind: 'archive' });
  await runUnit(deps.db, context, async (unit) => {
    const row = await lockLivePlan(unit.tx, context.tenantId, plan.id);
    const now = new Date();
    await updatePlanRow(unit.scope, row.id, { status: 'archived', deleted_at: now, updated_at: now, next_due_at: null, version: row.version + 1 });
    unit.audit({ action: 'maintenance_plan.deleted', resourceType: 'maintenance_plan', resourceId: row.id });
  });
}

/**
 * Pause or resume: the signal first (sent even when the status is already the target: it costs
 * nothing and heals a workflow that drifted), with the call deadline and no transaction open; then
 * the row in a short unit. Temporal down → 503 and nothing changed. The answer is the workflow's state.
 */
export async function setPlanRunning(deps: PlanDeps, context: UnitContext, planId: string, kind: 'pause' | 'resume'): Promise<PlanRow> {
  const target = kind === 'pause' ? 'paused' : 'active';
  const found = await requirePlan(tenantScope(deps.db, context.tenantId), planId);
  await signalOrFail(deps, found, { kind });
  const plan = await runUnit(deps.db, context, async (unit) => {
    const row = await lockLivePlan(unit.tx, context.tenantId, found.id);
    const changed = row.status !== target;
    if (changed) {
      await unit.scope.table('maintenance_plans').where('id', row.id).update({ status: target, updated_at: new Date() });
      unit.emit(kind === 'pause' ? 'maintenance.plan.paused' : 'maintenance.plan.resumed', { plan_id: row.id });
    }
    unit.audit({ action: `maintenance_plan.${kind}d`, resourceType: 'maintenance_plan', resourceId: row.id, details: { changed } });
    return row;
  });
  return withWorkflowState(deps, plan);
}

export interface ExecutionAnswer {
  task_id: string;
  task_code: string;
  next_due_at: string | null;
}

/**
 * Generates the plan's task now. The Update on the workflow goes first, with no transaction open
 * (no row lock waits on Temporal), then the task is written. Every call without an idempotency key
 * is a new execution (SPEC.md: "the task is generated immediately"); a retry with the same key
 * answers the first.
 */
export async function executePlanNow(deps: PlanDeps, context: UserUnitContext, planId: string, idempotencyKey: string | null): Promise<ExecutionAnswer> {
  const { tenantId, userId } = context;
  const request = { requestId: idempotencyKey ?? unkeyedExecuteRequestId(), userId, taskId: randomUUID(), at: new Date() };
  // The plan's read overlaps the Update rather than preceding it (a round trip off every execute):
  // the workflow id is the tenant's own, so another tenant's plan id reaches no workflow, and a
  // plan the read does not find is a 404 whatever the Update answered.
  const planRead = requirePlan(tenantScope(deps.db, tenantId), planId);
  const [read, update] = await Promise.allSettled([
    planRead,
    callPlanWorkflowLoading(
      deps,
      planId,
      () => planRead,
      (c) => executePlan(c, tenantId, planId, { requestId: request.requestId, executedBy: userId, taskId: request.taskId, dueAt: request.at.toISOString() }),
    ),
  ]);
  if (read.status === 'rejected') throw read.reason;
  if (update.status === 'rejected') throw update.reason;
  const [plan, answered] = [read.value, update.value];
  const result = await runUnit(deps.db, context, async (unit) => {
    // The lock reads the request's earlier execution too, and the writes are one statement:
    // this transaction was 12 sequential round trips, now 7 (3 of them the audit's).
    const locked = await lockPlanForManualExecution(unit.tx, tenantId, plan.id, request.requestId);
    if (!locked || locked.plan.deleted_at !== null) throw notFound('maintenance plan');
    const done = await recordManualExecution(unit.tx, locked.plan, request, answered, locked.earlier);
    const action = done.repeated ? 'maintenance_plan.execute_repeated' : 'maintenance_plan.executed';
    unit.audit({ action, resourceType: 'maintenance_plan', resourceId: plan.id, details: { task_id: done.task_id, execution_id: done.execution_id } });
    return done;
  });
  return { task_id: result.task_id, task_code: result.task_code, next_due_at: result.next_due_at };
}

export interface QueuedTestNotification {
  notificationId: string;
  recipients: PlanRecipient[];
  /** False when the start failed: the worker's reconciler delivers the committed row later. */
  deliveryStarted: boolean;
}

/** A test notification to the plan's recipients, queued now (422 when it has none). */
export async function sendTestNotification(deps: Pick<PlanDeps, 'db' | 'temporal'>, context: UnitContext, planId: string): Promise<QueuedTestNotification> {
  const { tenantId } = context;
  const plan = await requirePlan(tenantScope(deps.db, tenantId), planId);
  const recipients = await planRecipients(deps.db, plan);
  if (recipients.length === 0) {
    throw new AppError('PLAN_HAS_NO_RECIPIENTS', 'the plan has no active recipient: set notify.recipients or assignee_id', {}, 422);
  }
  const queued = await runUnit(deps.db, context, async (unit) => {
    const row = await insertNotification(unit.tx, {
      tenantId,
      category: 'maintenance.test',
      recipients: recipients.map((r) => r.email),
      ...planNotificationText(plan, 'test', isoTime(plan.next_due_at)),
    });
    unit.audit({
      action: 'maintenance_plan.test_notification',
      resourceType: 'maintenance_plan',
      resourceId: plan.id,
      details: { notification_id: row.id, recipients: recipients.map((r) => r.user_id) },
    });
    return row;
  });
  const deliveryStarted = await startNotificationDelivery(deps.temporal, tenantId, queued.id).then(
    () => true,
    () => false,
  );
  return { notificationId: queued.id, recipients, deliveryStarted };
}

export interface CounterReading {
  value: number;
  /** Free text: it stays in PostgreSQL; the Update (and so the history) carries its reference. */
  source: string;
  reset: boolean;
  requestId: string;
  origin: CounterRequest['origin'];
}

/** A counter reading through the plan's workflow (an Update); reaching the threshold executes the plan. */
export async function recordCounterReading(deps: PlanDeps, scope: TenantScope, planId: string, reading: CounterReading): Promise<{ counter: string; result: CounterResult }> {
  const plan = await requirePlan(scope, planId);
  const part = counterPartOf(plan.trigger);
  if (!part) throw new AppError('PLAN_HAS_NO_COUNTER', 'the plan has no counter trigger', {}, 422);
  const sourceRef = await counterSourceRef(deps.db, scope.tenantId, reading.source);
  const result = await callPlanWorkflow(deps, plan, (c) =>
    recordCounter(c, scope.tenantId, plan.id, { requestId: reading.requestId, value: reading.value, source: sourceRef, reset: reading.reset, origin: reading.origin }),
  );
  return { counter: part.counter, result };
}
