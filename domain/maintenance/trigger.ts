// Validation of trigger and policy values, shared by the API (422 with fields) and the workflow's
// update validators (which must be synchronous and pure).
import { CALENDAR_MODES, CALENDAR_UNITS, ON_OPEN_TASK_POLICIES, type CalendarPart, type ConditionTrigger, type CounterPart, type PredictiveTrigger, type Trigger } from './types';
import { isValidInstant, toIso, toMs } from './instant';
import { isValidDuration } from './duration';
import { intervalHours } from './calendar';

export interface FieldError {
  field: string; // dotted path, e.g. "trigger.calendar.every"
  message: string;
}

export type Validation<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

const MAX_COUNTER_NAME = 100;

const START_RANGE_MS = [Date.UTC(1970, 0, 1), Date.UTC(3000, 0, 1)] as const;
const startInRange = (startAt: string) => toMs(startAt) >= START_RANGE_MS[0] && toMs(startAt) < START_RANGE_MS[1];

/** The smallest counter interval: finer than any meter reads, and it keeps threshold counts finite. */
export const MIN_COUNTER_EVERY = 1e-6;

export function validateTrigger(input: unknown, field = 'trigger'): Validation<Trigger> {
  const errors: FieldError[] = [];
  if (!isObject(input)) return { ok: false, errors: [{ field, message: 'must be an object' }] };
  switch (input.type) {
    case 'calendar':
      checkCalendar(input, field, errors);
      break;
    case 'counter':
      checkCounter(input, field, errors);
      break;
    case 'calendar_or_counter':
      if (isObject(input.calendar)) checkCalendar(input.calendar, `${field}.calendar`, errors);
      else errors.push({ field: `${field}.calendar`, message: 'must be an object' });
      if (isObject(input.counter)) checkCounter(input.counter, `${field}.counter`, errors);
      else errors.push({ field: `${field}.counter`, message: 'must be an object' });
      break;
    case 'condition':
      checkCondition(input, field, errors);
      break;
    case 'predictive':
      checkPredictive(input, field, errors);
      break;
    default:
      errors.push({ field: `${field}.type`, message: 'must be one of calendar, counter, calendar_or_counter, condition, predictive' });
  }
  return errors.length ? { ok: false, errors } : { ok: true, value: normalizeTrigger(input as unknown as Trigger) };
}

/** A copy with only the known fields and start_at in canonical form (toISOString). */
function normalizeTrigger(t: Trigger): Trigger {
  const calendar = (c: CalendarPart): CalendarPart => ({
    every: c.every,
    unit: c.unit,
    start_at: toIso(c.start_at),
    mode: c.mode,
  });
  const counter = (c: CounterPart): CounterPart => ({
    counter: c.counter,
    unit: c.unit,
    every: c.every,
    start_value: c.start_value,
  });
  if (t.type === 'calendar') return { type: 'calendar', ...calendar(t) };
  if (t.type === 'counter') return { type: 'counter', ...counter(t) };
  if (t.type === 'condition') return normalizeCondition(t, calendar);
  if (t.type === 'predictive') return normalizePredictive(t, calendar);
  return { type: 'calendar_or_counter', calendar: calendar(t.calendar), counter: counter(t.counter) };
}

export function validateDurationField(value: unknown, field: string): FieldError[] {
  return isValidDuration(value) ? [] : [{ field, message: 'must be an ISO 8601 duration such as P0D, PT12H or P1DT6H' }];
}

export function validateOnOpenTask(value: unknown, field = 'on_open_task'): FieldError[] {
  return (ON_OPEN_TASK_POLICIES as readonly unknown[]).includes(value) ? [] : [{ field, message: `must be one of ${ON_OPEN_TASK_POLICIES.join(', ')}` }];
}

/** Structural equality of two triggers (they are small JSON values). */
export function sameTrigger(a: Trigger, b: Trigger): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/**
 * Nominal interval of a trigger in hours (the base of compliance's 10 % grace). Calendar and
 * combined triggers use the calendar part; a counter trigger converts `every` with the meter's
 * rate per hour, and has no interval (null) when the rate is unknown.
 */
export function triggerIntervalHours(trigger: Trigger, counterRatePerHour: number | null): number | null {
  if (trigger.type === 'calendar') return intervalHours(trigger.every, trigger.unit);
  if (trigger.type === 'calendar_or_counter') return intervalHours(trigger.calendar.every, trigger.calendar.unit);
  if (trigger.type === 'condition' || trigger.type === 'predictive') return trigger.calendar ? intervalHours(trigger.calendar.every, trigger.calendar.unit) : null;
  return counterRatePerHour !== null && counterRatePerHour > 0 ? trigger.every / counterRatePerHour : null;
}

/** A condition trigger's known fields only; the calendar fallback only when given. */
function normalizeCondition(t: ConditionTrigger, calendar: (c: CalendarPart) => CalendarPart): ConditionTrigger {
  return {
    type: 'condition',
    parameter: t.parameter,
    ...(t.above !== undefined ? { above: t.above } : { below: t.below }),
    ...(t.deadband !== undefined ? { deadband: t.deadband } : {}),
    for_minutes: t.for_minutes,
    ...(t.calendar ? { calendar: calendar(t.calendar) } : {}),
  };
}

/** The longest persistence window: a week (a longer one is a calendar plan). */
export const MAX_CONDITION_MINUTES = 10_080;

/** A predictive trigger's known fields only; the calendar fallback only when given. */
function normalizePredictive(t: PredictiveTrigger, calendar: (c: CalendarPart) => CalendarPart): PredictiveTrigger {
  return {
    type: 'predictive',
    parameter: t.parameter,
    lead_days: t.lead_days,
    min_probability: t.min_probability,
    ...(t.calendar ? { calendar: calendar(t.calendar) } : {}),
  };
}

/** The longest lead: a year (the prognosis projects no further with any confidence). */
export const MAX_LEAD_DAYS = 365;

function checkPredictive(c: Record<string, unknown>, field: string, errors: FieldError[]): void {
  checkParameter(c, field, errors);
  if (typeof c.lead_days !== 'number' || !Number.isFinite(c.lead_days) || c.lead_days <= 0 || c.lead_days > MAX_LEAD_DAYS) {
    errors.push({ field: `${field}.lead_days`, message: `must be a number above 0 and at most ${MAX_LEAD_DAYS}` });
  }
  if (typeof c.min_probability !== 'number' || !(c.min_probability > 0 && c.min_probability <= 1)) {
    errors.push({ field: `${field}.min_probability`, message: 'must be a number above 0 and at most 1' });
  }
  checkFallback(c, field, errors);
}

function checkParameter(c: Record<string, unknown>, field: string, errors: FieldError[]): void {
  if (typeof c.parameter !== 'string' || c.parameter.trim() === '' || c.parameter.length > MAX_COUNTER_NAME) {
    errors.push({ field: `${field}.parameter`, message: `must be a non-empty string of at most ${MAX_COUNTER_NAME} characters` });
  }
}

function checkFallback(c: Record<string, unknown>, field: string, errors: FieldError[]): void {
  if (c.calendar !== undefined) {
    if (isObject(c.calendar)) checkCalendar(c.calendar, `${field}.calendar`, errors);
    else errors.push({ field: `${field}.calendar`, message: 'must be an object' });
  }
}

function checkCondition(c: Record<string, unknown>, field: string, errors: FieldError[]): void {
  checkParameter(c, field, errors);
  const limits = (['above', 'below'] as const).filter((k) => c[k] !== undefined);
  if (limits.length !== 1) errors.push({ field: `${field}.above`, message: 'exactly one of above or below is required' });
  for (const k of limits) {
    if (typeof c[k] !== 'number' || !Number.isFinite(c[k])) errors.push({ field: `${field}.${k}`, message: 'must be a finite number' });
  }
  if (c.deadband !== undefined && (typeof c.deadband !== 'number' || !Number.isFinite(c.deadband) || c.deadband < 0)) {
    errors.push({ field: `${field}.deadband`, message: 'must be a finite number of at least 0' });
  }
  if (!Number.isInteger(c.for_minutes) || (c.for_minutes as number) < 0 || (c.for_minutes as number) > MAX_CONDITION_MINUTES) {
    errors.push({ field: `${field}.for_minutes`, message: `must be an integer from 0 to ${MAX_CONDITION_MINUTES}` });
  }
  checkFallback(c, field, errors);
}

function checkCalendar(c: Record<string, unknown>, field: string, errors: FieldError[]): void {
  if (!Number.isInteger(c.every) || (c.every as number) < 1 || (c.every as number) > 10_000) {
    errors.push({ field: `${field}.every`, message: 'must be an integer from 1 to 10000' });
  }
  if (!(CALENDAR_UNITS as readonly unknown[]).includes(c.unit)) {
    errors.push({ field: `${field}.unit`, message: `must be one of ${CALENDAR_UNITS.join(', ')}` });
  }
  if (typeof c.start_at !== 'string' || !isValidInstant(c.start_at)) {
    errors.push({ field: `${field}.start_at`, message: 'must be an ISO 8601 timestamp with offset, e.g. 2024-01-31T08:00:00Z' });
  } else if (!startInRange(c.start_at)) {
    // Even 10 000 months after the year 2999 the schedule stays within four-digit years.
    errors.push({ field: `${field}.start_at`, message: 'must be between 1970 and 2999' });
  }
  if (!(CALENDAR_MODES as readonly unknown[]).includes(c.mode)) {
    errors.push({ field: `${field}.mode`, message: `must be one of ${CALENDAR_MODES.join(', ')}` });
  }
}

function checkCounter(c: Record<string, unknown>, field: string, errors: FieldError[]): void {
  if (typeof c.counter !== 'string' || c.counter.trim() === '' || c.counter.length > MAX_COUNTER_NAME) {
    errors.push({ field: `${field}.counter`, message: `must be a non-empty string of at most ${MAX_COUNTER_NAME} characters` });
  }
  if (typeof c.unit !== 'string' || c.unit.trim() === '') {
    errors.push({ field: `${field}.unit`, message: 'must be a non-empty string' });
  }
  if (typeof c.every !== 'number' || !Number.isFinite(c.every) || c.every < MIN_COUNTER_EVERY) {
    errors.push({ field: `${field}.every`, message: `must be a number of at least ${MIN_COUNTER_EVERY}` });
  }
  if (typeof c.start_value !== 'number' || !Number.isFinite(c.start_value)) {
    errors.push({ field: `${field}.start_value`, message: 'must be a finite number' });
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isObject(value)) {
    const keys = Object.keys(value)
      .filter((k) => value[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
