/**
 * The failure prior of an asset type (issue 20): how often assets of that type needed corrective
 * work, as a probability of failing within the horizon whatever the trends say. A pump type whose
 * pumps each needed a repair every two months is at risk even while its monitored parameters are
 * flat: failures the sensors do not foreshadow (a seal, a coupling) are what this adds.
 *
 * Failures are a Poisson process with rate lambda per asset-day. With the Jeffreys prior on lambda
 * and k failures over E asset-days of exposure, the posterior is Gamma(k + 1/2, E), and the
 * probability of at least one failure within H days is the posterior predictive
 *   P = 1 - (E / (E + H)) ^ (k + 1/2),
 * which is 1 - exp(-lambda H) for long exposure and stays cautious for short, sparse histories.
 * Without any corrective task there is no history to speak of: no prior (null), not a made-up rate.
 * Pure and deterministic.
 */
import { roundTo as round } from '../numbers';

/** Corrective history counted: the last year (seasons included, old fleets' past not). */
export const FAILURE_HISTORY_WINDOW_DAYS = 365;
/** Less exposure than this (asset-days) says nothing about a rate. */
export const MIN_EXPOSURE_DAYS = 30;

export interface FailureHistory {
  readonly asset_type: string;
  /** Assets of the type that existed in the window. */
  readonly assets: number;
  /** Sum over those assets of their days in the window. */
  readonly exposure_days: number;
  /** Corrective tasks (not cancelled) opened in the window on assets of the type. */
  readonly corrective_tasks: number;
}

export interface FailurePrior extends FailureHistory {
  readonly window_days: number;
  /** Expected corrective tasks per asset and year (k / E x 365). */
  readonly failures_per_asset_year: number;
  /** Probability of at least one failure within the horizon, from the history alone. */
  readonly failure_probability: number;
}

export function failurePrior(history: FailureHistory, horizonDays: number): FailurePrior | null {
  const { corrective_tasks: k, exposure_days: exposure } = history;
  if (!(k >= 1) || !(exposure >= MIN_EXPOSURE_DAYS) || !(horizonDays > 0)) return null;
  const probability = 1 - Math.pow(exposure / (exposure + horizonDays), k + 0.5);
  return {
    ...history,
    exposure_days: round(exposure, 1),
    window_days: FAILURE_HISTORY_WINDOW_DAYS,
    failures_per_asset_year: round((k / exposure) * 365, 3),
    failure_probability: round(probability, 3),
  };
}

/** The trend's probability and the prior's, as independent causes of failure. */
export function withPrior(trendProbability: number, prior: FailurePrior | null): number {
  return prior ? 1 - (1 - trendProbability) * (1 - prior.failure_probability) : trendProbability;
}
