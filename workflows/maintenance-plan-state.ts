/**
 * The state a maintenance plan workflow carries (through continueAsNew too) and the pure rules
 * over it that are not schedule arithmetic (that is domain/maintenance): which timer to arm next,
 * the read-model snapshot, the bounded memory of update results. Plain JSON only (no Map/Set: they
 * would not survive continueAsNew), no clock (every function takes `now`), ids and times only.
 * The API imports it too, to build the first state of a new plan.
 */
import {
  calendarMilestones,
  estimateRatePerHour,
  graceDeadline,
  initialSchedule,
  nextDue,
  predictedDueAt,
  toMs,
  triggerIntervalHours,
  type ExecutionTrigger,
  type IsoTimestamp,
  type NextDue,
  type PredictiveEvidence,
  type ScheduleState,
  type SchedulePolicy,
  type Trigger,
} from '../domain/maintenance';
import type { ScheduleSnapshot } from '../db/queries/maintenance';

export type PlanRunStatus = 'active' | 'paused';

/** Results of recent updates by request id: a retried HTTP call gets the first answer again. */
export interface RecentResult {
  request_id: string;
  result: unknown;
}

export interface PlanWorkflowState {
  tenantId: string;
  planId: string;
  /** The plan version (maintenance_plans.version) whose policy this state follows. */
  version: number;
  policy: SchedulePolicy;
  status: PlanRunStatus;
  schedule: ScheduleState;
  /** Incremented by every change the plan row's read model must show (orders the snapshots). */
  seq: number;
  /** The due time whose lead-time notification was queued (one per due time). */
  notified_due_at: IsoTimestamp | null;
  /** Grace deadlines of the tasks this plan created, ascending: when to look for overdue tasks. */
  overdue_checks: IsoTimestamp[];
  recent: RecentResult[];
  executions_total: number;
  /** Events (executions, updates, signals) after which a run continues as new; tests lower it. */
  run_event_limit: number;
  /** A condition plan was told of new readings it has not evaluated yet (absent in older runs' state). */
  readings_pending?: boolean;
}

export const RECENT_RESULTS_KEPT = 64;
export const OVERDUE_CHECKS_KEPT = 64;
/** Well below Temporal's 2000 Updates per run and its history size warnings. */
export const DEFAULT_RUN_EVENT_LIMIT = 500;

export interface NewPlanState {
  tenantId: string;
  planId: string;
  version: number;
  policy: SchedulePolicy;
  status: PlanRunStatus;
  now: Date;
}

export function initialPlanState(p: NewPlanState): PlanWorkflowState {
  return {
    tenantId: p.tenantId,
    planId: p.planId,
    version: p.version,
    policy: p.policy,
    status: p.status,
    schedule: initialSchedule(p.policy.trigger, p.now),
    seq: 1,
    notified_due_at: null,
    overdue_checks: [],
    recent: [],
    executions_total: 0,
    run_event_limit: DEFAULT_RUN_EVENT_LIMIT,
  };
}

/** The plan row's read model of this state (db/queries/maintenance.saveScheduleSnapshot). */
export function snapshotOf(state: PlanWorkflowState, now: Date): ScheduleSnapshot {
  const due = nextDue(state.schedule, now);
  return { seq: state.seq, next_due_at: due?.at ?? null, next_due_trigger: due?.trigger ?? null, interval_hours: intervalHoursOf(state, now) };
}

/** The nominal interval (compliance grace base); a counter plan's comes from its meter's rate. */
export function intervalHoursOf(state: PlanWorkflowState, now: Date): number | null {
  const rate = 'counter' in state.schedule ? estimateRatePerHour(state.schedule.counter.recent, now) : null;
  const hours = triggerIntervalHours(state.policy.trigger, rate);
  return hours === null ? null : Number(hours.toPrecision(12));
}

export type WakeReason = 'overdue_check' | 'notify' | 'generate' | 'predict';

export interface Wake {
  at: IsoTimestamp;
  reasons: WakeReason[];
  /** One line for the timer in the Temporal UI. */
  summary: string;
}

/**
 * The next time the workflow must act: an overdue check of its tasks, the lead-time notification
 * of the current due time, or the generation of its task (due - generate_ahead). A paused plan
 * only checks overdue tasks; a counter-only plan has no calendar timer.
 */
export function nextWake(state: PlanWorkflowState): Wake | null {
  const candidates: Array<{ at: IsoTimestamp; reason: WakeReason }> = [];
  if (state.overdue_checks.length > 0) candidates.push({ at: state.overdue_checks[0], reason: 'overdue_check' });
  const m = state.status === 'active' ? calendarMilestones(state.schedule, state.policy) : null;
  if (m) {
    if (m.notify_at !== null && state.notified_due_at !== m.due_at) candidates.push({ at: m.notify_at, reason: 'notify' });
    candidates.push({ at: m.generate_at, reason: 'generate' });
  }
  const predicted = predictedWake(state);
  if (predicted !== null) candidates.push({ at: predicted, reason: 'predict' });
  if (candidates.length === 0) return null;
  const first = Math.min(...candidates.map((c) => toMs(c.at)));
  const reasons = candidates.filter((c) => toMs(c.at) === first).map((c) => c.reason);
  const at = new Date(first).toISOString();
  const due = m ? ` of due ${m.due_at}` : '';
  const words: Record<WakeReason, string> = {
    overdue_check: 'check overdue tasks',
    notify: `lead-time notification${due}`,
    generate: `create the task${due}`,
    predict: 'forecast again: an asset falls due by its prognosis',
  };
  return { at, reasons, summary: `${reasons.map((r) => words[r]).join(' + ')} at ${at}` };
}

/** A condition or predictive plan evaluates its new readings when told of some, and only while active. */
export function readingsToEvaluate(state: PlanWorkflowState): boolean {
  return state.readings_pending === true && state.status === 'active' && (state.schedule.type === 'condition' || state.schedule.type === 'predictive');
}

/** An active predictive plan's durable timer: the instant its earliest asset falls due by its last forecast. */
function predictedWake(state: PlanWorkflowState): IsoTimestamp | null {
  return state.status === 'active' && state.schedule.type === 'predictive' ? predictedDueAt(state.schedule.predictive) : null;
}

/** What is due at `now`: the reasons whose time has come (a late wake serves all of them). */
export function dueNow(state: PlanWorkflowState, now: Date): Set<WakeReason> {
  const due = new Set<WakeReason>();
  const nowMs = now.getTime();
  if (state.overdue_checks.length > 0 && toMs(state.overdue_checks[0]) <= nowMs) due.add('overdue_check');
  const m = state.status === 'active' ? calendarMilestones(state.schedule, state.policy) : null;
  if (m) {
    if (m.notify_at !== null && state.notified_due_at !== m.due_at && toMs(m.notify_at) <= nowMs) due.add('notify');
    if (toMs(m.generate_at) <= nowMs) due.add('generate');
  }
  const predicted = predictedWake(state);
  if (predicted !== null && toMs(predicted) <= nowMs) due.add('predict');
  return due;
}

/**
 * The deadline after which an open task is overdue: the compliance rule's (due + 10 % of the plan
 * interval, a day when the interval is unknown). `legacyNoGraceWhenUnknown` keeps histories
 * recorded before that floor existed replaying as they ran (an unknown interval gave no grace).
 */
export function overdueDeadline(dueAt: IsoTimestamp, intervalHours: number | null, legacyNoGraceWhenUnknown = false): IsoTimestamp {
  if (legacyNoGraceWhenUnknown && !(intervalHours && intervalHours > 0)) return new Date(toMs(dueAt)).toISOString();
  return graceDeadline({ due_at: dueAt, interval_hours: intervalHours ?? 0 }).toISOString();
}

export function withOverdueCheck(checks: IsoTimestamp[], deadline: IsoTimestamp): IsoTimestamp[] {
  if (checks.includes(deadline)) return checks;
  // Bounded: beyond the limit the latest deadlines are dropped; the first check marks every task past due anyway.
  return [...checks, deadline].sort((a, b) => toMs(a) - toMs(b)).slice(0, OVERDUE_CHECKS_KEPT);
}

export function withoutPassedChecks(checks: IsoTimestamp[], now: Date): IsoTimestamp[] {
  return checks.filter((c) => toMs(c) > now.getTime());
}

export function findRecent<T>(state: PlanWorkflowState, requestId: string): T | undefined {
  return state.recent.find((r) => r.request_id === requestId)?.result as T | undefined;
}

export function withRecent(recent: RecentResult[], requestId: string, result: unknown): RecentResult[] {
  return [...recent.filter((r) => r.request_id !== requestId), { request_id: requestId, result }].slice(-RECENT_RESULTS_KEPT);
}

/** A user's execute counts as its plan's trigger: counter for a counter-only plan, calendar otherwise. */
export function manualExecutionTrigger(trigger: Trigger): ExecutionTrigger {
  return trigger.type === 'counter' ? 'counter' : 'calendar';
}

/** The query answer `state`: what an operator or the API needs to see, no personal data. */
export interface PlanStateView {
  plan_id: string;
  version: number;
  status: PlanRunStatus;
  seq: number;
  next_due: NextDue | null;
  snapshot: ScheduleSnapshot;
  schedule: ScheduleState;
  notified_due_at: IsoTimestamp | null;
  wake: Wake | null;
  executions_total: number;
}

export function viewOf(state: PlanWorkflowState, now: Date): PlanStateView {
  return {
    plan_id: state.planId,
    version: state.version,
    status: state.status,
    seq: state.seq,
    next_due: nextDue(state.schedule, now),
    snapshot: snapshotOf(state, now),
    schedule: state.schedule,
    notified_due_at: state.notified_due_at,
    wake: nextWake(state),
    executions_total: state.executions_total,
  };
}

/** The query answer `preview`: the task the next execution would generate, as far as the workflow knows it. */
export interface PlanPreview {
  due_at: IsoTimestamp | null;
  trigger: ExecutionTrigger;
  projected: boolean;
  generate_at: IsoTimestamp | null;
  notify_at: IsoTimestamp | null;
  next_threshold: number | null;
  counter_value: number | null;
  /** A predictive plan: each asset's latest forecast (what its projected due time comes from). */
  forecasts: PredictiveEvidence[];
  status: PlanRunStatus;
}

export function previewOf(state: PlanWorkflowState, now: Date): PlanPreview {
  const due = nextDue(state.schedule, now);
  const m = calendarMilestones(state.schedule, state.policy);
  const counter = 'counter' in state.schedule ? state.schedule.counter : null;
  const calendarNext = due?.trigger === 'calendar';
  return {
    due_at: due?.at ?? null,
    trigger: due?.trigger ?? manualExecutionTrigger(state.policy.trigger),
    projected: due?.projected ?? false,
    generate_at: calendarNext && m ? m.generate_at : null,
    notify_at: calendarNext && m ? m.notify_at : null,
    next_threshold: counter?.next_threshold ?? null,
    counter_value: counter ? counter.last_value : null,
    forecasts:
      state.schedule.type === 'predictive'
        ? Object.values(state.schedule.predictive.assets)
            .map((a) => a.evidence)
            .filter((e): e is PredictiveEvidence => e !== null)
        : [],
    status: state.status,
  };
}
