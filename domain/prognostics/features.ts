import type { CycleRecord, InsufficientData } from './types';

/**
 * The one implementation of feature extraction. Training (scripts/prognostics/export-features.ts
 * writes these features to CSV for train.py), evaluation and the endpoint all call it, so the model
 * sees the same numbers everywhere.
 */

/** Statistics of one sensor over the window of the last `window` cycles. */
export type WindowStat = 'last' | 'mean' | 'std' | 'slope' | 'min' | 'max';

const WINDOW_STATS: readonly WindowStat[] = ['last', 'mean', 'std', 'slope', 'min', 'max'];

export function isWindowStat(value: unknown): value is WindowStat {
  return typeof value === 'string' && (WINDOW_STATS as readonly string[]).includes(value);
}

/** Which features a model consumes; stored in the model JSON next to the trees. */
export interface FeatureSpec {
  /** Number of most recent cycles the statistics are computed over (also the minimum history). */
  readonly window: number;
  readonly sensors: readonly string[];
  readonly stats: readonly WindowStat[];
  /**
   * Statistics of each sensor over the available history (every cycle where it is a finite
   * number), named `<sensor>_hist_<stat>`: the engine's own early level is the baseline its
   * recent window is compared against. Absent or empty: none.
   */
  readonly history_stats?: readonly WindowStat[];
  /**
   * The history statistics use at most this many most recent cycles, so a caller knows how much
   * history to load (`cyclesUsed`). FD001's longest training engine has 362 cycles.
   */
  readonly history_cycles?: number;
  /** Adds the current cycle number (age) as a feature. */
  readonly include_age: boolean;
}

/** The informative sensors of C-MAPSS FD001 (s1, s5, s6, s10, s16, s18, s19 are constant there). */
export const FD001_SENSORS: readonly string[] = ['s2', 's3', 's4', 's7', 's8', 's9', 's11', 's12', 's13', 's14', 's15', 's17', 's20', 's21'];

/** Named apart from the CSV's own `cycle` column. */
export const AGE_FEATURE = 'age_cycles';

/** How many most recent cycles the features read: what a caller should load. */
export function cyclesUsed(spec: FeatureSpec): number {
  return spec.history_stats && spec.history_stats.length > 0 ? Math.max(spec.window, spec.history_cycles ?? Infinity) : spec.window;
}

/**
 * Feature names in vector order: window statistics sensor-major (`s2_last`, `s2_mean`, ...), then
 * history statistics sensor-major (`s2_hist_mean`, ...), then the age.
 */
export function featureNames(spec: FeatureSpec): string[] {
  const names = spec.sensors.flatMap((sensor) => spec.stats.map((stat) => `${sensor}_${stat}`));
  const history = spec.sensors.flatMap((sensor) => (spec.history_stats ?? []).map((stat) => `${sensor}_hist_${stat}`));
  return spec.include_age ? [...names, ...history, AGE_FEATURE] : [...names, ...history];
}

export type FeatureResult = { readonly ok: true; readonly values: number[]; readonly last_cycle: number } | { readonly ok: false; readonly insufficient: InsufficientData };

/**
 * Features of the most recent `spec.window` cycles of `series`. The series may come in any order
 * (it is sorted by cycle here); duplicate or non-finite cycle numbers, fewer cycles than the window,
 * or a required sensor missing or non-finite in any cycle of the window give a typed refusal.
 */
export function extractFeatures(series: readonly CycleRecord[], spec: FeatureSpec): FeatureResult {
  const ordered = orderedSeries(series);
  if (!ordered.ok) return ordered;
  const records = ordered.records;
  if (records.length < spec.window) {
    return refuse({ reason: 'too_few_cycles', required_cycles: spec.window, available_cycles: records.length });
  }
  const window = records.slice(records.length - spec.window);
  const missing = spec.sensors.filter((s) => window.some((r) => !Number.isFinite(r.sensors[s])));
  if (missing.length > 0) return refuse({ reason: 'missing_sensors', sensors: missing });

  const cycles = window.map((r) => r.cycle);
  const values: number[] = [];
  for (const sensor of spec.sensors) {
    const ys = window.map((r) => r.sensors[sensor] as number);
    for (const stat of spec.stats) values.push(windowStat(stat, cycles, ys));
  }
  if (spec.history_stats && spec.history_stats.length > 0) {
    for (const sensor of spec.sensors) {
      // The window's check above guarantees at least `window` finite values here.
      const history = spec.history_cycles === undefined ? records : records.slice(-spec.history_cycles);
      const observed = history.filter((r) => Number.isFinite(r.sensors[sensor]));
      const xs = observed.map((r) => r.cycle);
      const ys = observed.map((r) => r.sensors[sensor] as number);
      for (const stat of spec.history_stats) values.push(windowStat(stat, xs, ys));
    }
  }
  const lastCycle = cycles[cycles.length - 1] as number;
  if (spec.include_age) values.push(lastCycle);
  return { ok: true, values, last_cycle: lastCycle };
}

/**
 * The last `window` cycles (oldest first) of `sensors`, one row per cycle. For a series extractFeatures
 * accepted with a window at least this long, so every value is a finite number.
 */
export function recentWindow(series: readonly CycleRecord[], window: number, sensors: readonly string[]): number[][] {
  const records = [...series].sort((a, b) => a.cycle - b.cycle).slice(-window);
  return records.map((r) => sensors.map((s) => r.sensors[s] as number));
}

function refuse(insufficient: InsufficientData): FeatureResult {
  return { ok: false, insufficient };
}

function orderedSeries(series: readonly CycleRecord[]): { ok: true; records: CycleRecord[] } | { ok: false; insufficient: InsufficientData } {
  if (series.some((r) => !Number.isFinite(r.cycle))) {
    return { ok: false, insufficient: { reason: 'invalid_series', detail: 'a cycle number is not a finite number' } };
  }
  const records = [...series].sort((a, b) => a.cycle - b.cycle);
  for (let i = 1; i < records.length; i++) {
    if ((records[i] as CycleRecord).cycle === (records[i - 1] as CycleRecord).cycle) {
      const detail = `cycle ${(records[i] as CycleRecord).cycle} appears more than once`;
      return { ok: false, insufficient: { reason: 'invalid_series', detail } };
    }
  }
  return { ok: true, records };
}

/** One statistic of `ys` (observed at cycle numbers `xs`, ascending, distinct, non-empty). */
export function windowStat(stat: WindowStat, xs: readonly number[], ys: readonly number[]): number {
  switch (stat) {
    case 'last':
      return ys[ys.length - 1] as number;
    case 'mean':
      return mean(ys);
    case 'std':
      return populationStd(ys);
    case 'slope':
      return leastSquaresSlope(xs, ys);
    case 'min':
      return Math.min(...ys);
    case 'max':
      return Math.max(...ys);
  }
}

function mean(ys: readonly number[]): number {
  let sum = 0;
  for (const y of ys) sum += y;
  return sum / ys.length;
}

function populationStd(ys: readonly number[]): number {
  const m = mean(ys);
  let sq = 0;
  for (const y of ys) sq += (y - m) * (y - m);
  return Math.sqrt(sq / ys.length);
}

/** Ordinary least-squares slope of y against the cycle number (per cycle); 0 for a single point. */
function leastSquaresSlope(xs: readonly number[], ys: readonly number[]): number {
  const mx = mean(xs);
  const my = mean(ys);
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < xs.length; i++) {
    const dx = (xs[i] as number) - mx;
    sxy += dx * ((ys[i] as number) - my);
    sxx += dx * dx;
  }
  return sxx === 0 ? 0 : sxy / sxx;
}
