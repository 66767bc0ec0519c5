/**
 * Direction of a factor over its recent readings: the least-squares slope of the factor's score
 * against time, expressed as the change it implies over the span of the readings.
 */
export type Trend = 'stable' | 'improving' | 'declining';

export interface TimedValue {
  /** Epoch milliseconds. */
  readonly t: number;
  readonly y: number;
}

/** Readings per parameter a trend is fitted over (the newest ones). */
export const TREND_WINDOW = 20;
/** Fewer points than this are no trend: `stable`. */
export const MIN_TREND_POINTS = 3;
/** A score change over the window smaller than this (in score points) is `stable`. */
export const TREND_THRESHOLD_POINTS = 5;

/** Ordinary least-squares slope of y per millisecond; 0 when every point has the same time. */
export function slopePerMs(points: readonly TimedValue[]): number {
  const n = points.length;
  if (n < 2) return 0;
  let mt = 0;
  let my = 0;
  for (const p of points) {
    mt += p.t;
    my += p.y;
  }
  mt /= n;
  my /= n;
  let sty = 0;
  let stt = 0;
  for (const p of points) {
    sty += (p.t - mt) * (p.y - my);
    stt += (p.t - mt) * (p.t - mt);
  }
  return stt === 0 ? 0 : sty / stt;
}

/**
 * Trend of a score series (higher is better): the fitted change across the window is compared
 * with the threshold, so a few noisy points do not flip the trend.
 */
export function scoreTrend(points: readonly TimedValue[], threshold: number = TREND_THRESHOLD_POINTS): Trend {
  if (points.length < MIN_TREND_POINTS) return 'stable';
  let first = Infinity;
  let last = -Infinity;
  for (const p of points) {
    first = Math.min(first, p.t);
    last = Math.max(last, p.t);
  }
  const change = slopePerMs(points) * (last - first);
  if (change >= threshold) return 'improving';
  if (change <= -threshold) return 'declining';
  return 'stable';
}
