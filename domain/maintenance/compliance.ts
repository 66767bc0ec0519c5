// SMRP-style PM compliance (GET /api/v1/maintenance/compliance). A task due in the period is on
// time when completed no later than due_at + 10 % of its plan's interval; otherwise it is overdue.
import type { Instant, TaskStatus } from './types';
import { MS_PER_HOUR, toDate, toMs } from './instant';

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
  average_delay_hours: number | null; // over overdue tasks, 2 decimals; null when there are none
  pending_count: number;
  cancelled_count: number;
}

/** Hours a task may run past its due time and still count as on time. */
export function graceHours(intervalHours: number): number {
  return intervalHours > 0 ? intervalHours * GRACE_FRACTION : UNKNOWN_INTERVAL_GRACE_HOURS;
}

export function graceDeadline(task: Pick<ComplianceTask, 'due_at' | 'interval_hours'>): Date {
  return new Date(toMs(task.due_at) + graceHours(task.interval_hours) * MS_PER_HOUR);
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
  let pending = 0;
  let cancelled = 0;
  const delays: number[] = [];
  for (const task of tasks) {
    const result = classifyTask(task, now);
    if (result.kind === 'on_time') onTime += 1;
    else if (result.kind === 'pending') pending += 1;
    else if (result.kind === 'excluded') cancelled += 1;
    else delays.push(result.delay_hours);
  }
  const counted = onTime + delays.length;
  return {
    compliance_rate: counted === 0 ? null : round2((onTime / counted) * 100),
    on_time_count: onTime,
    overdue_count: delays.length,
    average_delay_hours: delays.length === 0 ? null : round2(delays.reduce((a, b) => a + b, 0) / delays.length),
    pending_count: pending,
    cancelled_count: cancelled,
  };
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
