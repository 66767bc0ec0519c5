import { roundTo as round } from '../numbers';
import { DEFAULT_ACTION_THRESHOLDS, recommendAction, type ActionThresholds, type RecommendedAction } from './actions';
import { blendedRul, parseBlendedModel } from './blend';
import { extractFeatures } from './features';
import { predictRaw, type RulModel } from './model';
import fd001CnnJson from './models/fd001-cnn-v4.json';
import fd001Json from './models/fd001-v3.json';
import type { CycleRecord, InsufficientData } from './types';
import { checkDistribution, confidenceLevel, confidenceScore, effectiveSigma, failureProbability, type ConfidenceLevel } from './uncertainty';

/**
 * Remaining-useful-life prognostics learned from C-MAPSS FD001 (see README.md). Pure and
 * deterministic: the endpoint, the digital-twin simulation and scripts/prognostics-eval.ts all go
 * through predictRul.
 */

export type { CycleRecord, InsufficientData } from './types';
export type { ActionThresholds, RecommendedAction } from './actions';
export type { ConfidenceLevel } from './uncertainty';
export type { RulModel } from './model';
export { DEFAULT_ACTION_THRESHOLDS } from './actions';
export { cyclesUsed } from './features';

/**
 * The FD001 model shipped with the code, validated once at load: v3's trees blended with the CNN
 * (v4, `cmapss-fd001-blend-v4`, README).
 */
export const FD001_MODEL: RulModel = parseBlendedModel(fd001Json, fd001CnnJson);

export interface RulPrediction {
  readonly ok: true;
  /** Predicted RUL in cycles, clamped to [0, rul_cap]. */
  readonly rul_cycles: number;
  /** At the cap the model only says "at least rul_cap cycles". */
  readonly at_cap: boolean;
  readonly last_cycle: number;
  /** 1 inside the training ranges, towards 0 for inputs unlike the training set. */
  readonly in_distribution: number;
  readonly out_of_range_features: readonly string[];
}

export type RulResult = RulPrediction | { readonly ok: false; readonly insufficient: InsufficientData };

export function predictRul(series: readonly CycleRecord[], opts: { readonly model?: RulModel } = {}): RulResult {
  const model = opts.model ?? FD001_MODEL;
  const extracted = extractFeatures(series, model.feature_spec);
  if (!extracted.ok) return { ok: false, insufficient: extracted.insufficient };
  const trees = Math.min(Math.max(predictRaw(model, extracted.values), 0), model.rul_cap);
  const rul = model.cnn ? blendedRul(model, model.cnn, series, extracted.values, trees) : trees;
  const distribution = checkDistribution(model, extracted.values);
  return {
    ok: true,
    rul_cycles: rul,
    at_cap: rul >= model.rul_cap,
    last_cycle: extracted.last_cycle,
    in_distribution: distribution.in_distribution,
    out_of_range_features: distribution.out_of_range_features,
  };
}

export interface Risk {
  /** P(true RUL < horizon), unrounded. */
  readonly failure_probability: number;
  readonly lower_bound: boolean;
  /** 0..1, unrounded. */
  readonly confidence: number;
}

/** Failure probability within `horizonCycles` and confidence of a prediction (README.md). */
export function assessRisk(prediction: RulPrediction, horizonCycles: number, model: RulModel = FD001_MODEL): Risk {
  const sigma = effectiveSigma(model, prediction.rul_cycles, prediction.in_distribution);
  const failure = failureProbability(model, prediction.rul_cycles, horizonCycles, sigma);
  return {
    failure_probability: failure.probability,
    lower_bound: failure.lower_bound,
    confidence: confidenceScore(prediction.rul_cycles, sigma, prediction.in_distribution),
  };
}

export interface PrognoseInput {
  readonly series: readonly CycleRecord[];
  /** Length of one operating cycle in days (predictive config, per asset type). */
  readonly cycle_length_days: number;
  /** Horizon of failure_probability in days (SPEC: 30). */
  readonly horizon_days?: number;
  readonly thresholds?: Partial<ActionThresholds>;
  readonly model?: RulModel;
}

export interface Prognosis {
  readonly status: 'ok';
  /** Days (cycles × cycle_length_days), one decimal. A lower bound when rul_at_cap. */
  readonly remaining_useful_life: number;
  readonly remaining_useful_life_cycles: number;
  readonly rul_at_cap: boolean;
  /** P(failure within horizon_days), 0..1, three decimals. */
  readonly failure_probability: number;
  /** True when the horizon exceeds the model's RUL cap: the probability is then a lower bound. */
  readonly failure_probability_lower_bound: boolean;
  readonly horizon_days: number;
  readonly recommended_action: RecommendedAction;
  /** 0..1, two decimals; see README.md. */
  readonly confidence: number;
  readonly confidence_level: ConfidenceLevel;
  readonly out_of_range_features: readonly string[];
  readonly model_version: string;
}

export interface InsufficientPrognosis {
  readonly status: 'insufficient_data';
  readonly insufficient: InsufficientData;
  /** A sentence for people, e.g. "needs 30 cycles of history, has 12". */
  readonly message: string;
  readonly model_version: string;
}

export function prognose(input: PrognoseInput): Prognosis | InsufficientPrognosis {
  const model = input.model ?? FD001_MODEL;
  const horizonDays = input.horizon_days ?? 30;
  if (!(input.cycle_length_days > 0) || !Number.isFinite(input.cycle_length_days)) {
    throw new RangeError('cycle_length_days must be a positive number');
  }
  if (!(horizonDays > 0) || !Number.isFinite(horizonDays)) throw new RangeError('horizon_days must be a positive number');

  const result = predictRul(input.series, { model });
  if (!result.ok) {
    return {
      status: 'insufficient_data',
      insufficient: result.insufficient,
      message: describeInsufficient(result.insufficient),
      model_version: model.model_version,
    };
  }
  const risk = assessRisk(result, horizonDays / input.cycle_length_days, model);
  const level = confidenceLevel(risk.confidence);
  const rulDays = result.rul_cycles * input.cycle_length_days;
  const thresholds = { ...DEFAULT_ACTION_THRESHOLDS, ...input.thresholds };
  return {
    status: 'ok',
    remaining_useful_life: round(rulDays, 1),
    remaining_useful_life_cycles: round(result.rul_cycles, 1),
    rul_at_cap: result.at_cap,
    failure_probability: round(risk.failure_probability, 3),
    failure_probability_lower_bound: risk.lower_bound,
    horizon_days: horizonDays,
    recommended_action: recommendAction(rulDays, risk.failure_probability, level, thresholds),
    confidence: round(risk.confidence, 2),
    confidence_level: level,
    out_of_range_features: result.out_of_range_features,
    model_version: model.model_version,
  };
}

export function describeInsufficient(insufficient: InsufficientData): string {
  switch (insufficient.reason) {
    case 'too_few_cycles':
      return `needs ${insufficient.required_cycles} cycles of history, has ${insufficient.available_cycles}`;
    case 'missing_sensors':
      return `sensors missing or not numeric in the recent window: ${insufficient.sensors.join(', ')}`;
    case 'invalid_series':
      return insufficient.detail;
  }
}
