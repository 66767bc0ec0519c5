/**
 * Work orders and compliance, without HTTP: list, read, the start/complete/cancel transitions
 * (a completed inspection records its condition on the task's assets) and SMRP-style compliance.
 * api/routes/maintenance-tasks.ts is the HTTP face.
 */
import { recordInspection } from './asset-monitoring/inspection';
import { findTask, type TaskRow } from '../db/queries/maintenance';
import { lockTask, planTasksDue, TaskFilter, tasksQuery, updateTask } from '../db/queries/maintenance-tasks';
import type { TenantScope } from '../db/tenant-scope';
import type { Unit } from '../db/unit-of-work';
import type { Condition } from '../domain/assets/health';
import { computePlanCompliance, type CompliancePeriod, type PlanComplianceMetrics, type TaskStatus } from '../domain/maintenance';
import { isoTime } from '../domain/time';
import { invalidState, validationError } from '../domain/errors';
import { findOr404 } from '../db/find-or-404';
import { paginate, type Page, type PageRequest } from '../db/pagination';

export type TaskAction = 'start' | 'complete' | 'cancel';

/** Which statuses each action leaves from, and the one it leads to. */
export const TASK_TRANSITIONS: Record<TaskAction, { from: TaskStatus[]; to: TaskStatus }> = {
  start: { from: ['open'], to: 'in_progress' },
  complete: { from: ['open', 'in_progress'], to: 'done' },
  cancel: { from: ['open', 'in_progress'], to: 'cancelled' },
};

export function listTasks(scope: TenantScope, filter: TaskFilter, page: PageRequest): Promise<Page<TaskRow>> {
  return paginate(tasksQuery(scope, filter), page);
}

export function requireTask(scope: TenantScope, id: string): Promise<TaskRow> {
  return findOr404('maintenance task', id, () => findTask(scope, id));
}

/** An inspection is completed with its result; any other task has none to give. */
function assertInspectionResult(task: TaskRow, condition: Condition | undefined): void {
  if (task.kind === 'inspection' && condition === undefined) {
    throw validationError('an inspection is completed with its condition (good, fair, poor or critical)', [
      { field: 'body.condition', message: 'is required to complete an inspection', type: 'any.required' },
    ]);
  }
  if (task.kind !== 'inspection' && condition !== undefined) {
    throw validationError(`condition is the result of an inspection; this task is ${task.kind}`, [
      { field: 'body.condition', message: 'applies to inspection tasks only', type: 'any.unknown' },
    ]);
  }
}

/** Moves a task by `action` (409 from any other status); completing emits task.completed. */
export async function transitionTask(unit: Unit, userId: string, taskId: string, action: TaskAction, input: { notes?: string; condition?: Condition }): Promise<TaskRow> {
  const { from, to } = TASK_TRANSITIONS[action];
  const task = await requireTask(unit.scope, taskId);
  const locked = await lockTask(unit.scope, task.id);
  if (!from.includes(locked.status)) throw invalidState(`the task is ${locked.status}; only a task ${from.join(' or ')} can be ${to}`);
  if (action === 'complete') assertInspectionResult(locked, input.condition);
  const now = new Date();
  const change: Record<string, unknown> = { status: to, updated_at: now, ...(input.notes !== undefined ? { notes: input.notes } : {}) };
  if (action === 'start') change.started_at = now;
  if (action === 'complete') Object.assign(change, { completed_at: now, completed_by: userId });
  if (action === 'cancel') change.cancelled_at = now;
  const updated = await updateTask(unit.scope, task.id, change);
  // SPEC.md: the condition is recalculated each time an inspection is completed.
  const inspectionIds: string[] = [];
  if (action === 'complete' && locked.kind === 'inspection' && input.condition) {
    for (const assetId of locked.asset_ids) {
      const inspection = await recordInspection(unit, assetId, { performed_at: now, condition: input.condition, notes: input.notes ?? null, recorded_by: userId }, now);
      inspectionIds.push(inspection.id);
    }
  }
  const inspected = inspectionIds.length > 0 ? { inspection_ids: inspectionIds, condition: input.condition } : {};
  unit.audit({
    action: `maintenance_task.${to}`,
    resourceType: 'maintenance_task',
    resourceId: task.id,
    details: { from: locked.status, plan_id: task.plan_id, ...inspected },
  });
  if (action === 'complete') {
    unit.emit('task.completed', {
      task_id: task.id,
      task_code: task.task_code,
      plan_id: task.plan_id,
      asset_id: task.asset_ids[0] ?? null,
      asset_ids: task.asset_ids,
      due_at: isoTime(task.due_at),
      completed_at: now.toISOString(),
    });
  }
  return updated;
}

/** Compliance of the plans with tasks due in the period (of one plan when given). */
export async function planCompliance(scope: TenantScope, period: CompliancePeriod, planId?: string): Promise<PlanComplianceMetrics & { total_tasks: number }> {
  const rows = await planTasksDue(scope, period, planId);
  const metrics = computePlanCompliance(
    rows.map((r) => ({ plan_id: r.plan_id, due_at: r.due_at, completed_at: r.completed_at, status: r.status, interval_hours: Number(r.interval_hours ?? 0) })),
    new Date(),
  );
  return { ...metrics, total_tasks: rows.length };
}
