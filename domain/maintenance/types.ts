// Shapes of a preventive maintenance plan's scheduling configuration (DESIGN.md, Maintenance).
// Plain JSON objects only: they travel through Temporal payloads and continueAsNew.

/** An ISO 8601 UTC timestamp string, e.g. "2024-01-31T08:00:00.000Z". */
export type IsoTimestamp = string;

/** A point in time as callers may hold it; stored values are always IsoTimestamp. */
export type Instant = Date | IsoTimestamp;

/** An ISO 8601 duration string in the subset PnYnMnWnDTnHnMnS, e.g. "P1D", "PT12H". */
export type IsoDuration = string;

export const CALENDAR_UNITS = ['hours', 'days', 'weeks', 'months'] as const;
export type CalendarUnit = (typeof CALENDAR_UNITS)[number];

export const CALENDAR_MODES = ['fixed', 'floating'] as const;
/** fixed: due dates stay on the grid start_at + k*every; floating: next due counts from the last execution. */
export type CalendarMode = (typeof CALENDAR_MODES)[number];

export interface CalendarTrigger {
  type: 'calendar';
  every: number; // positive integer
  unit: CalendarUnit;
  start_at: IsoTimestamp; // first due time
  mode: CalendarMode;
}

export interface CounterTrigger {
  type: 'counter';
  counter: string; // name of the meter, e.g. "operating_hours"
  unit: string; // unit of the meter, e.g. "h", "km", "cycles"
  every: number; // positive number, in meter units
  start_value: number; // meter reading when counting starts; first threshold = start_value + every
}

/** The parts of a combined trigger carry no `type` of their own. */
export type CalendarPart = Omit<CalendarTrigger, 'type'>;
export type CounterPart = Omit<CounterTrigger, 'type'>;

/** Due at whichever comes first; every execution re-arms both parts from that execution. */
export interface CalendarOrCounterTrigger {
  type: 'calendar_or_counter';
  calendar: CalendarPart;
  counter: CounterPart;
}

/**
 * Due when the parameter of any of the plan's assets stays beyond a limit (`above` or `below`,
 * exactly one) for `for_minutes`; one work order per excursion (domain/maintenance/condition.ts).
 * With `calendar`, also due by that calendar, whichever comes first.
 */
export interface ConditionTrigger {
  type: 'condition';
  parameter: string;
  above?: number;
  below?: number;
  /** Back inside only this far past the limit (the parameter's unit); default 5 % of the limit. */
  deadband?: number;
  for_minutes: number;
  calendar?: CalendarPart;
}

/**
 * Due when the prognosis of the parameter of any of the plan's assets gives at least
 * `min_probability` of reaching its limit (the predictive config's failure limit, else the
 * baseline band) within `lead_days`; the work order is due `lead_days` before the projected
 * crossing (domain/maintenance/predictive.ts). With `calendar`, also due by that calendar.
 */
export interface PredictiveTrigger {
  type: 'predictive';
  parameter: string;
  lead_days: number;
  min_probability: number;
  calendar?: CalendarPart;
}

export type Trigger = CalendarTrigger | CounterTrigger | CalendarOrCounterTrigger | ConditionTrigger | PredictiveTrigger;
/** The triggers that watch an asset's readings (condition and predictive). */
export type ReadingsTrigger = ConditionTrigger | PredictiveTrigger;
export type TriggerType = Trigger['type'];

/** What a due time does while the plan's previous task is still open. */
export const ON_OPEN_TASK_POLICIES = ['skip', 'stack'] as const;
export type OnOpenTask = (typeof ON_OPEN_TASK_POLICIES)[number];

export interface NotifySettings {
  recipients: string[]; // user ids (never emails: the workflow history must stay free of personal data)
  lead_time: IsoDuration; // notify this long before due
}

/** The scheduling policy of a plan: everything the schedule state machine needs besides its state. */
export interface SchedulePolicy {
  trigger: Trigger;
  on_open_task: OnOpenTask;
  generate_ahead: IsoDuration; // create the task this long before its due time
  notify: NotifySettings | null;
}

export const DEFAULT_ON_OPEN_TASK: OnOpenTask = 'skip';
export const DEFAULT_GENERATE_AHEAD: IsoDuration = 'P0D';
export const DEFAULT_TASK_PREFIX = 'PM';

/** Which trigger caused an execution (execution history entry `trigger`). */
export type ExecutionTrigger = 'calendar' | 'counter' | 'condition' | 'predictive';
/** `system` or the id of the user who executed the plan (execution history entry `executed_by`). */
export type ExecutedBy = string;

export const TASK_STATUSES = ['open', 'in_progress', 'done', 'cancelled'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** Convenience accessors so callers need not switch on the trigger type. */
export function calendarPartOf(trigger: Trigger): CalendarPart | null {
  if (trigger.type === 'calendar') return trigger;
  if (trigger.type === 'calendar_or_counter') return trigger.calendar;
  if (trigger.type === 'condition' || trigger.type === 'predictive') return trigger.calendar ?? null;
  return null;
}

export function counterPartOf(trigger: Trigger): CounterPart | null {
  if (trigger.type === 'counter') return trigger;
  if (trigger.type === 'calendar_or_counter') return trigger.counter;
  return null;
}
