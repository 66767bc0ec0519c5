/**
 * The tolerance band of a baseline: baseline_value ± tolerance_percent of |baseline_value|.
 * The tenant's alert sensitivity (predictive config) divides the tolerance: 2 halves the band,
 * 0.5 doubles it. Edges are inside the band.
 */
export interface ToleranceBand {
  readonly baseline: number;
  /** Effective tolerance in percent, after the sensitivity. */
  readonly tolerancePercent: number;
  readonly lower: number;
  readonly upper: number;
}

export type BandPosition = 'inside' | 'above' | 'below';

export function toleranceBand(baselineValue: number, tolerancePercent: number, sensitivity = 1): ToleranceBand {
  if (!(sensitivity > 0)) throw new RangeError('sensitivity must be positive');
  const effective = tolerancePercent / sensitivity;
  const half = (Math.abs(baselineValue) * effective) / 100;
  return { baseline: baselineValue, tolerancePercent: effective, lower: baselineValue - half, upper: baselineValue + half };
}

export function bandPosition(value: number, band: ToleranceBand): BandPosition {
  if (value > band.upper) return 'above';
  if (value < band.lower) return 'below';
  return 'inside';
}

/**
 * Distance from the baseline in units of the band's half-width: 0 at the baseline, 1 at an edge,
 * 2 twice as far out. A zero-width band (baseline 0 or tolerance 0) gives 0 at the baseline and
 * Infinity anywhere else.
 */
export function deviationRatio(value: number, band: ToleranceBand): number {
  const half = band.upper - band.baseline;
  const distance = Math.abs(value - band.baseline);
  if (half <= 0) return distance === 0 ? 0 : Infinity;
  return distance / half;
}

/** Signed deviation from the baseline in percent of |baseline|; null for a baseline of 0. */
export function deviationPercent(value: number, baseline: number): number | null {
  if (baseline === 0) return null;
  return round2(((value - baseline) / Math.abs(baseline)) * 100);
}

export function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
