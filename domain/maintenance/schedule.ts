// The schedule state machine of one plan, driven by its workflow. Pure: every function takes the
// current time explicitly and returns a new JSON-serialisable state.
import type {
  CalendarPart,
  ConditionTrigger,
  CounterPart,
  PredictiveTrigger,
  ExecutedBy,
  ExecutionTrigger,
  Instant,
  IsoDuration,
  IsoTimestamp,
  OnOpenTask,
  SchedulePolicy,
  Trigger,
} from './types';
import { calendarPartOf, counterPartOf } from './types';
import { addInterval, nextFixedDueAfter } from './calendar';
import { InvalidDurationError, parseDuration, subtractDuration } from './duration';
import { clampedDate, toIso, toMs } from './instant';
import {
  advancePastLastValue,
  applyReading,
  counterAfterTriggerChange,
  initialCounterState,
  projectNextDue,
  rearmCounterFromLastValue,
  type CounterReading,
  type CounterState,
  type RateOptions,
  type ReadingResult,
} from './counter';
import { sameTrigger } from './trigger';
import { conditionAfterTriggerChange, initialConditionState, type ConditionState } from './condition';
import { initialPredictiveState, predictedDueAt, predictiveAfterTriggerChange, type PredictiveState } from './predictive';

export interface CalendarState {
  /** Origin of the grid the due dates lie on: start_at for fixed plans; the last re-arm point otherwise. */
  anchor_at: IsoTimestamp;
  /** The calendar due time the workflow's timer waits for. */
  due_at: IsoTimestamp;
  /** Reference time of the last execution that the calendar accounted for (a due time is never served twice). */
  last_ref_at: IsoTimestamp | null;
}

interface Common {
  last_executed_at: IsoTimestamp | null;
}

export type ScheduleState =
  | (Common & { type: 'calendar'; calendar: CalendarState })
  | (Common & { type: 'counter'; counter: CounterState })
  | (Common & { type: 'calendar_or_counter'; calendar: CalendarState; counter: CounterState })
  | (Common & { type: 'condition'; condition: ConditionState })
  | (Common & { type: 'condition'; condition: ConditionState; calendar: CalendarState })
  | (Common & { type: 'predictive'; predictive: PredictiveState })
  | (Common & { type: 'predictive'; predictive: PredictiveState; calendar: CalendarState });

export interface Execution {
  at: Instant; // when the task was generated
  by: ExecutedBy; // 'system' (due timer or counter threshold) or the user id (POST .../execute)
  trigger: ExecutionTrigger;
}

export interface NextDue {
  at: IsoTimestamp;
  trigger: ExecutionTrigger;
  projected: boolean; // true when the time comes from the counter's rate projection or the asset's prognosis
}

export function initialSchedule(trigger: Trigger, now: Instant): ScheduleState {
  return build(
    trigger,
    null,
    (part) => armCalendarFromStart(part, now),
    (part) => initialCounterState(part),
    (t) => initialConditionState(t),
    (t) => initialPredictiveState(t),
  );
}

/**
 * The state after an execution.
 * - Calendar fixed: a system (due timer) execution moves due_at to the next grid point after the due
 *   time it served (or after the execution, if the timer fired late); a user execution keeps due_at.
 * - Calendar floating: next due = reference + interval, the reference being the served due time for a
 *   system calendar execution (so generate_ahead does not pull the schedule earlier) or the
 *   execution time otherwise.
 * - Counter: the threshold was already moved by the reading; a user execution keeps the grid.
 * - calendar_or_counter: any execution re-arms both parts from it (calendar grid restarts at the
 *   reference, counter at the last reading + every).
 */
export function onExecuted(state: ScheduleState, trigger: Trigger, execution: Execution): ScheduleState {
  assertMatches(state, trigger);
  const at = toIso(execution.at);
  // A condition's calendar fallback counts from any execution, as a combined trigger's calendar does.
  const combined = trigger.type === 'calendar_or_counter' || trigger.type === 'condition' || trigger.type === 'predictive';
  const servesCalendarDue = execution.by === 'system' && execution.trigger === 'calendar';
  const next = mapParts(
    state,
    (cal) => {
      const part = calendarPartOf(trigger) as CalendarPart;
      const ref = servesCalendarDue ? laterOf(at, cal.due_at) : at;
      if (combined || part.mode === 'floating') return restartCalendarAt(part, ref);
      if (!servesCalendarDue) return cal; // fixed + user execution: the grid is the plan
      return { ...cal, due_at: toIso(nextFixedDueAfter(cal.anchor_at, part.every, part.unit, ref)), last_ref_at: ref };
    },
    (counter) => (combined ? rearmCounterFromLastValue(counter) : counter),
  );
  return { ...next, last_executed_at: at };
}

/**
 * Resume after a pause. A calendar due time still ahead (or exactly now) is kept; one in the past is
 * recalculated, never fired retroactively: fixed = next grid point strictly after now, floating =
 * now + interval. A counter threshold passed while paused moves past the current reading.
 * Idempotent: resuming twice gives the same state.
 */
export function onResume(state: ScheduleState, trigger: Trigger, now: Instant): ScheduleState {
  assertMatches(state, trigger);
  const nowIso = toIso(now);
  return mapParts(
    state,
    (cal) => {
      if (toMs(cal.due_at) >= toMs(nowIso)) return cal;
      const part = calendarPartOf(trigger) as CalendarPart;
      if (part.mode === 'floating') return { ...restartCalendarAt(part, nowIso), last_ref_at: cal.last_ref_at };
      return { ...cal, due_at: toIso(nextFixedDueAfter(cal.anchor_at, part.every, part.unit, nowIso)) };
    },
    advancePastLastValue,
  );
}

/**
 * Re-arms the schedule after the plan's trigger was edited (PUT). Unchanged trigger: same state.
 * Calendar fixed: the grid keeps its anchor unless start_at or the mode changed (then it restarts at
 * start_at); due = first grid point at or after now that is later than the last served due time.
 * Calendar floating: due = last execution reference + new interval (start_at if never executed),
 * recalculated as on resume when that is in the past. Counter: see counterAfterTriggerChange.
 */
export function onTriggerChanged(state: ScheduleState, previous: Trigger, next: Trigger, now: Instant): ScheduleState {
  assertMatches(state, previous);
  if (sameTrigger(previous, next)) return state;
  const prevCal = calendarPartOf(previous);
  const prevCounter = counterPartOf(previous);
  const oldCal = 'calendar' in state ? state.calendar : null;
  const oldCounter = 'counter' in state ? state.counter : null;
  const oldCondition = 'condition' in state ? state.condition : null;
  const oldPredictive = 'predictive' in state ? state.predictive : null;
  return build(
    next,
    state.last_executed_at,
    (part) => {
      if (oldCal === null || prevCal === null) return armCalendarFromStart(part, now);
      const sameGrid = prevCal.mode === part.mode && toMs(prevCal.start_at) === toMs(part.start_at);
      return rearmCalendar(part, { ...oldCal, anchor_at: sameGrid ? oldCal.anchor_at : toIso(part.start_at) }, now);
    },
    (part) => counterAfterTriggerChange(oldCounter, prevCounter, part),
    (t) => conditionAfterTriggerChange(oldCondition, t),
    (t) => predictiveAfterTriggerChange(oldPredictive, t),
  );
}

export type ScheduleReadingResult = (Omit<Extract<ReadingResult, { ok: true }>, 'state'> & { state: ScheduleState }) | Extract<ReadingResult, { ok: false }>;

/**
 * Records a counter reading (see counter.applyReading) and returns the whole new schedule state.
 * thresholds_crossed >= 1 means the plan is due now: generate ONE task, then call onExecuted with
 * trigger 'counter' (which, for calendar_or_counter, re-arms both parts from this execution).
 */
export function onCounterReading(state: ScheduleState, reading: CounterReading): ScheduleReadingResult {
  if (!('counter' in state)) {
    return { ok: false, error: { code: 'INVALID_READING', field: 'value', message: 'the plan has no counter trigger' } };
  }
  const result = applyReading(state.counter, reading);
  return result.ok ? { ...result, state: { ...state, counter: result.state } } : result;
}

/** The calendar due time the workflow's timer should wait for (null for a counter-only plan). */
export function timerDueAt(state: ScheduleState): IsoTimestamp | null {
  return 'calendar' in state ? state.calendar.due_at : null;
}

/**
 * The plan's next due time as the API shows it (`next_due_at`): the calendar due time, the counter's
 * projected time, or the earlier of both; null for a counter plan without enough readings.
 */
export function nextDue(state: ScheduleState, now: Instant, rateOptions?: RateOptions): NextDue | null {
  const calendar: NextDue | null = 'calendar' in state ? { at: state.calendar.due_at, trigger: 'calendar', projected: false } : null;
  const projection = 'counter' in state ? projectNextDue(state.counter, now, rateOptions) : null;
  const predicted = 'predictive' in state ? predictedDueAt(state.predictive) : null;
  const counter: NextDue | null = projection
    ? { at: projection.at, trigger: 'counter', projected: true }
    : predicted !== null
      ? { at: predicted, trigger: 'predictive', projected: true }
      : null;
  if (calendar && counter) return toMs(counter.at) < toMs(calendar.at) ? counter : calendar;
  return calendar ?? counter;
}

/** When the task for a due time is generated: generate_ahead before it (default P0D = at due time). */
export function generateAt(nextDueAt: Instant, generateAhead: IsoDuration): IsoTimestamp {
  return beforeDue(nextDueAt, generateAhead);
}

/** When the assignee and recipients are notified: lead_time before the due time. */
export function notifyAt(nextDueAt: Instant, leadTime: IsoDuration): IsoTimestamp {
  return beforeDue(nextDueAt, leadTime);
}

/**
 * `duration` before the due time, clamped: P1000000Y before a due date leaves the range of a Date
 * (and means "already past" anyway), which must not fail the plan's workflow.
 */
function beforeDue(nextDueAt: Instant, duration: IsoDuration): IsoTimestamp {
  const parsed = parseDuration(duration); // a malformed duration still throws
  try {
    return clampedDate(subtractDuration(nextDueAt, parsed).getTime(), 'earliest').toISOString();
  } catch (err) {
    if (err instanceof InvalidDurationError) return clampedDate(Number.NaN, 'earliest').toISOString(); // out of range
    throw err;
  }
}

export interface CalendarMilestones {
  due_at: IsoTimestamp;
  generate_at: IsoTimestamp;
  notify_at: IsoTimestamp | null; // null when the plan has no notify settings
}

/** The timer targets for the current calendar due time (null for a counter-only plan). */
export function calendarMilestones(state: ScheduleState, policy: SchedulePolicy): CalendarMilestones | null {
  const due = timerDueAt(state);
  if (due === null) return null;
  return {
    due_at: due,
    generate_at: generateAt(due, policy.generate_ahead),
    notify_at: policy.notify ? notifyAt(due, policy.notify.lead_time) : null,
  };
}

export type DueAction = 'create_task' | 'skip';

/** What a due time does given the plan's open tasks: skip keeps the open task, stack adds another. */
export function actionOnDue(onOpenTask: OnOpenTask, openTaskCount: number): DueAction {
  return openTaskCount > 0 && onOpenTask === 'skip' ? 'skip' : 'create_task';
}

// ---- internals ----

/** Fixed: first grid point at or after now. Floating: start_at, or now + interval when start_at is past. */
function armCalendarFromStart(part: CalendarPart, now: Instant): CalendarState {
  const start = toIso(part.start_at);
  return rearmCalendar(part, { anchor_at: start, due_at: start, last_ref_at: null }, now);
}

function rearmCalendar(part: CalendarPart, cal: CalendarState, now: Instant): CalendarState {
  const nowMs = toMs(now);
  if (part.mode === 'fixed') {
    // "at or after now" = strictly after now - 1 ms; a due time already served is never served again.
    const after = Math.max(nowMs - 1, cal.last_ref_at === null ? nowMs - 1 : toMs(cal.last_ref_at));
    const due = nextFixedDueAfter(cal.anchor_at, part.every, part.unit, new Date(after));
    return { ...cal, due_at: toIso(due) };
  }
  const floating = cal.last_ref_at === null ? { ...cal, anchor_at: toIso(part.start_at), due_at: toIso(part.start_at) } : restartCalendarAt(part, cal.last_ref_at);
  if (toMs(floating.due_at) >= nowMs) return floating;
  return { ...restartCalendarAt(part, toIso(now)), last_ref_at: cal.last_ref_at };
}

/** A new grid starting at `ref`: the next due is one interval after it. */
function restartCalendarAt(part: CalendarPart, ref: IsoTimestamp): CalendarState {
  return { anchor_at: ref, due_at: toIso(addInterval(ref, part.every, part.unit)), last_ref_at: ref };
}

function build(
  trigger: Trigger,
  lastExecutedAt: IsoTimestamp | null,
  calendar: (part: CalendarPart) => CalendarState,
  counter: (part: CounterPart) => CounterState,
  condition: (trigger: ConditionTrigger) => ConditionState,
  predictive: (trigger: PredictiveTrigger) => PredictiveState,
): ScheduleState {
  const common = { last_executed_at: lastExecutedAt };
  switch (trigger.type) {
    case 'calendar':
      return { ...common, type: 'calendar', calendar: calendar(trigger) };
    case 'counter':
      return { ...common, type: 'counter', counter: counter(trigger) };
    case 'calendar_or_counter':
      return { ...common, type: 'calendar_or_counter', calendar: calendar(trigger.calendar), counter: counter(trigger.counter) };
    case 'condition':
      return trigger.calendar
        ? { ...common, type: 'condition', condition: condition(trigger), calendar: calendar(trigger.calendar) }
        : { ...common, type: 'condition', condition: condition(trigger) };
    case 'predictive':
      return trigger.calendar
        ? { ...common, type: 'predictive', predictive: predictive(trigger), calendar: calendar(trigger.calendar) }
        : { ...common, type: 'predictive', predictive: predictive(trigger) };
  }
}

function mapParts(state: ScheduleState, calendar: (cal: CalendarState) => CalendarState, counter: (c: CounterState) => CounterState): ScheduleState {
  switch (state.type) {
    case 'calendar':
      return { ...state, calendar: calendar(state.calendar) };
    case 'counter':
      return { ...state, counter: counter(state.counter) };
    case 'calendar_or_counter':
      return { ...state, calendar: calendar(state.calendar), counter: counter(state.counter) };
    case 'condition':
    case 'predictive':
      return 'calendar' in state ? { ...state, calendar: calendar(state.calendar) } : state;
  }
}

function assertMatches(state: ScheduleState, trigger: Trigger): void {
  if (state.type !== trigger.type) {
    throw new Error(`schedule state of type ${state.type} does not match a ${trigger.type} trigger`);
  }
}

function laterOf(a: IsoTimestamp, b: IsoTimestamp): IsoTimestamp {
  return toMs(a) >= toMs(b) ? a : b;
}
