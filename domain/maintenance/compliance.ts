// SMRP-style PM compliance (GET /api/v1/maintenance/compliance). A task due in the period is on
// time when completed no later than due_at + 10 % of its plan's interval; otherwise it is overdue.
import type { Instant, TaskStatus } from './types';
import { clampedDate, MS_PER_HOUR, toDate, toMs } from './instant';

export const GRACE_FRACTION = 0.1;
/**
 * Grace of a task whose plan interval is not known (a counter plan before its meter rate is
 * measured): a day, so the task is not overdue the moment it is created.
 */
export const UNKNOWN_INTERVAL_GRACE_HOURS = 24;

export interface ComplianceTask {
  due_at: Instant;
  completed_at: Instant | null;
  interval_hours: number; // the plan's nominal interval (triggerIntervalHours); 0 = unknown
  status: TaskStatus;
}

export type TaskCompliance =
  | { kind: 'on_time' }
  | { kind: 'late'; delay_hours: number } // completed after the grace deadline
  | { kind: 'overdue_open'; delay_hours: number } // not completed and past the grace deadline
  | { kind: 'pending' } // not completed, grace deadline not reached yet: not counted
  | { kind: 'excluded' }; // cancelled: not counted

export interface ComplianceMetrics {
  compliance_rate: number | null; // percent, 2 decimals; null when no task counts (nothing was due)
  on_time_count: number;
  overdue_count: number; // late completions + open tasks past their deadline
  /** SPEC.md: over late executions (completed after the deadline), 2 decimals; null when none. */
  average_delay_hours: number | null;
  pending_count: number;
  cancelled_count: number;
}

/** Hours a task may run past its due time and still count as on time. */
export function graceHours(intervalHours: number): number {
  return intervalHours > 0 ? intervalHours * GRACE_FRACTION : UNKNOWN_INTERVAL_GRACE_HOURS;
}

/** Due + grace; clamped, since a counter plan's interval can be astronomically long (a meter barely moving). */
export function graceDeadline(task: Pick<ComplianceTask, 'due_at' | 'interval_hours'>): Date {
  return clampedDate(toMs(task.due_at) + graceHours(task.interval_hours) * MS_PER_HOUR);
}

export function classifyTask(task: ComplianceTask, now: Instant): TaskCompliance {
  if (task.status === 'cancelled') return { kind: 'excluded' };
  const dueMs = toMs(task.due_at);
  const deadlineMs = graceDeadline(task).getTime();
  if (task.status === 'done' && task.completed_at !== null) {
    const doneMs = toMs(task.completed_at);
    return doneMs <= deadlineMs ? { kind: 'on_time' } : { kind: 'late', delay_hours: (doneMs - dueMs) / MS_PER_HOUR };
  }
  const nowMs = toMs(now);
  return nowMs > deadlineMs ? { kind: 'overdue_open', delay_hours: (nowMs - dueMs) / MS_PER_HOUR } : { kind: 'pending' };
}

/** Metrics over the given tasks (the caller selects the tasks due in the period). */
export function computeCompliance(tasks: ComplianceTask[], now: Instant): ComplianceMetrics {
  let onTime = 0;
  let overdue = 0;
  let pending = 0;
  let cancelled = 0;
  const lateDelays: number[] = [];
  for (const task of tasks) {
    const result = classifyTask(task, now);
    if (result.kind === 'on_time') onTime += 1;
    else if (result.kind === 'pending') pending += 1;
    else if (result.kind === 'excluded') cancelled += 1;
    else {
      overdue += 1;
      // A task still open has no execution yet: its delay is not an execution's delay.
      if (result.kind === 'late') lateDelays.push(result.delay_hours);
    }
  }
  const counted = onTime + overdue;
  return {
    compliance_rate: counted === 0 ? null : round2((onTime / counted) * 100),
    on_time_count: onTime,
    overdue_count: overdue,
    average_delay_hours: average(lateDelays),
    pending_count: pending,
    cancelled_count: cancelled,
  };
}

export interface PlanComplianceTask extends ComplianceTask {
  plan_id: string;
}

/**
 * SPEC.md's compliance metrics, whose unit is the plan: a plan with tasks due in the period is
 * executed on time when every one of them that counts was done by its deadline, and overdue when
 * one was done late or is still open past it. A plan whose due tasks are all pending (deadline not
 * reached) or cancelled does not count yet. `average_delay_hours` is over late executions. The
 * task-level figures are kept beside them.
 */
export interface PlanComplianceMetrics {
  compliance_rate: number | null;
  on_time_count: number;
  overdue_count: number;
  average_delay_hours: number | null;
  pending_count: number;
  total_plans: number;
  tasks: ComplianceMetrics & { total: number };
}

export function computePlanCompliance(tasks: readonly PlanComplianceTask[], now: Instant): PlanComplianceMetrics {
  const byPlan = new Map<string, TaskCompliance['kind'][]>();
  for (const task of tasks) byPlan.set(task.plan_id, [...(byPlan.get(task.plan_id) ?? []), classifyTask(task, now).kind]);
  let onTime = 0;
  let overdue = 0;
  let pending = 0;
  for (const kinds of byPlan.values()) {
    if (kinds.some((k) => k === 'late' || k === 'overdue_open')) overdue += 1;
    else if (kinds.includes('on_time')) onTime += 1;
    else if (kinds.includes('pending')) pending += 1;
  }
  const taskMetrics = computeCompliance([...tasks], now);
  const counted = onTime + overdue;
  return {
    compliance_rate: counted === 0 ? null : round2((onTime / counted) * 100),
    on_time_count: onTime,
    overdue_count: overdue,
    average_delay_hours: taskMetrics.average_delay_hours,
    pending_count: pending,
    total_plans: byPlan.size,
    tasks: { ...taskMetrics, total: tasks.length },
  };
}

function average(values: readonly number[]): number | null {
  return values.length === 0 ? null : round2(values.reduce((a, b) => a + b, 0) / values.length);
}

export interface CompliancePeriod {
  start: Date; // start_date at 00:00:00Z, inclusive
  end: Date; // the day after end_date at 00:00:00Z, exclusive
}

export type PeriodResult = { ok: true; period: CompliancePeriod } | { ok: false; field: 'start_date' | 'end_date'; message: string };

/** Parses the query's YYYY-MM-DD dates; both days are included. Reversed or invalid dates are errors (422). */
export function parseCompliancePeriod(startDate: unknown, endDate: unknown): PeriodResult {
  const start = parseDay(startDate);
  if (!start) return { ok: false, field: 'start_date', message: 'must be a date in the form YYYY-MM-DD' };
  const end = parseDay(endDate);
  if (!end) return { ok: false, field: 'end_date', message: 'must be a date in the form YYYY-MM-DD' };
  if (end.getTime() < start.getTime()) return { ok: false, field: 'end_date', message: 'must not be before start_date' };
  return { ok: true, period: { start, end: new Date(end.getTime() + 24 * MS_PER_HOUR) } };
}

export function isDueInPeriod(dueAt: Instant, period: CompliancePeriod): boolean {
  const ms = toMs(dueAt);
  return ms >= period.start.getTime() && ms < period.end.getTime();
}

function parseDay(value: unknown): Date | null {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return null;
  try {
    return toDate(value);
  } catch {
    return null;
  }
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}
