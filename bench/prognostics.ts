/**
 * The general prognostics model on synthetic run-to-failure series with a known crossing
 * (issue 20): linear, exponential, and flat-then-drifting degradation; noise of 1, 3 and 5 %;
 * sampling every 6 hours, every hour and every 10 minutes; with and without a gap of a fifth of
 * the history. Each case: 30 days of history, the true crossing of the limit 5 to 60 days ahead.
 * Figures: the median absolute error of the RUL relative to the true RUL (target <= 0.2), and how
 * often the true RUL lies inside the 90 % interval (target >= 0.85).
 */
import { DEFAULT_ACTION_THRESHOLDS } from '../domain/prognostics/actions';
import { prognoseDegradation, type TimedReading } from '../domain/prognostics/degradation';

const DAY = 86_400_000;
const HISTORY_DAYS = 30;
const LIMIT = 10;

/** A seeded generator (mulberry32) and normal noise from it: the same cases on every run. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const gaussian = (rnd: () => number) => Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());

type Shape = 'linear' | 'exponential' | 'step_drift';

/** A level that reaches LIMIT exactly `rulDays` after the end of the history (day HISTORY_DAYS). */
function levelFunction(shape: Shape, rulDays: number): (day: number) => number {
  const crossing = HISTORY_DAYS + rulDays;
  switch (shape) {
    case 'linear': // from 4 at day 0
      return (d) => 4 + ((LIMIT - 4) * d) / crossing;
    case 'exponential': // 4 e^(k d), k so that it reaches LIMIT at the crossing
      return (d) => 4 * Math.exp((Math.log(LIMIT / 4) * d) / crossing);
    case 'step_drift': {
      // Flat at 4 until day 15, then a straight drift to LIMIT at the crossing.
      const start = 15;
      return (d) => (d < start ? 4 : 4 + ((LIMIT - 4) * (d - start)) / (crossing - start));
    }
  }
}

function history(shape: Shape, rulDays: number, noise: number, everyMinutes: number, gap: boolean, rnd: () => number, nowMs: number): TimedReading[] {
  const level = levelFunction(shape, rulDays);
  const readings: TimedReading[] = [];
  const gapStart = 8 + rnd() * 12;
  for (let minute = 0; minute <= HISTORY_DAYS * 1440; minute += everyMinutes) {
    const day = minute / 1440;
    if (gap && day >= gapStart && day < gapStart + HISTORY_DAYS / 5) continue;
    readings.push({ t: nowMs - (HISTORY_DAYS - day) * DAY, y: level(day) * (1 + noise * gaussian(rnd)) });
  }
  return readings;
}

export function runPrognosticsBench(): Record<string, string | number> {
  const rnd = random(20261125);
  const nowMs = Date.UTC(2026, 10, 25);
  const errors: number[] = [];
  const byShape = new Map<Shape, number[]>();
  let covered = 0;
  let cases = 0;
  let noFinite = 0;
  const t0 = performance.now();
  for (const shape of ['linear', 'exponential', 'step_drift'] as const) {
    for (const noise of [0.01, 0.03, 0.05]) {
      for (const everyMinutes of [360, 60, 10]) {
        for (const gap of [false, true]) {
          for (const rulDays of [5, 15, 30, 60]) {
            const readings = history(shape, rulDays, noise, everyMinutes, gap, rnd, nowMs);
            const p = prognoseDegradation([{ parameter: 'vibration', readings, upper: LIMIT, lower: null, limit_source: 'baseline_band' }], {
              nowMs,
              horizonDays: 30,
              thresholds: DEFAULT_ACTION_THRESHOLDS,
            });
            cases += 1;
            if (p.status !== 'ok' || p.remaining_useful_life === null) {
              noFinite += 1;
              errors.push(1);
              continue;
            }
            const error = Math.abs(p.remaining_useful_life - rulDays) / rulDays;
            errors.push(error);
            byShape.set(shape, [...(byShape.get(shape) ?? []), error]);
            const [low, high] = p.drivers[0]!.rul_interval_days!;
            if (low <= rulDays && (high === null || rulDays <= high)) covered += 1;
          }
        }
      }
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
  return {
    cases: `${cases} (3 shapes x 3 noise levels x 3 samplings x gap or not x 4 true RULs)`,
    median_relative_rul_error: median(errors).toFixed(3),
    ...Object.fromEntries([...byShape].map(([shape, e]) => [`median_relative_error_${shape}`, median(e).toFixed(3)])),
    interval_90_coverage: (covered / cases).toFixed(3),
    no_finite_rul: noFinite,
    ms_per_case: ((performance.now() - t0) / cases).toFixed(1),
  };
}
