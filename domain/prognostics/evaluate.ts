import { assessRisk, FD001_MODEL, predictRul, type RulResult } from './index';
import type { RulModel } from './model';
import type { CycleRecord, InsufficientData } from './types';

/**
 * Scores the model on engines cut off before failure, through predictRul (the endpoint's path):
 * RMSE and the PHM08 score of the prediction at each engine's last cycle.
 */

export interface EvaluationCase {
  readonly unit: number;
  readonly series: readonly CycleRecord[];
  /** True RUL (cycles) at the last cycle of the series, as given (not capped). */
  readonly true_rul: number;
}

export interface EngineResult {
  readonly unit: number;
  readonly predicted: number;
  readonly true_rul: number;
  /** predicted - true: positive is late (optimistic), which PHM08 penalises more. */
  readonly error: number;
  readonly in_distribution: number;
  /** P(true RUL < horizon_cycles) from the model's error model. */
  readonly failure_probability: number;
}

export interface Evaluation {
  readonly engines: readonly EngineResult[];
  readonly skipped: readonly { readonly unit: number; readonly insufficient: InsufficientData }[];
  readonly rmse: number;
  readonly score: number;
  readonly mean_error: number;
  /** Calibration of failure_probability: horizon, mean of (p - [true RUL < horizon])², events. */
  readonly brier: { readonly horizon_cycles: number; readonly score: number; readonly failures: number; readonly expected: number };
}

/** PHM08 asymmetric score of one error d = predicted - true. */
export function phmScore(d: number): number {
  return d < 0 ? Math.exp(-d / 13) - 1 : Math.exp(d / 10) - 1;
}

export function evaluate(cases: readonly EvaluationCase[], opts: { readonly model?: RulModel; readonly horizon_cycles?: number } = {}): Evaluation {
  const model = opts.model ?? FD001_MODEL;
  const horizon = opts.horizon_cycles ?? 30;
  const engines: EngineResult[] = [];
  const skipped: { unit: number; insufficient: InsufficientData }[] = [];
  for (const c of cases) {
    const result: RulResult = predictRul(c.series, { model });
    if (!result.ok) {
      skipped.push({ unit: c.unit, insufficient: result.insufficient });
      continue;
    }
    engines.push({
      unit: c.unit,
      predicted: result.rul_cycles,
      true_rul: c.true_rul,
      error: result.rul_cycles - c.true_rul,
      in_distribution: result.in_distribution,
      failure_probability: assessRisk(result, horizon, model).failure_probability,
    });
  }
  const errors = engines.map((e) => e.error);
  const n = errors.length;
  return {
    engines,
    skipped,
    rmse: n === 0 ? NaN : Math.sqrt(errors.reduce((s, d) => s + d * d, 0) / n),
    score: errors.reduce((s, d) => s + phmScore(d), 0),
    mean_error: n === 0 ? NaN : errors.reduce((s, d) => s + d, 0) / n,
    brier: brier(engines, horizon),
  };
}

function brier(engines: readonly EngineResult[], horizon: number): Evaluation['brier'] {
  const outcome = (e: EngineResult) => (e.true_rul < horizon ? 1 : 0);
  const sq = engines.reduce((s, e) => s + (e.failure_probability - outcome(e)) ** 2, 0);
  return {
    horizon_cycles: horizon,
    score: engines.length === 0 ? NaN : sq / engines.length,
    failures: engines.reduce((s, e) => s + outcome(e), 0),
    expected: engines.reduce((s, e) => s + e.failure_probability, 0),
  };
}

/** Pairs parsed test engines with the RUL file's values (same order); throws when counts differ. */
export function casesFromCmapss(engines: readonly { readonly unit: number; readonly records: readonly CycleRecord[] }[], trueRul: readonly number[]): EvaluationCase[] {
  if (engines.length !== trueRul.length) {
    throw new Error(`${engines.length} engines in the test file but ${trueRul.length} values in the RUL file`);
  }
  return engines.map((e, i) => ({ unit: e.unit, series: e.records, true_rul: trueRul[i] as number }));
}
