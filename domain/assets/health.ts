import { deviationPercent, deviationRatio, round2, ToleranceBand } from './band';
import { scoreTrend, TimedValue, Trend } from './trend';

/**
 * Asset health (SPEC.md, Asset health): a 0..100 score explained by its factors. Pure: the caller
 * passes the evidence (baselines with recent readings, inspections); README.md documents the rules.
 */

export const HEALTH_STATUSES = ['critical', 'poor', 'fair', 'good', 'excellent'] as const;
export type HealthStatus = (typeof HEALTH_STATUSES)[number];

/** Inclusive lower bound of each status (SPEC.md): critical 0-25, poor 26-50, fair 51-70, good 71-90, excellent 91-100. */
const STATUS_FLOORS: readonly [number, HealthStatus][] = [
  [91, 'excellent'],
  [71, 'good'],
  [51, 'fair'],
  [26, 'poor'],
  [0, 'critical'],
];

export function statusForScore(score: number): HealthStatus {
  if (!Number.isInteger(score) || score < 0 || score > 100) throw new RangeError(`health score must be an integer 0..100, got ${score}`);
  for (const [floor, status] of STATUS_FLOORS) if (score >= floor) return status;
  return 'critical';
}

export const CONDITIONS = ['good', 'fair', 'poor', 'critical'] as const;
export type Condition = (typeof CONDITIONS)[number];

/**
 * Score of a parameter from its deviation ratio (0 at the baseline, 1 at the band's edge):
 * piecewise linear through (0,100) (1,71) (1.5,51) (2,26) (3,0), floored to an integer. The knots
 * sit on the status floors, so "inside the band" is exactly good or excellent, and the condition
 * of a parameter (fair up to 1.5×, poor up to 2×, critical beyond) reads off the same bands.
 */
const RATIO_KNOTS: readonly [number, number][] = [
  [0, 100],
  [1, 71],
  [1.5, 51],
  [2, 26],
  [3, 0],
];

export function parameterScore(ratio: number): number {
  if (!(ratio >= 0)) throw new RangeError(`deviation ratio must be >= 0, got ${ratio}`);
  for (let i = 1; i < RATIO_KNOTS.length; i++) {
    const [r1, s1] = RATIO_KNOTS[i] as [number, number];
    if (ratio <= r1) {
      const [r0, s0] = RATIO_KNOTS[i - 1] as [number, number];
      return Math.floor(s0 + ((ratio - r0) / (r1 - r0)) * (s1 - s0) + 1e-9);
    }
  }
  return 0;
}

/** An inspector's rating as a score: the middle-to-top of the matching band. */
export const INSPECTION_SCORES: Readonly<Record<Condition, number>> = { good: 100, fair: 60, poor: 40, critical: 15 };

/** Weight of the inspection factor when there are parameter factors too. */
export const INSPECTION_WEIGHT = 0.3;
/** The score never exceeds the worst factor by more than this: one failing factor is not averaged away. */
export const WORST_FACTOR_MARGIN = 25;

export interface ParameterEvidence {
  readonly parameter: string;
  readonly band: ToleranceBand;
  /** Recent readings (t, value) of the parameter in any order; the newest one is the current value. Non-empty. */
  readonly recent: readonly TimedValue[];
}

export interface InspectionEvidence {
  readonly condition: Condition;
  /** Epoch milliseconds. */
  readonly performedAt: number;
}

export interface HealthInput {
  readonly parameters: readonly ParameterEvidence[];
  /** Newest first; the first is the last inspection, the second (if any) gives its trend. */
  readonly inspections: readonly InspectionEvidence[];
}

export type HealthFactor =
  | {
      readonly kind: 'parameter';
      readonly name: string;
      readonly score: number;
      readonly trend: Trend;
      readonly value: number;
      readonly baseline_value: number;
      readonly tolerance_percent: number;
      readonly deviation_percent: number | null;
      readonly measured_at: string;
    }
  | {
      readonly kind: 'inspection';
      readonly name: 'inspection';
      readonly score: number;
      readonly trend: Trend;
      readonly condition: Condition;
      readonly performed_at: string;
    };

export interface Health {
  readonly health_score: number;
  readonly status: HealthStatus;
  readonly factors: readonly HealthFactor[];
}

export function parameterFactor(evidence: ParameterEvidence): HealthFactor {
  if (evidence.recent.length === 0) throw new RangeError(`parameter ${evidence.parameter} has no readings`);
  const ordered = [...evidence.recent].sort((a, b) => a.t - b.t);
  const latest = ordered[ordered.length - 1] as TimedValue;
  const scoreOf = (value: number) => parameterScore(deviationRatio(value, evidence.band));
  return {
    kind: 'parameter',
    name: evidence.parameter,
    score: scoreOf(latest.y),
    trend: scoreTrend(ordered.map((p) => ({ t: p.t, y: scoreOf(p.y) }))),
    value: latest.y,
    baseline_value: evidence.band.baseline,
    tolerance_percent: round2(evidence.band.tolerancePercent),
    deviation_percent: deviationPercent(latest.y, evidence.band.baseline),
    measured_at: new Date(latest.t).toISOString(),
  };
}

export function inspectionFactor(inspections: readonly InspectionEvidence[]): HealthFactor | null {
  const [last, previous] = inspections;
  if (!last) return null;
  const score = INSPECTION_SCORES[last.condition];
  const before = previous ? INSPECTION_SCORES[previous.condition] : score;
  const trend: Trend = score > before ? 'improving' : score < before ? 'declining' : 'stable';
  return { kind: 'inspection', name: 'inspection', score, trend, condition: last.condition, performed_at: new Date(last.performedAt).toISOString() };
}

/**
 * health = min(weighted mean of the factors, worst factor + 25), floored. The parameter factors
 * share 70 % of the weight equally and the last inspection has 30 % (100 % of whichever kind is
 * alone). Without any factor nothing lowers the score: 100.
 */
export function computeHealth(input: HealthInput): Health {
  const parameterFactors = [...input.parameters].sort((a, b) => (a.parameter < b.parameter ? -1 : a.parameter > b.parameter ? 1 : 0)).map(parameterFactor);
  const inspection = inspectionFactor(input.inspections);
  const factors: HealthFactor[] = inspection ? [...parameterFactors, inspection] : parameterFactors;
  if (factors.length === 0) return { health_score: 100, status: 'excellent', factors };

  const parameterMean = parameterFactors.length ? parameterFactors.reduce((s, f) => s + f.score, 0) / parameterFactors.length : null;
  const weighted =
    parameterMean === null ? (inspection as HealthFactor).score : inspection ? (1 - INSPECTION_WEIGHT) * parameterMean + INSPECTION_WEIGHT * inspection.score : parameterMean;
  const worst = Math.min(...factors.map((f) => f.score));
  const score = Math.max(0, Math.min(100, Math.floor(Math.min(weighted, worst + WORST_FACTOR_MARGIN) + 1e-9)));
  return { health_score: score, status: statusForScore(score), factors };
}
