/**
 * Maintenance plans and tasks in PostgreSQL: the reads the API answers from, and the writes the
 * plan workflow's activities make (one transaction per execution: gap-free task code, task,
 * execution history row, outbox event, plan read model).
 */
import { randomUUID } from 'node:crypto';
import { Knex } from 'knex';
import { appendAudit, Actor } from '../audit';
import { Queryable } from '../knex';
import { appendEvent } from '../outbox';
import { isUuid, TenantScope } from '../tenant-scope';
import { graceDeadlineSql } from './grace-deadline-sql';
import {
  actionOnDue,
  DEFAULT_GENERATE_AHEAD,
  DEFAULT_ON_OPEN_TASK,
  formatTaskCode,
  TASK_CODE_DIGITS,
  type ExecutedBy,
  type ExecutionTrigger,
  type IsoTimestamp,
  type NotifySettings,
  type OnOpenTask,
  type SchedulePolicy,
  type TaskStatus,
  type Trigger,
} from '../../domain/maintenance';
import { isoTime } from '../../domain/time';

export const PLAN_STATUSES = ['active', 'paused', 'archived'] as const;
export type PlanStatus = (typeof PLAN_STATUSES)[number];
export const PRIORITIES = ['low', 'medium', 'high', 'critical'] as const;
export type Priority = (typeof PRIORITIES)[number];
export const TASK_KINDS = ['preventive', 'corrective', 'inspection'] as const;
/** Plans generate preventive tasks or inspections; corrective tasks come from alerts and agents. */
export const PLAN_TASK_KINDS = ['preventive', 'inspection'] as const;
export type PlanTaskKind = (typeof PLAN_TASK_KINDS)[number];
export type TaskKind = (typeof TASK_KINDS)[number];

export interface PlanRow {
  id: string;
  tenant_id: string;
  name: string;
  description: string | null;
  status: PlanStatus;
  asset_ids: string[];
  trigger: Trigger;
  checklist: string[];
  assignee_id: string | null;
  priority: Priority;
  estimated_minutes: number | null;
  /** The kind of the tasks the plan generates. */
  task_kind: PlanTaskKind;
  task_prefix: string;
  notify: NotifySettings | null;
  on_open_task: OnOpenTask;
  generate_ahead: string;
  next_due_at: Date | null;
  next_due_trigger: ExecutionTrigger | null;
  interval_hours: string | number | null;
  schedule_seq: string | number;
  version: number;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

export interface TaskRow {
  id: string;
  tenant_id: string;
  plan_id: string | null;
  asset_ids: string[];
  task_code: string;
  title: string;
  checklist: string[];
  assignee_id: string | null;
  priority: Priority;
  estimated_minutes: number | null;
  status: TaskStatus;
  kind: TaskKind;
  trigger: ExecutionTrigger | null;
  /** What a condition or predictive decision saw (null for calendar, counter and user executions). */
  evidence: Record<string, unknown> | null;
  due_at: Date;
  interval_hours: string | number | null;
  started_at: Date | null;
  completed_at: Date | null;
  completed_by: string | null;
  cancelled_at: Date | null;
  overdue_at: Date | null;
  notes: string | null;
  created_at: Date;
  updated_at: Date;
}

/** The plan's scheduling policy, as its workflow holds it. */
export function policyOf(plan: Pick<PlanRow, 'trigger' | 'on_open_task' | 'generate_ahead' | 'notify'>): SchedulePolicy {
  return {
    trigger: plan.trigger,
    on_open_task: plan.on_open_task ?? DEFAULT_ON_OPEN_TASK,
    generate_ahead: plan.generate_ahead ?? DEFAULT_GENERATE_AHEAD,
    notify: plan.notify ?? null,
  };
}

/** A live (not deleted) plan of the scope's tenant. */
export function findPlan(scope: TenantScope, planId: string): Promise<PlanRow | undefined> {
  return scope.table('maintenance_plans').where('id', planId).whereNull('deleted_at').first();
}

/** The plan row locked for the rest of the transaction (deleted ones too: the caller decides). */
export function lockPlan(tx: Knex.Transaction, tenantId: string, planId: string): Promise<PlanRow | undefined> {
  return tx('maintenance_plans').where({ tenant_id: tenantId, id: planId }).forUpdate().first();
}

export function findTask(scope: TenantScope, taskId: string): Promise<TaskRow | undefined> {
  return scope.table('maintenance_tasks').where('id', taskId).first();
}

/** What the workflow's schedule looks like from outside: the plan row's read model. */
export interface ScheduleSnapshot {
  /** Monotonic per plan: a snapshot never overwrites a newer one. */
  seq: number;
  next_due_at: IsoTimestamp | null;
  next_due_trigger: ExecutionTrigger | null;
  interval_hours: number | null;
}

/** Writes the snapshot unless a newer one is already stored. Returns whether it was written. */
export async function saveScheduleSnapshot(db: Queryable, tenantId: string, planId: string, s: ScheduleSnapshot): Promise<boolean> {
  const n = await db('maintenance_plans')
    .where({ tenant_id: tenantId, id: planId })
    .where('schedule_seq', '<', s.seq)
    .update({ schedule_seq: s.seq, next_due_at: s.next_due_at, next_due_trigger: s.next_due_trigger, interval_hours: s.interval_hours });
  return n > 0;
}

/**
 * The next number of (tenant, prefix), gap-free: the counter row is updated in the caller's
 * transaction, so concurrent allocations queue on its row lock and a rollback returns the number.
 */
export async function allocateTaskCode(tx: Knex.Transaction, tenantId: string, prefix: string): Promise<string> {
  const { rows } = await tx.raw(
    `insert into maintenance_task_sequences as s (tenant_id, prefix, next) values (?, ?, 2)
     on conflict (tenant_id, prefix) do update set next = s.next + 1
     returning s.next - 1 as number`,
    [tenantId, prefix],
  );
  return formatTaskCode(prefix, Number(rows[0].number));
}

/** The code the next task of the prefix would get, without taking it (preview). */
export async function peekTaskCode(db: Queryable, tenantId: string, prefix: string): Promise<string> {
  const row = await db('maintenance_task_sequences').where({ tenant_id: tenantId, prefix }).first('next');
  return formatTaskCode(prefix, row ? Number(row.next) : 1);
}

export async function countOpenTasks(db: Queryable, tenantId: string, planId: string): Promise<{ count: number; oldest: string | null }> {
  const rows = await db('maintenance_tasks')
    .where({ tenant_id: tenantId, plan_id: planId })
    .whereIn('status', ['open', 'in_progress'])
    .orderBy([{ column: 'due_at' }, { column: 'id' }])
    .select('id');
  return { count: rows.length, oldest: rows[0]?.id ?? null };
}

export interface ExecutionRequest {
  /** Idempotency key of the execution within the plan: the due time served, or the API request id. */
  key: string;
  trigger: ExecutionTrigger;
  executedBy: ExecutedBy;
  executedAt: IsoTimestamp;
  dueAt: IsoTimestamp;
  /** The plan's policy for a due time while a task is open; null = always create (a user's execute). */
  onOpenTask: OnOpenTask | null;
  thresholdsCrossed?: number;
  intervalHours: number | null;
  /** The new task's id when the caller chose it beforehand (a user's execute sends it to the workflow meanwhile). */
  taskId?: string;
  /** What a condition decision saw: stored on the history row and the task, sent in `task.created`. */
  evidence?: Record<string, unknown>;
}

/** `repeated`: the execution of this key existed already (a retried call); nothing was written. */
export type ExecutionOutcome =
  | { outcome: 'created'; execution_id: string; task_id: string; task_code: string; due_at: IsoTimestamp; repeated?: true }
  | { outcome: 'skipped'; execution_id: string; kept_task_id: string | null; repeated?: true };

/**
 * One execution of a locked, live plan: the task with its gap-free code (or a skip when the
 * plan's previous task is still open and the policy says skip), its history row and the outbox
 * event. Idempotent by (plan, key): a repeat answers what the first one did.
 */
/** The `task.created` event of a plan execution, but for the task's id and code. */
function taskCreatedData(plan: Pick<PlanRow, 'id' | 'asset_ids'>, req: Pick<ExecutionRequest, 'dueAt' | 'trigger' | 'executedBy' | 'evidence'>) {
  return {
    plan_id: plan.id,
    asset_id: plan.asset_ids[0] ?? null,
    asset_ids: plan.asset_ids,
    due_at: req.dueAt,
    trigger: req.trigger,
    executed_by: req.executedBy === 'system' ? 'system' : 'user',
    ...(req.evidence ? { evidence: req.evidence } : {}),
  };
}

/** The history row's columns of an execution request (both outcomes add theirs). */
function executionColumns(plan: Pick<PlanRow, 'id' | 'tenant_id'>, req: ExecutionRequest) {
  return {
    tenant_id: plan.tenant_id,
    plan_id: plan.id,
    trigger: req.trigger,
    executed_at: req.executedAt,
    executed_by: req.executedBy,
    due_at: req.dueAt,
    thresholds_crossed: req.thresholdsCrossed ?? null,
    idempotency_key: req.key,
    evidence: req.evidence ? JSON.stringify(req.evidence) : null,
  };
}

export async function executePlanInTx(tx: Knex.Transaction, plan: PlanRow, req: ExecutionRequest): Promise<ExecutionOutcome> {
  const tenantId = plan.tenant_id;
  const previous = await tx('maintenance_executions').where({ tenant_id: tenantId, plan_id: plan.id, idempotency_key: req.key }).first();
  if (previous) return outcomeOf(tx, previous);

  // A user's execute always creates: the open tasks only matter to a due time.
  const open = req.onOpenTask === null ? { count: 0, oldest: null } : await countOpenTasks(tx, tenantId, plan.id);
  const action = req.onOpenTask === null ? 'create_task' : actionOnDue(req.onOpenTask, open.count);
  const common = executionColumns(plan, req);
  if (action === 'skip') {
    const [row] = await tx('maintenance_executions')
      .insert({ ...common, outcome: 'skipped', kept_task_id: open.oldest })
      .returning('execution_id');
    return { outcome: 'skipped', execution_id: row.execution_id, kept_task_id: open.oldest };
  }
  const taskCode = await allocateTaskCode(tx, tenantId, plan.task_prefix);
  const [task] = await tx('maintenance_tasks')
    .insert({
      ...(req.taskId ? { id: req.taskId } : {}),
      tenant_id: tenantId,
      plan_id: plan.id,
      asset_ids: plan.asset_ids,
      task_code: taskCode,
      title: plan.name,
      checklist: JSON.stringify(plan.checklist ?? []),
      assignee_id: plan.assignee_id,
      priority: plan.priority,
      estimated_minutes: plan.estimated_minutes,
      kind: plan.task_kind,
      trigger: req.trigger,
      evidence: req.evidence ? JSON.stringify(req.evidence) : null,
      due_at: req.dueAt,
      interval_hours: req.intervalHours,
    })
    .returning(['id', 'task_code']);
  const [execution] = await tx('maintenance_executions')
    .insert({ ...common, outcome: 'created', task_id: task.id })
    .returning('execution_id');
  await appendEvent(tx, {
    tenantId,
    type: 'task.created',
    source: 'worker',
    data: { task_id: task.id, task_code: task.task_code, ...taskCreatedData(plan, req) },
  });
  return { outcome: 'created', execution_id: execution.execution_id, task_id: task.id, task_code: task.task_code, due_at: req.dueAt };
}

async function outcomeOf(
  db: Queryable,
  execution: { execution_id: string; outcome: string; task_id: string | null; kept_task_id: string | null; due_at: Date | null },
): Promise<ExecutionOutcome> {
  if (execution.outcome === 'skipped') return { outcome: 'skipped', execution_id: execution.execution_id, kept_task_id: execution.kept_task_id, repeated: true };
  const task = await db('maintenance_tasks').where({ id: execution.task_id }).first('id', 'task_code', 'due_at');
  return { outcome: 'created', execution_id: execution.execution_id, task_id: task.id, task_code: task.task_code, due_at: isoTime(task.due_at), repeated: true };
}

/**
 * A due time's execution of a locked, live plan (the plan workflow's `executePlan`), in two
 * statements after the lock (issue 19; `executePlanInTx` takes six): one read of the earlier
 * execution of the key and of the plan's open tasks, taken after the lock so it sees every
 * committed execution; then either the skip, or the task with its gap-free code, history row,
 * event and snapshot as one statement (`insertManualExecution`), so the tenant's sequence row is
 * locked from that statement to COMMIT only, not across five round trips. Idempotent by
 * (plan, key): a repeat answers what the first one did and writes only a newer snapshot.
 */
export async function executeDueInTx(tx: Knex.Transaction, plan: PlanRow, req: ExecutionRequest, snapshot: ScheduleSnapshot): Promise<ExecutionOutcome> {
  const { rows } = await tx.raw(
    `select e.execution_id, e.outcome, e.task_id, e.kept_task_id, t.task_code, t.due_at as task_due_at, o.open_count, o.oldest_open
       from (select count(*)::int as open_count, (array_agg(id order by due_at, id))[1] as oldest_open
               from maintenance_tasks where tenant_id = :tenant and plan_id = :plan and status in ('open', 'in_progress')) o
       left join maintenance_executions e on e.tenant_id = :tenant and e.plan_id = :plan and e.idempotency_key = :key
       left join maintenance_tasks t on t.id = e.task_id`,
    { tenant: plan.tenant_id, plan: plan.id, key: req.key },
  );
  const found = rows[0];
  if (found.execution_id) {
    await saveScheduleSnapshot(tx, plan.tenant_id, plan.id, snapshot);
    return found.outcome === 'skipped'
      ? { outcome: 'skipped', execution_id: found.execution_id, kept_task_id: found.kept_task_id, repeated: true }
      : { outcome: 'created', execution_id: found.execution_id, task_id: found.task_id, task_code: found.task_code, due_at: isoTime(found.task_due_at), repeated: true };
  }
  const action = req.onOpenTask === null ? 'create_task' : actionOnDue(req.onOpenTask, found.open_count);
  if (action === 'skip') {
    const [row] = await tx('maintenance_executions')
      .insert({
        ...executionColumns(plan, req),
        outcome: 'skipped',
        kept_task_id: found.oldest_open,
      })
      .returning('execution_id');
    await saveScheduleSnapshot(tx, plan.tenant_id, plan.id, snapshot);
    return { outcome: 'skipped', execution_id: row.execution_id, kept_task_id: found.oldest_open };
  }
  const created = await insertManualExecution(tx, plan, { ...req, taskId: req.taskId ?? randomUUID() }, snapshot);
  // Null only if the key was taken after the read, which the plan's lock rules out.
  if (!created) throw new Error(`execution ${req.key} of plan ${plan.id} appeared under the plan lock`);
  return { outcome: 'created', ...created, due_at: req.dueAt };
}

/** The audit record of a user's action carried out by the workflow, in the activity's transaction. */
export function auditInTx(tx: Knex.Transaction, tenantId: string, actor: Actor, requestId: string, action: string, planId: string, details: Record<string, unknown>) {
  return appendAudit(tx, { tenantId, actor, requestId, action, resourceType: 'maintenance_plan', resourceId: planId, details });
}

export interface PlanRecipient {
  user_id: string;
  email: string;
}

/** Active users of the tenant the plan notifies: its notify recipients and its assignee. */
export async function planRecipients(db: Queryable, plan: Pick<PlanRow, 'tenant_id' | 'notify' | 'assignee_id'>): Promise<PlanRecipient[]> {
  const ids = [...new Set([...(plan.notify?.recipients ?? []), ...(plan.assignee_id ? [plan.assignee_id] : [])])];
  if (ids.length === 0) return [];
  const rows = await db('users').where({ tenant_id: plan.tenant_id, status: 'active' }).whereIn('id', ids).orderBy('id').select('id', 'email');
  return rows.map((r: { id: string; email: string }) => ({ user_id: r.id, email: r.email }));
}

/** Subject and text of a plan notification (kept in the notification row, never in workflow history). */
export function planNotificationText(plan: Pick<PlanRow, 'name' | 'id'>, kind: 'lead_time' | 'test', dueAt: IsoTimestamp | null) {
  const due = dueAt ? ` is due at ${dueAt}` : ' has no due time yet';
  if (kind === 'test') {
    return {
      subject: `[Test] Maintenance plan "${plan.name}"`,
      body: `This is a test notification of maintenance plan "${plan.name}" (${plan.id}). The plan${due}.`,
    };
  }
  return {
    subject: `Maintenance due: ${plan.name}`,
    body: `Maintenance plan "${plan.name}" (${plan.id})${due}. Its task will be created at that time.`,
  };
}

/** Tasks of the plan open past their grace deadline (the compliance rule), marked once each. */
export async function markOverdueInTx(tx: Knex.Transaction, tenantId: string, planId: string, now: Date): Promise<TaskRow[]> {
  const deadline = graceDeadlineSql();
  const rows: TaskRow[] = await tx('maintenance_tasks')
    .where({ tenant_id: tenantId, plan_id: planId })
    .whereIn('status', ['open', 'in_progress'])
    .whereNull('overdue_at')
    .whereRaw(`${deadline.sql} <= ?`, [...deadline.bindings, now.toISOString()])
    .update({ overdue_at: now, updated_at: now })
    .returning('*');
  for (const task of rows) {
    await appendEvent(tx, {
      tenantId,
      type: 'task.overdue',
      source: 'worker',
      data: { task_id: task.id, task_code: task.task_code, plan_id: planId, asset_id: task.asset_ids[0] ?? null, asset_ids: task.asset_ids, due_at: isoTime(task.due_at) },
    });
  }
  return rows;
}

/** A user's execution already recorded under its key (a retried request): its task. */
export interface EarlierManualExecution {
  execution_id: string;
  task_id: string;
  task_code: string;
}

/**
 * The live-or-deleted plan row locked, and the execution already recorded under `key` if any, in
 * one round trip (issue 19: the execute path's transaction was a chain of sequential statements).
 */
export async function lockPlanWithExecution(
  tx: Knex.Transaction,
  tenantId: string,
  planId: string,
  key: string,
): Promise<{ plan: PlanRow; earlier: EarlierManualExecution | null } | undefined> {
  const { rows } = await tx.raw(
    `select p.*, e.execution_id as earlier_execution_id, t.id as earlier_task_id, t.task_code as earlier_task_code
       from maintenance_plans p
       left join maintenance_executions e on e.tenant_id = p.tenant_id and e.plan_id = p.id and e.idempotency_key = ?
       left join maintenance_tasks t on t.id = e.task_id
      where p.tenant_id = ? and p.id = ?
      for update of p`,
    [key, tenantId, planId],
  );
  if (rows.length === 0) return undefined;
  const { earlier_execution_id, earlier_task_id, earlier_task_code, ...plan } = rows[0];
  const earlier = earlier_execution_id ? { execution_id: earlier_execution_id, task_id: earlier_task_id, task_code: earlier_task_code } : null;
  return { plan: plan as PlanRow, earlier };
}

/**
 * A user's execution of a locked plan in one statement (issue 19; the due path's
 * `executeDueInTx` creates its tasks with it too): the gap-free code, the task,
 * its history row, the `task.created` outbox event and the plan's schedule snapshot, which
 * `executePlanInTx` and `saveScheduleSnapshot` wrote in six round trips. Same rows, same
 * guarantees: the sequence row is updated in the caller's transaction (gap-free), the event is in
 * the same transaction (its NOTIFY fires at commit), and a snapshot never overwrites a newer one.
 * Null when an execution of `req.key` exists already (a retry): nothing is written but the snapshot.
 */
export async function insertManualExecution(
  tx: Knex.Transaction,
  plan: PlanRow,
  req: Omit<ExecutionRequest, 'onOpenTask' | 'thresholdsCrossed'> & { taskId: string },
  snapshot: ScheduleSnapshot,
): Promise<{ execution_id: string; task_id: string; task_code: string } | null> {
  formatTaskCode(plan.task_prefix, 1); // refuses an invalid prefix, as allocateTaskCode does
  const event = { task_id: req.taskId, ...taskCreatedData(plan, req) };
  const { rows } = await tx.raw(
    // The history row first, and only if its key is new: ON CONFLICT sees a concurrent retry's
    // committed row (the lock's join read an older snapshot), so a race answers as a repeat.
    `with execution as (
       insert into maintenance_executions (tenant_id, plan_id, trigger, executed_at, executed_by, due_at, idempotency_key, outcome, task_id, evidence)
       values (:tenant::uuid, :plan::uuid, :trigger::text, :executedAt::timestamptz, :executedBy::text, :dueAt::timestamptz, :key::text, 'created', :taskId::uuid, :evidence::jsonb)
       on conflict (tenant_id, plan_id, idempotency_key) do nothing
       returning execution_id
     ), code as (
       insert into maintenance_task_sequences as s (tenant_id, prefix, next)
       select :tenant::uuid, :prefix::text, 2 from execution
       on conflict (tenant_id, prefix) do update set next = s.next + 1
       returning :prefix::text || '-' || lpad((s.next - 1)::text, greatest(:digits::int, length((s.next - 1)::text)), '0') as task_code
     ), task as (
       insert into maintenance_tasks (id, tenant_id, plan_id, asset_ids, task_code, title, checklist, assignee_id, priority, estimated_minutes, kind, trigger, due_at, interval_hours, evidence)
       select :taskId::uuid, :tenant::uuid, :plan::uuid, :assetIds::uuid[], code.task_code, :title::text, :checklist::jsonb, :assignee::uuid, :priority::text,
              :minutes::int, :kind::text, :trigger::text, :dueAt::timestamptz, :intervalHours::numeric, :evidence::jsonb
         from code
       returning id, task_code
     ), event as (
       insert into outbox_events (tenant_id, type, data, occurred_at, source)
       select :tenant::uuid, 'task.created', :event::jsonb || jsonb_build_object('task_code', task.task_code), now(), 'worker'
         from task
       returning id
     ), snapshot as (
       update maintenance_plans
          set schedule_seq = :seq::bigint, next_due_at = :nextDueAt::timestamptz, next_due_trigger = :nextDueTrigger::text, interval_hours = :snapshotIntervalHours::numeric
        where tenant_id = :tenant::uuid and id = :plan::uuid and schedule_seq < :seq::bigint
       returning id
     )
     select task.id as task_id, task.task_code, execution.execution_id, (select count(*) from event) as events, (select count(*) from snapshot) as snapshots
       from task, execution`,
    {
      tenant: plan.tenant_id,
      plan: plan.id,
      prefix: plan.task_prefix,
      digits: TASK_CODE_DIGITS,
      taskId: req.taskId,
      assetIds: plan.asset_ids,
      title: plan.name,
      checklist: JSON.stringify(plan.checklist ?? []),
      assignee: plan.assignee_id,
      priority: plan.priority,
      minutes: plan.estimated_minutes,
      kind: plan.task_kind,
      trigger: req.trigger,
      dueAt: req.dueAt,
      intervalHours: req.intervalHours,
      executedAt: req.executedAt,
      executedBy: req.executedBy,
      key: req.key,
      evidence: req.evidence ? JSON.stringify(req.evidence) : null,
      event: JSON.stringify(event),
      seq: snapshot.seq,
      nextDueAt: snapshot.next_due_at,
      nextDueTrigger: snapshot.next_due_trigger,
      snapshotIntervalHours: snapshot.interval_hours,
    },
  );
  const row = rows[0];
  return row ? { execution_id: row.execution_id, task_id: row.task_id, task_code: row.task_code } : null;
}

/** The tenant's live plans, oldest first, filtered (a list query: the caller pages it). */
export function plansQuery(scope: TenantScope, filter: { status?: string; asset_id?: string }): Knex.QueryBuilder {
  const q = scope
    .table('maintenance_plans')
    .whereNull('deleted_at')
    .orderBy([{ column: 'created_at' }, { column: 'id' }]);
  if (filter.status) q.where('status', filter.status);
  if (filter.asset_id) {
    if (isUuid(filter.asset_id)) q.whereRaw('asset_ids @> array[?]::uuid[]', [filter.asset_id]);
    else q.whereRaw('false');
  }
  return q;
}

/** The tenant's live plans: what the plan limit counts. */
export const countLivePlans = (tenantId: string) => async (tx: Knex.Transaction) => {
  const [{ count }] = await tx('maintenance_plans').where({ tenant_id: tenantId }).whereNull('deleted_at').count({ count: '*' });
  return Number(count);
};

export async function updatePlanRow(scope: TenantScope, id: string, changes: Record<string, unknown>): Promise<PlanRow> {
  const [row] = (await scope.table('maintenance_plans').where('id', id).update(changes).returning('*')) as PlanRow[];
  return row!;
}

export interface CounterReadingRow {
  id: string;
  counter: string;
  value: number;
  source: string;
  reset: boolean;
  total: number;
  thresholds_crossed: number;
  task_id: string | null;
  read_at: Date;
}

/** A plan's counter readings, newest first (a list query: the caller pages it). */
export function counterReadingsQuery(scope: TenantScope, planId: string): Knex.QueryBuilder {
  return scope
    .table('maintenance_counter_readings')
    .where('plan_id', planId)
    .orderBy([
      { column: 'read_at', order: 'desc' },
      { column: 'created_at', order: 'desc' },
    ])
    .select('id', 'counter', 'value', 'source', 'reset', 'total', 'thresholds_crossed', 'task_id', 'read_at');
}

export interface ExecutionListRow {
  execution_id: string;
  task_id: string | null;
  task_code: string | null;
  trigger: ExecutionTrigger;
  executed_at: Date;
  executed_by: string;
  outcome: 'created' | 'skipped';
  due_at: Date | null;
  kept_task_id: string | null;
  thresholds_crossed: number | null;
  evidence: Record<string, unknown> | null;
}

/** A plan's executions with their task codes, newest first (a list query: the caller pages it). */
export function executionsQuery(scope: TenantScope, planId: string): Knex.QueryBuilder {
  return scope
    .table('maintenance_executions')
    .leftJoin('maintenance_tasks as t', 't.id', 'maintenance_executions.task_id')
    .where('maintenance_executions.plan_id', planId)
    .orderBy([
      { column: 'maintenance_executions.executed_at', order: 'desc' },
      { column: 'maintenance_executions.execution_id', order: 'desc' },
    ])
    .select('maintenance_executions.*', 't.task_code');
}
