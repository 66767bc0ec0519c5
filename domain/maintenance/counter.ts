// Counter (meter) readings of a plan: thresholds on the `every` grid, resets, rate projection.
import type { CounterPart, Instant, IsoTimestamp } from './types';
import { MS_PER_HOUR, toDate, toIso } from './instant';

/** One point of the recent usage curve; `total` is monotonic across meter resets. */
export interface UsagePoint {
  at: IsoTimestamp;
  total: number;
}

export interface CounterState {
  counter: string; // meter name, to tell an edited threshold from a different meter
  every: number; // threshold step, in meter units
  anchor: number; // origin of the threshold grid anchor + k*every, on the meter's current scale
  next_threshold: number; // always a grid point above last_value once a reading is applied
  last_value: number; // last reading; start_value before the first one
  last_read_at: IsoTimestamp | null;
  total: number; // usage accumulated since the plan started, across resets
  recent: UsagePoint[]; // last MAX_RECENT_READINGS readings, oldest first (bounded for continueAsNew)
}

export interface CounterReading {
  value: number;
  source: string;
  at: Instant;
  reset?: boolean; // the meter was reset (replaced or rolled over) and counts again from zero
}

export type ReadingRejection =
  | { code: 'COUNTER_WENT_BACKWARDS'; message: string; last_value: number; value: number }
  | { code: 'READING_OUT_OF_ORDER'; message: string; last_read_at: IsoTimestamp; at: IsoTimestamp }
  | { code: 'INVALID_READING'; message: string; field: 'value' | 'source' | 'at' };

/** What to store in the counter history for an accepted reading. */
export interface RecordedReading {
  value: number;
  source: string;
  at: IsoTimestamp;
  reset: boolean;
  total: number;
}

export type ReadingResult =
  | {
      ok: true;
      state: CounterState;
      recorded: RecordedReading;
      /** Thresholds passed by this reading (0 = not due). One reading crossing several yields ONE execution. */
      thresholds_crossed: number;
    }
  | { ok: false; error: ReadingRejection };

export const MAX_RECENT_READINGS = 20;

export function initialCounterState(part: CounterPart): CounterState {
  return {
    counter: part.counter,
    every: part.every,
    anchor: part.start_value,
    next_threshold: tidy(part.start_value + part.every),
    last_value: part.start_value,
    last_read_at: null,
    total: 0,
    recent: [],
  };
}

/** Synchronous check usable as-is in a Workflow Update validator; null when the reading is acceptable. */
export function validateReading(state: CounterState, reading: CounterReading): ReadingRejection | null {
  if (typeof reading.value !== 'number' || !Number.isFinite(reading.value)) {
    return { code: 'INVALID_READING', field: 'value', message: 'value must be a finite number' };
  }
  if (typeof reading.source !== 'string' || reading.source.trim() === '') {
    return { code: 'INVALID_READING', field: 'source', message: 'source must be a non-empty string' };
  }
  let at: IsoTimestamp;
  try {
    at = toIso(reading.at);
  } catch {
    return { code: 'INVALID_READING', field: 'at', message: 'at must be an ISO 8601 timestamp' };
  }
  if (state.last_read_at !== null && at < state.last_read_at) {
    return {
      code: 'READING_OUT_OF_ORDER',
      message: `reading at ${at} is older than the last reading at ${state.last_read_at}`,
      last_read_at: state.last_read_at,
      at,
    };
  }
  if (!reading.reset && reading.value < state.last_value) {
    return {
      code: 'COUNTER_WENT_BACKWARDS',
      message: `value ${reading.value} is below the last value ${state.last_value}; send reset: true if the meter was reset`,
      last_value: state.last_value,
      value: reading.value,
    };
  }
  return null;
}

/**
 * Records a reading. When it reaches the next threshold the plan is due (thresholds_crossed >= 1) and
 * the threshold moves to the first grid point above the value, so one reading that passes several
 * thresholds causes one execution, not a burst of identical tasks.
 *
 * Reset: the meter counts again from zero, so the distance still to go is kept by moving the grid
 * down by the last value (next_threshold - last_value becomes the new threshold); usage between the
 * last reading and the reset is unknown and counted as zero.
 */
export function applyReading(state: CounterState, reading: CounterReading): ReadingResult {
  const rejection = validateReading(state, reading);
  if (rejection) return { ok: false, error: rejection };
  const at = toIso(reading.at);
  const reset = reading.reset === true;
  const shift = reset ? state.last_value : 0;
  const used = reset ? reading.value : reading.value - state.last_value;
  const total = tidy(state.total + Math.max(0, used));
  const shifted: CounterState = {
    ...state,
    anchor: tidy(state.anchor - shift),
    next_threshold: tidy(state.next_threshold - shift),
    last_value: reading.value,
    last_read_at: at,
    total,
    recent: [...state.recent, { at, total }].slice(-MAX_RECENT_READINGS),
  };
  const thresholds_crossed = crossedCount(shifted);
  const next = thresholds_crossed > 0 ? advancePastLastValue(shifted) : shifted;
  return {
    ok: true,
    state: next,
    recorded: { value: reading.value, source: reading.source, at, reset, total },
    thresholds_crossed,
  };
}

/** Combined triggers: an execution re-arms the counter from the current reading (value + every). */
export function rearmCounterFromLastValue(state: CounterState): CounterState {
  return { ...state, anchor: state.last_value, next_threshold: tidy(state.last_value + state.every) };
}

/** Moves next_threshold to the first grid point strictly above last_value (no-op when it already is). */
export function advancePastLastValue(state: CounterState): CounterState {
  const k = Math.max(1, Math.floor(tidy((state.last_value - state.anchor) / state.every)) + 1);
  const next_threshold = tidy(state.anchor + k * state.every);
  return next_threshold > state.next_threshold ? { ...state, next_threshold } : state;
}

/**
 * The counter state after the plan's counter part changed. Same meter: the readings are kept; the
 * grid keeps its anchor unless start_value changed (the user re-baselined), and the next threshold
 * is the first grid point of the new step above the last reading. Another meter: a fresh state.
 */
export function counterAfterTriggerChange(state: CounterState | null, previous: CounterPart | null, next: CounterPart): CounterState {
  if (state === null || state.counter !== next.counter) return initialCounterState(next);
  const rebaselined = previous === null || previous.start_value !== next.start_value;
  const anchor = rebaselined ? next.start_value : state.anchor;
  const k = Math.max(1, Math.floor(tidy((state.last_value - anchor) / next.every)) + 1);
  return { ...state, every: next.every, anchor, next_threshold: tidy(anchor + k * next.every) };
}

export interface RateOptions {
  window_hours?: number; // readings older than now - window are ignored (default 720 = 30 days)
  max_points?: number; // at most this many most recent readings (default 20)
}

/**
 * Usage rate per hour: least-squares slope of total over time across the recent readings in the
 * window. Null with fewer than 2 readings, readings all at the same instant, or a rate <= 0.
 */
export function estimateRatePerHour(points: UsagePoint[], now: Instant, options: RateOptions = {}): number | null {
  const windowHours = options.window_hours ?? 720;
  const maxPoints = options.max_points ?? MAX_RECENT_READINGS;
  const nowMs = toDate(now).getTime();
  const usable = points
    .map((p) => ({ t: toDate(p.at).getTime(), y: p.total }))
    .filter((p) => p.t <= nowMs && p.t >= nowMs - windowHours * MS_PER_HOUR)
    .slice(-maxPoints);
  if (usable.length < 2) return null;
  const t0 = usable[0].t;
  const xs = usable.map((p) => (p.t - t0) / MS_PER_HOUR);
  const meanX = xs.reduce((a, b) => a + b, 0) / xs.length;
  const meanY = usable.reduce((a, p) => a + p.y, 0) / usable.length;
  let sxx = 0;
  let sxy = 0;
  xs.forEach((x, i) => {
    sxx += (x - meanX) ** 2;
    sxy += (x - meanX) * (usable[i].y - meanY);
  });
  if (sxx === 0) return null;
  const slope = sxy / sxx;
  return slope > 0 ? slope : null;
}

export interface Projection {
  at: IsoTimestamp;
  rate_per_hour: number;
}

/** Projections further out than this say nothing useful (and soon leave the range of a Date). */
export const MAX_PROJECTION_YEARS = 100;
const MAX_PROJECTION_MS = MAX_PROJECTION_YEARS * 365.25 * 24 * MS_PER_HOUR;

/**
 * When the next threshold will be reached at the recent rate, counted from the last reading.
 * Never earlier than `now` (a projection already passed means "any moment"). Null when the rate
 * cannot be estimated (see estimateRatePerHour), or is so slow that the threshold is more than
 * MAX_PROJECTION_YEARS away (a meter creeping by 1e-266 per hour never comes due).
 */
export function projectNextDue(state: CounterState, now: Instant, options: RateOptions = {}): Projection | null {
  const rate = estimateRatePerHour(state.recent, now, options);
  if (rate === null || state.last_read_at === null) return null;
  const remaining = Math.max(0, state.next_threshold - state.last_value);
  const nowMs = toDate(now).getTime();
  const atMs = toDate(state.last_read_at).getTime() + (remaining / rate) * MS_PER_HOUR;
  if (!Number.isFinite(atMs) || atMs - nowMs > MAX_PROJECTION_MS) return null;
  return { at: new Date(Math.max(Math.round(atMs), nowMs)).toISOString(), rate_per_hour: rate };
}

function crossedCount(state: CounterState): number {
  if (state.last_value < state.next_threshold) return 0;
  return Math.floor(tidy((state.last_value - state.next_threshold) / state.every)) + 1;
}

// Thresholds are sums of decimal steps (0.1 + 0.2 = 0.30000000000000004); 15 significant digits
// keep them equal to what a person would write, so a reading of exactly 0.3 reaches a 0.3 threshold.
function tidy(n: number): number {
  return Number(n.toPrecision(15));
}
