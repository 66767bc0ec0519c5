import type { ResidualSpread, RulModel } from './model';

/**
 * How much to trust a prediction: the held-out error spread of the model at that predicted RUL,
 * widened when the input lies outside what the model was trained on. See README.md.
 */

/** Error spread (cycles) at a predicted RUL: linear between the measured bins, flat beyond them. */
export function sigmaAt(spread: ResidualSpread, predictedCycles: number): number {
  const xs = spread.pred_centers;
  const ys = spread.sigma;
  const last = xs.length - 1;
  if (predictedCycles <= (xs[0] as number)) return ys[0] as number;
  if (predictedCycles >= (xs[last] as number)) return ys[last] as number;
  let i = 0;
  while (predictedCycles > (xs[i + 1] as number)) i++;
  const x0 = xs[i] as number;
  const x1 = xs[i + 1] as number;
  const t = (predictedCycles - x0) / (x1 - x0);
  return (ys[i] as number) + t * ((ys[i + 1] as number) - (ys[i] as number));
}

/** Standard normal CDF (erf by Abramowitz & Stegun 7.1.26, absolute error < 1.5e-7). */
export function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const erf = 1 - poly * Math.exp(-x * x);
  return z >= 0 ? 0.5 * (1 + erf) : 0.5 * (1 - erf);
}

export interface DistributionCheck {
  /** 1 inside the training ranges, towards 0 the further outside (exp(-total excess / 0.5)). */
  readonly in_distribution: number;
  /** Features outside [min, max] of the training set. */
  readonly out_of_range_features: readonly string[];
}

/** Total excess (in units of each feature's training range) at which in_distribution falls to 1/e. */
const EXCESS_SCALE = 0.5;

export function checkDistribution(model: RulModel, features: readonly number[]): DistributionCheck {
  const { min, max } = model.feature_ranges;
  let excess = 0;
  const outside: string[] = [];
  features.forEach((v, i) => {
    const lo = min[i] as number;
    const hi = max[i] as number;
    const beyond = v < lo ? lo - v : v > hi ? v - hi : 0;
    if (beyond > 0) {
      outside.push(model.features[i] as string);
      excess += beyond / (hi - lo > 0 ? hi - lo : Math.max(Math.abs(hi), 1));
    }
  });
  return { in_distribution: Math.exp(-excess / EXCESS_SCALE), out_of_range_features: outside };
}

/** An input unlike the training data widens the error spread up to this factor. */
const MAX_SPREAD_INFLATION = 10;

/** The error spread for this input: the held-out spread, widened for out-of-distribution inputs. */
export function effectiveSigma(model: RulModel, predictedCycles: number, inDistribution: number): number {
  return sigmaAt(model.residuals, predictedCycles) / Math.max(inDistribution, 1 / MAX_SPREAD_INFLATION);
}

/**
 * P(true RUL < horizon) with true RUL ~ Normal(predicted, sigma). The residuals were measured
 * against the RUL capped at rul_cap, which equals the true RUL below the cap: for a horizon beyond
 * the cap the model cannot tell, so the horizon is clamped to the cap and the result is a lower bound.
 */
export function failureProbability(
  model: RulModel,
  predictedCycles: number,
  horizonCycles: number,
  sigma: number,
): { readonly probability: number; readonly lower_bound: boolean } {
  const horizon = Math.min(horizonCycles, model.rul_cap);
  return {
    probability: normalCdf((horizon - predictedCycles) / sigma),
    lower_bound: horizonCycles > model.rul_cap,
  };
}

/**
 * Probability that the true RUL lies within ±max(10 cycles, 20 %) of the prediction under the
 * (widened) error model, times in_distribution once more so that inputs unlike the training set
 * always score low even when the error model alone would be wide enough to look plausible.
 */
export function confidenceScore(predictedCycles: number, sigma: number, inDistribution: number): number {
  const tolerance = Math.max(10, 0.2 * predictedCycles);
  const withinTolerance = 2 * normalCdf(tolerance / sigma) - 1;
  return withinTolerance * inDistribution;
}

export type ConfidenceLevel = 'high' | 'medium' | 'low';

export function confidenceLevel(score: number): ConfidenceLevel {
  return score >= 0.7 ? 'high' : score >= 0.4 ? 'medium' : 'low';
}
