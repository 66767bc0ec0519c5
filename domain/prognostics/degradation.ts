/**
 * Prognostics for any monitored asset (issue 20): for each parameter with a failure limit (the
 * predictive config's, else the edge of its baseline band), fit the degradation trend of its
 * readings, project it to the limit, and take the earliest crossing. Pure and deterministic.
 *
 * - Uneven sampling and gaps: readings are averaged into at most MAX_BUCKETS equal time buckets
 *   (empty buckets dropped), so a burst of fast samples does not outweigh a quiet month.
 * - Noise and outliers: Theil-Sen (median of pairwise slopes, median intercept), not least squares.
 * - Shape: linear, and exponential (linear in log space, positive series only), each over the whole
 *   window, its recent half and its recent quarter (degradation that starts late: flat, then
 *   rising); judged by the robust residual over the recent quarter; a more complex fit (shorter
 *   window, exponential shape) must cut it by a quarter.
 * - Uncertainty: residual scale 1.4826 x MAD, slope standard error from it; the crossing's 90 %
 *   interval from slope +/- 1.645 SE, widened to the crossings of the other plausible candidates
 *   (error within 1.5 x the best: the shape is the larger uncertainty); the probability of crossing within the horizon from the
 *   normal approximation of (level now + slope x horizon). Parameters combine as independent:
 *   P = 1 - prod(1 - p_i), and so does the asset type's failure prior from its corrective tasks.
 * - A parameter moving away from its limits, or whose change over the window is within its noise,
 *   gives no finite RUL and a low probability.
 */
import { recommendAction, type ActionThresholds, type RecommendedAction } from './actions';
import { median, roundTo as round } from '../numbers';
import { failurePrior, withPrior, type FailureHistory, type FailurePrior } from './failure-prior';
import { confidenceLevel, normalCdf, type ConfidenceLevel } from './uncertainty';

/** v2: the asset type's corrective history joins the trends' probability (failure-prior.ts). */
export const DEGRADATION_MODEL_VERSION = 'degradation-trend-v2';
const MS_PER_DAY = 86_400_000;
const MAX_BUCKETS = 100;
/** Fewer time buckets than this, or a shorter span, is too little to fit a trend on. */
export const MIN_BUCKETS = 8;
export const MIN_SPAN_MS = 2 * 60_000;
const Z90 = 1.645;
/** How many times its noise (and its slope's standard error) a trend must stand out by. */
const SIGNIFICANT = 3;
/** A more complex fit is taken only when its error is below this fraction of the simpler one's. */
const PARSIMONY = 0.75;
/** Candidates whose error is within this factor of the best one's widen the interval. */
const PLAUSIBLE = 1.5;

export interface TimedReading {
  /** Epoch milliseconds. */
  readonly t: number;
  readonly y: number;
}

export type LimitSource = 'predictive_config' | 'baseline_band';

export interface ParameterHistory {
  readonly parameter: string;
  readonly readings: readonly TimedReading[];
  readonly upper: number | null;
  readonly lower: number | null;
  readonly limit_source: LimitSource;
}

export type TrendShape = 'linear' | 'exponential';

export interface ParameterProjection {
  readonly parameter: string;
  readonly shape: TrendShape;
  readonly limit: number;
  readonly limit_kind: 'upper' | 'lower';
  readonly limit_source: LimitSource;
  /** Fitted level now, in the parameter's unit. */
  readonly level_now: number;
  /** Days until the fitted trend reaches the limit; null: it does not head there. */
  readonly rul_days: number | null;
  /** 90 % interval of rul_days; the upper end null when unbounded. */
  readonly rul_interval_days: readonly [number, number | null] | null;
  readonly crossing_at: string | null;
  readonly failure_probability: number;
  readonly readings: number;
  readonly days: number;
  readonly confidence: number;
}

export interface DegradationPrognosis {
  readonly status: 'ok';
  readonly remaining_useful_life: number | null;
  /** Within the horizon: the trends' and the failure prior's together. */
  readonly failure_probability: number;
  /** The trends' part alone. */
  readonly trend_failure_probability: number;
  /** The asset type's corrective history; null where it has none (no prior is used). */
  readonly failure_history: FailurePrior | null;
  readonly horizon_days: number;
  readonly recommended_action: RecommendedAction;
  readonly confidence: number;
  readonly confidence_level: ConfidenceLevel;
  readonly projected_crossing_at: string | null;
  /** The parameters that drove the answer, earliest crossing first. */
  readonly drivers: readonly ParameterProjection[];
  readonly model_version: string;
}

export interface DegradationInsufficient {
  readonly status: 'insufficient_data';
  readonly reason: 'no_limits' | 'too_few_readings';
  readonly message: string;
  readonly parameters: ReadonlyArray<{ parameter: string; readings: number; buckets: number; span_minutes: number }>;
  readonly model_version: string;
}

interface Point {
  readonly t: number; // days since the window's start
  readonly y: number;
}

interface Fit {
  readonly shape: TrendShape;
  /** In the fitted space (log for exponential): value = intercept + slope * t. */
  readonly slope: number;
  readonly intercept: number;
  readonly sigma: number;
  readonly slopeSe: number;
  /** Robust residual scale over the most recent window, in the original unit: the selection score. */
  readonly recentError: number;
  readonly n: number;
  /** Where the fit's window starts (days since the first reading). */
  readonly fromT: number;
}

/** Robust scale: 1.4826 x the median absolute deviation (the standard deviation for normal noise). */
const robustScale = (values: number[]): number => {
  const centre = median(values);
  return 1.4826 * median(values.map((v) => Math.abs(v - centre)));
};

/** Equal time buckets, averaged; empty ones dropped. */
function bucketed(readings: readonly TimedReading[], startMs: number, spanMs: number): Point[] {
  const buckets = Math.min(MAX_BUCKETS, readings.length);
  const sums = new Map<number, { t: number; y: number; n: number }>();
  for (const r of readings) {
    const index = spanMs === 0 ? 0 : Math.min(buckets - 1, Math.floor(((r.t - startMs) / spanMs) * buckets));
    const b = sums.get(index) ?? { t: 0, y: 0, n: 0 };
    sums.set(index, { t: b.t + r.t, y: b.y + r.y, n: b.n + 1 });
  }
  return [...sums.entries()].sort(([a], [b]) => a - b).map(([, b]) => ({ t: (b.t / b.n - startMs) / MS_PER_DAY, y: b.y / b.n }));
}

function theilSen(points: readonly Point[], transform: (y: number) => number): { slope: number; intercept: number; sigma: number; slopeSe: number } {
  const ys = points.map((p) => transform(p.y));
  const slopes: number[] = [];
  for (let i = 0; i < points.length; i++) {
    for (let j = i + 1; j < points.length; j++) {
      const dt = points[j]!.t - points[i]!.t;
      if (dt > 0) slopes.push((ys[j]! - ys[i]!) / dt);
    }
  }
  const slope = slopes.length ? median(slopes) : 0;
  const intercept = median(points.map((p, i) => ys[i]! - slope * p.t));
  const residuals = points.map((p, i) => ys[i]! - (intercept + slope * p.t));
  const sigma = robustScale(residuals);
  const meanT = points.reduce((s, p) => s + p.t, 0) / points.length;
  const stt = points.reduce((s, p) => s + (p.t - meanT) ** 2, 0);
  return { slope, intercept, sigma, slopeSe: stt > 0 ? sigma / Math.sqrt(stt) : Infinity };
}

function fitCandidates(points: readonly Point[]): Fit[] {
  const span = points[points.length - 1]!.t - points[0]!.t;
  const since = (fraction: number) => points.filter((p) => p.t >= points[0]!.t + span * (1 - fraction));
  const recent = since(1 / 2);
  // The whole window, its recent half and quarter (a degradation that started late), where they
  // hold enough points; errors are compared over the recent quarter, where the projection starts.
  const windows = [points, recent, since(1 / 4)].filter((w, i) => i === 0 || w.length >= MIN_BUCKETS);
  const judged = windows[windows.length - 1]!;
  const shapes: Array<{ shape: TrendShape; forward: (y: number) => number; back: (v: number) => number }> = [{ shape: 'linear', forward: (y) => y, back: (v) => v }];
  if (points.every((p) => p.y > 0)) shapes.push({ shape: 'exponential', forward: Math.log, back: Math.exp });
  // Simplest first: linear before exponential, the whole window before its recent half.
  const fits: Fit[] = [];
  for (const { shape, forward, back } of shapes) {
    for (const window of windows) {
      const f = theilSen(window, forward);
      const recentError = 1.4826 * median(judged.map((p) => Math.abs(p.y - back(f.intercept + f.slope * p.t))));
      fits.push({ shape, ...f, recentError, n: window.length, fromT: window[0]!.t });
    }
  }
  return fits;
}

/** The projection of one parameter to its limit, or null when it has too little data. */
export function projectParameter(
  history: ParameterHistory,
  nowMs: number,
  horizonDays: number,
): ParameterProjection | { insufficient: { readings: number; buckets: number; span_minutes: number } } {
  const readings = history.readings.filter((r) => Number.isFinite(r.y) && Number.isFinite(r.t) && r.t <= nowMs);
  const startMs = Math.min(...readings.map((r) => r.t));
  const endMs = Math.max(...readings.map((r) => r.t));
  const points = readings.length ? bucketed(readings, startMs, endMs - startMs) : [];
  if (points.length < MIN_BUCKETS || endMs - startMs < MIN_SPAN_MS) {
    return { insufficient: { readings: readings.length, buckets: points.length, span_minutes: readings.length ? Math.round((endMs - startMs) / 60_000) : 0 } };
  }
  // Parsimony: a more complex candidate (the recent half, then the exponential shape) must cut the
  // error by a quarter; an exponential fits a noisy straight line about as well and would project
  // an acceleration that is not there.
  const candidates = fitCandidates(points);
  const fit = candidates.reduce((chosen, f) => (f.recentError < chosen.recentError * PARSIMONY ? f : chosen));
  const log = fit.shape === 'exponential';
  const toFitted = (y: number) => (log ? Math.log(y) : y);
  const fromFitted = (v: number) => (log ? Math.exp(v) : v);
  const nowT = (nowMs - startMs) / MS_PER_DAY;
  const fittedNow = fit.intercept + fit.slope * nowT;
  const levelNow = fromFitted(fittedNow);
  const spanDays = (endMs - startMs) / MS_PER_DAY;

  // Past a limit already, by the fit or by the latest readings: a fact, whichever way the fit
  // heads. A fit robust to outliers lags a sudden rise and may even tilt the other way, so the
  // latest readings far above the band must not be judged against its lower edge.
  const observed = median(points.slice(-3).map((p) => p.y));
  const crossedUpper = history.upper !== null && (levelNow >= history.upper || observed >= history.upper);
  const crossedLower = history.lower !== null && (levelNow <= history.lower || observed <= history.lower);
  // Otherwise the limit the trend heads for (the upper one when rising, the lower one when
  // falling). With no limit on that side (or no slope), the other limit is reported, unreached.
  const heading = crossedUpper ? history.upper : crossedLower ? history.lower : fit.slope > 0 ? history.upper : fit.slope < 0 ? history.lower : null;
  const limit = (heading ?? history.upper ?? history.lower)!;
  const limitKind: 'upper' | 'lower' = limit === history.upper ? 'upper' : 'lower';
  // A change over the window within the noise is no trend.
  // A trend only when it stands out of the noise on the fit's own window: its fitted change must
  // exceed three times the noise of single readings (bucket means are quieter and would make a
  // flat series' random tilt look real), and its slope three standard errors. A short recent
  // window picked from many parameters would otherwise find a tilt somewhere in a flat plant.
  const inWindow = readings.filter((r) => (r.t - startMs) / MS_PER_DAY >= fit.fromT);
  const residuals = inWindow.map((r) => r.y - fromFitted(fit.intercept + fit.slope * ((r.t - startMs) / MS_PER_DAY)));
  const readingNoise = robustScale(residuals);
  const fittedChange = Math.abs(fromFitted(fit.intercept + fit.slope * spanDays) - fromFitted(fit.intercept + fit.slope * fit.fromT));
  const significant = fittedChange > SIGNIFICANT * readingNoise && Math.abs(fit.slope) > SIGNIFICANT * fit.slopeSe;
  const confidence = Math.min(1, points.length / 30) * Math.min(1, spanDays / 7) * (significant ? 1 / (1 + fit.sigma / (Math.abs(fit.slope) * spanDays)) : 0.5);

  const beyond = crossedUpper || crossedLower;
  let rulDays: number | null = null;
  let interval: [number, number | null] | null = null;
  let probability: number;
  if (beyond) {
    rulDays = 0;
    interval = [0, 0];
    probability = 1;
  } else {
    const needed = toFitted(limit) - fittedNow; // signed change in the fitted space
    const towards = heading !== null && significant && Math.sign(needed) === Math.sign(fit.slope);
    if (towards) {
      rulDays = needed / fit.slope;
      // The 90 % interval: the slope's own uncertainty, widened to every other plausible candidate
      // (shape and window), since a wrong shape is the larger error in practice.
      const bestError = Math.min(...candidates.map((f) => f.recentError));
      const plausible = candidates.filter((f) => f.recentError <= bestError * PLAUSIBLE);
      const ranges = plausible.map((f) => crossingRange(f, limit, nowT)).filter((r): r is [number, number | null] => r !== null);
      interval = [Math.min(...ranges.map((r) => r[0])), ranges.some((r) => r[1] === null) ? null : Math.max(...ranges.map((r) => r[1]!))];
    }
    // P(level at the horizon beyond the limit): slope and level uncertainty, in the fitted space.
    const spread = Math.sqrt((fit.slopeSe * horizonDays) ** 2 + fit.sigma ** 2 / fit.n);
    const travel = fit.slope * horizonDays * Math.sign(needed);
    probability = spread > 0 && Number.isFinite(spread) ? 1 - normalCdf((Math.abs(needed) - travel) / spread) : travel >= Math.abs(needed) ? 1 : 0;
    if (!towards) probability = Math.min(probability, 0.05);
  }
  return {
    parameter: history.parameter,
    shape: fit.shape,
    limit,
    limit_kind: limitKind,
    limit_source: history.limit_source,
    level_now: round(levelNow, 4),
    rul_days: rulDays === null ? null : round(rulDays, 2),
    rul_interval_days: interval && [round(interval[0], 2), interval[1] === null ? null : round(interval[1], 2)],
    crossing_at: rulDays === null ? null : new Date(nowMs + rulDays * MS_PER_DAY).toISOString(),
    failure_probability: round(probability, 3),
    readings: readings.length,
    days: round(spanDays, 2),
    confidence: round(confidence, 2),
  };
}

/** Days until `fit` reaches `limit` from day `nowT`, at its slope +/- 1.645 SE; null when it does not head there. */
function crossingRange(fit: Fit, limit: number, nowT: number): [number, number | null] | null {
  const log = fit.shape === 'exponential';
  if (log && !(limit > 0)) return null;
  const needed = (log ? Math.log(limit) : limit) - (fit.intercept + fit.slope * nowT);
  if (Math.sign(needed) !== Math.sign(fit.slope) || fit.slope === 0) return null;
  const fast = Math.abs(fit.slope) + Z90 * fit.slopeSe;
  const slow = Math.abs(fit.slope) - Z90 * fit.slopeSe;
  return [Math.abs(needed) / fast, slow > 0 ? Math.abs(needed) / slow : null];
}

export function prognoseDegradation(
  histories: readonly ParameterHistory[],
  options: { nowMs: number; horizonDays: number; thresholds: ActionThresholds; failureHistory?: FailureHistory | null },
): DegradationPrognosis | DegradationInsufficient {
  const limited = histories.filter((h) => h.upper !== null || h.lower !== null);
  if (limited.length === 0) {
    return {
      status: 'insufficient_data',
      reason: 'no_limits',
      message: 'no monitored parameter has a baseline or a failure limit to project to',
      parameters: [],
      model_version: DEGRADATION_MODEL_VERSION,
    };
  }
  const projections: ParameterProjection[] = [];
  const short: DegradationInsufficient['parameters'][number][] = [];
  for (const history of limited) {
    const p = projectParameter(history, options.nowMs, options.horizonDays);
    if ('insufficient' in p) short.push({ parameter: history.parameter, ...p.insufficient });
    else projections.push(p);
  }
  if (projections.length === 0) {
    const needs = short.map((s) => `${s.parameter}: ${s.buckets} of ${MIN_BUCKETS} time buckets over ${s.span_minutes} of ${MIN_SPAN_MS / 60_000} minutes`);
    return {
      status: 'insufficient_data',
      reason: 'too_few_readings',
      message: `needs readings spread over time: ${needs.join('; ')}`,
      parameters: short,
      model_version: DEGRADATION_MODEL_VERSION,
    };
  }
  const drivers = [...projections].sort((a, b) => (a.rul_days ?? Infinity) - (b.rul_days ?? Infinity) || b.failure_probability - a.failure_probability);
  const first = drivers[0]!;
  const trendProbability = 1 - projections.reduce((keep, p) => keep * (1 - p.failure_probability), 1);
  const prior = options.failureHistory ? failurePrior(options.failureHistory, options.horizonDays) : null;
  const probability = withPrior(trendProbability, prior);
  const confidence = first.confidence;
  const level = confidenceLevel(confidence);
  return {
    status: 'ok',
    remaining_useful_life: first.rul_days === null ? null : round(first.rul_days, 1),
    failure_probability: round(probability, 3),
    trend_failure_probability: round(trendProbability, 3),
    failure_history: prior,
    horizon_days: options.horizonDays,
    recommended_action: recommendAction(first.rul_days ?? Infinity, probability, level, options.thresholds),
    confidence,
    confidence_level: level,
    projected_crossing_at: first.crossing_at,
    drivers,
    model_version: DEGRADATION_MODEL_VERSION,
  };
}
