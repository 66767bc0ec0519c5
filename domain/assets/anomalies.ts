import { bandPosition, deviationPercent, round2, ToleranceBand } from './band';
import { severityOf } from './excursion';

/**
 * Anomalies of the digital twin: the current reading of each parameter judged against its
 * baseline (outside the band) and against the parameter's own recent behaviour (z-score of the
 * current reading over the readings before it).
 */

export interface ParameterHistory {
  readonly parameter: string;
  /** The current (newest) reading. */
  readonly current: { readonly t: number; readonly value: number };
  /** Readings before the current one (any order). */
  readonly previous: readonly number[];
  readonly band: ToleranceBand | null;
}

export type Anomaly =
  | {
      readonly kind: 'baseline_deviation';
      readonly parameter: string;
      readonly value: number;
      readonly measured_at: string;
      readonly lower: number;
      readonly upper: number;
      readonly deviation_percent: number | null;
      readonly severity: 'warning' | 'critical';
    }
  | {
      readonly kind: 'behaviour_shift';
      readonly parameter: string;
      readonly value: number;
      readonly measured_at: string;
      readonly window_mean: number;
      readonly window_std: number;
      readonly z_score: number;
      readonly severity: 'warning' | 'critical';
    };

/** Fewer previous readings than this say nothing about the parameter's own behaviour. */
export const MIN_BEHAVIOUR_WINDOW = 10;
/** |z| at or above this is a behaviour shift (divided by the alert sensitivity). */
export const DEFAULT_Z_THRESHOLD = 3;
/**
 * A constant history has std 0; the std is floored at 0.1 % of |mean| (or 1e-9) so a jump from a
 * flat line is a large but finite z.
 */
const STD_FLOOR_FRACTION = 0.001;

export function zScore(value: number, previous: readonly number[]): { mean: number; std: number; z: number } {
  const n = previous.length;
  const mean = previous.reduce((s, v) => s + v, 0) / n;
  const variance = previous.reduce((s, v) => s + (v - mean) * (v - mean), 0) / n;
  const std = Math.max(Math.sqrt(variance), Math.abs(mean) * STD_FLOOR_FRACTION, 1e-9);
  return { mean, std, z: (value - mean) / std };
}

export function detectAnomalies(histories: readonly ParameterHistory[], zThreshold: number = DEFAULT_Z_THRESHOLD): Anomaly[] {
  const anomalies: Anomaly[] = [];
  for (const h of histories) {
    const measured_at = new Date(h.current.t).toISOString();
    if (h.band && bandPosition(h.current.value, h.band) !== 'inside') {
      anomalies.push({
        kind: 'baseline_deviation',
        parameter: h.parameter,
        value: h.current.value,
        measured_at,
        lower: h.band.lower,
        upper: h.band.upper,
        deviation_percent: deviationPercent(h.current.value, h.band.baseline),
        severity: severityOf(h.current.value, h.band),
      });
    }
    if (h.previous.length >= MIN_BEHAVIOUR_WINDOW) {
      const { mean, std, z } = zScore(h.current.value, h.previous);
      if (Math.abs(z) >= zThreshold) {
        anomalies.push({
          kind: 'behaviour_shift',
          parameter: h.parameter,
          value: h.current.value,
          measured_at,
          window_mean: round2(mean),
          window_std: round2(std),
          z_score: round2(z),
          severity: Math.abs(z) >= 2 * zThreshold ? 'critical' : 'warning',
        });
      }
    }
  }
  return anomalies;
}
