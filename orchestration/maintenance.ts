/**
 * Client side of the maintenance plan workflows: start (idempotent by the business id), signals,
 * updates and queries. Updates carry the API's request id as their update id, so Temporal itself
 * deduplicates a retried call within a run, and the workflow's memory of recent results covers
 * the rest.
 */
import { randomUUID } from 'node:crypto';
import { Client, WorkflowHandle, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { PlanIdKey } from '../infra/search-attributes';
import { startOnce } from './start-once';
import { TASK_QUEUES } from '../infra/task-queues';
import { workflowIds } from '../infra/workflow-ids';
import { Knex } from 'knex';
import { insertManualExecution, lockPlanWithExecution, policyOf, type EarlierManualExecution, type PlanRow } from '../db/queries/maintenance';
import { initialPlanState, manualExecutionTrigger, type PlanPreview, type PlanStateView, type PlanWorkflowState } from '../workflows/maintenance-plan-state';
import {
  applyOptimizationUpdate,
  archiveSignal,
  executeUpdate,
  pauseSignal,
  planChangedSignal,
  previewQuery,
  readingsSignal,
  recordCounterUpdate,
  workOrderCompletedSignal,
  resumeSignal,
  stateQuery,
  type CounterRequest,
  type CounterResult,
  type ExecuteRequest,
  type ExecuteResult,
  type maintenancePlanWorkflow,
  type OptimizationRequest,
  type OptimizationResult,
  type PlanChange,
} from '../workflows/maintenance-plan';

export type PlanWorkflowHandle = WorkflowHandle<typeof maintenancePlanWorkflow>;

export function planWorkflowId(tenantId: string, planId: string): string {
  return workflowIds.maintenancePlan(tenantId, planId);
}

export function planHandle(client: Client, tenantId: string, planId: string): PlanWorkflowHandle {
  return client.workflow.getHandle<typeof maintenancePlanWorkflow>(planWorkflowId(tenantId, planId));
}

/** The first state of a plan's workflow, from its row (creation, and the repair of a missing workflow). */
export function workflowStateOf(row: PlanRow, now: Date): PlanWorkflowState {
  return initialPlanState({
    tenantId: row.tenant_id,
    planId: row.id,
    version: row.version,
    policy: policyOf(row),
    status: row.status === 'paused' ? 'paused' : 'active',
    now,
  });
}

/** Starts the plan's workflow; a second start of the same plan is refused by Temporal and reported. */
export function startPlanWorkflow(client: Client, state: PlanWorkflowState, opts: { restart?: boolean } = {}): Promise<'started' | 'already_started'> {
  return startOnce<typeof maintenancePlanWorkflow>(client, {
    workflowType: 'maintenancePlanWorkflow',
    taskQueue: TASK_QUEUES.main,
    workflowId: planWorkflowId(state.tenantId, state.planId),
    args: [state],
    tenantId: state.tenantId,
    resourceId: state.planId,
    searchAttributes: [[PlanIdKey, state.planId]],
    // A new plan's id has never run. The reconciler restarts a live plan whose run was closed by hand.
    allowRerun: opts.restart,
    staticSummary: `Maintenance plan ${state.planId}`,
  });
}

export type PlanSignal =
  | { kind: 'pause' }
  | { kind: 'resume' }
  | { kind: 'archive' }
  | { kind: 'readings' }
  | { kind: 'workOrderCompleted'; assetId: string | null }
  | { kind: 'planChanged'; change: PlanChange };

export async function signalPlan(client: Client, tenantId: string, planId: string, signal: PlanSignal): Promise<void> {
  const handle = planHandle(client, tenantId, planId);
  switch (signal.kind) {
    case 'pause':
      return handle.signal(pauseSignal);
    case 'resume':
      return handle.signal(resumeSignal);
    case 'archive':
      return handle.signal(archiveSignal);
    case 'readings':
      return handle.signal(readingsSignal);
    case 'workOrderCompleted':
      return handle.signal(workOrderCompletedSignal, { assetId: signal.assetId });
    case 'planChanged':
      return handle.signal(planChangedSignal, signal.change);
  }
}

export function executePlan(client: Client, tenantId: string, planId: string, req: ExecuteRequest): Promise<ExecuteResult> {
  return planHandle(client, tenantId, planId).executeUpdate(executeUpdate, { args: [req], updateId: req.requestId });
}

export interface ManualExecution {
  task_id: string;
  task_code: string;
  execution_id: string;
  next_due_at: string | null;
  /** A retried request: the first call's task. */
  repeated: boolean;
}

/**
 * A user's execute, step two (issue 23): after the Update moved the plan's schedule (the caller
 * made it with a deadline and no transaction open, so no lock is held across Temporal), the task,
 * its history row and event, and the plan's read model, in the caller's short transaction on the
 * locked plan row. Idempotent by request id: a repeat finds its task. If this commit fails after
 * the Update, the client's retry with the same request id gets the Update's first answer from
 * Temporal (or the workflow's memory) and writes the task now: never a second advance.
 */
export async function recordManualExecution(
  tx: Knex.Transaction,
  plan: PlanRow,
  req: { requestId: string; userId: string; taskId: string; at: Date },
  answered: ExecuteResult,
  /** The execution of this request already recorded, as `lockPlanForManualExecution` read it with the lock; looked up when absent. */
  earlier?: EarlierManualExecution | null,
): Promise<ManualExecution> {
  const at = req.at.toISOString();
  const key = manualExecutionKey(req.requestId);
  const found = earlier === undefined ? ((await lockPlanWithExecution(tx, plan.tenant_id, plan.id, key))?.earlier ?? null) : earlier;
  if (found) return { ...found, next_due_at: answered.next_due_at, repeated: true };
  const done = await insertManualExecution(
    tx,
    plan,
    {
      key,
      trigger: manualExecutionTrigger(plan.trigger),
      executedBy: req.userId,
      executedAt: at,
      dueAt: at,
      intervalHours: plan.interval_hours === null ? null : Number(plan.interval_hours),
      taskId: req.taskId,
    },
    answered.snapshot,
  );
  if (done) return { ...done, next_due_at: answered.next_due_at, repeated: false };
  // A concurrent retry of the same request committed while this one waited for the lock.
  const raced = (await lockPlanWithExecution(tx, plan.tenant_id, plan.id, key))?.earlier;
  if (!raced) throw new Error('a user execution always creates its task');
  return { ...raced, next_due_at: answered.next_due_at, repeated: true };
}

/** Step two's lock: the plan row and the execution of this request if it was recorded already, in one round trip. */
export async function lockPlanForManualExecution(
  tx: Knex.Transaction,
  tenantId: string,
  planId: string,
  requestId: string,
): Promise<{ plan: PlanRow; earlier: EarlierManualExecution | null } | undefined> {
  return lockPlanWithExecution(tx, tenantId, planId, manualExecutionKey(requestId));
}

/**
 * The request id of an execute sent without an Idempotency-Key: a new one for every call, so
 * every call is an execution of its own. (An Idempotency-Key's request id is `key:<key>`, so the
 * prefix keeps the two apart.)
 */
export function unkeyedExecuteRequestId(): string {
  return `auto:${randomUUID()}`;
}

/** The execution history's idempotency key of a user's execute. */
const manualExecutionKey = (requestId: string) => `request:${requestId}`;

export function recordCounter(client: Client, tenantId: string, planId: string, req: CounterRequest): Promise<CounterResult> {
  return planHandle(client, tenantId, planId).executeUpdate(recordCounterUpdate, { args: [req], updateId: req.requestId });
}

export function applyOptimization(client: Client, tenantId: string, planId: string, req: OptimizationRequest): Promise<OptimizationResult> {
  return planHandle(client, tenantId, planId).executeUpdate(applyOptimizationUpdate, { args: [req], updateId: req.requestId });
}

export function queryPlanState(client: Client, tenantId: string, planId: string): Promise<PlanStateView> {
  return planHandle(client, tenantId, planId).query(stateQuery);
}

export function queryPlanPreview(client: Client, tenantId: string, planId: string): Promise<PlanPreview> {
  return planHandle(client, tenantId, planId).query(previewQuery);
}

/** How a call to a plan's workflow failed, for the API to answer with the right status. */
export type PlanCallFailure =
  | { kind: 'rejected'; code: string; message: string; details: unknown } // the workflow refused the Update
  | { kind: 'workflow_missing' }
  | { kind: 'unavailable'; message: string };

export function classifyPlanCallError(err: unknown): PlanCallFailure {
  if (err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure) {
    return { kind: 'rejected', code: err.cause.type ?? 'UPDATE_FAILED', message: err.cause.message, details: err.cause.details?.[0] ?? null };
  }
  if (err instanceof WorkflowNotFoundError) return { kind: 'workflow_missing' };
  return { kind: 'unavailable', message: (err as Error)?.message?.split('\n')[0]?.slice(0, 200) ?? 'unknown error' };
}
