import { bandPosition, deviationPercent, deviationRatio, round2, ToleranceBand } from './band';
import { Condition, CONDITIONS, parameterScore, statusForScore } from './health';

/**
 * Asset condition (SPEC.md, Asset condition): the worst of the monitored parameters' conditions
 * and of the last inspection's rating. A parameter's condition reads off its health factor score
 * with the health bands (good or excellent → good), so condition and health never disagree about
 * a parameter. Parameters without a baseline are listed but not judged.
 */

export interface MonitoredParameter {
  readonly parameter: string;
  readonly value: number;
  readonly unit: string | null;
  /** Epoch milliseconds of the latest reading. */
  readonly measuredAt: number;
  readonly band: ToleranceBand | null;
}

export interface ParameterCondition {
  readonly parameter: string;
  readonly latest_value: number;
  readonly unit: string | null;
  readonly measured_at: string;
  readonly baseline_value: number | null;
  readonly tolerance_percent: number | null;
  readonly deviation_percent: number | null;
  readonly status: 'within_tolerance' | 'out_of_tolerance' | 'no_baseline';
  readonly condition: Condition | null;
}

export interface ConditionInput {
  readonly parameters: readonly MonitoredParameter[];
  readonly lastInspection: { readonly condition: Condition; readonly performedAt: number } | null;
}

export interface AssetCondition {
  readonly overall_condition: Condition;
  readonly parameters: readonly ParameterCondition[];
}

export function conditionForScore(score: number): Condition {
  const status = statusForScore(score);
  return status === 'excellent' ? 'good' : status;
}

export function worstCondition(conditions: readonly Condition[]): Condition {
  let worst = 0;
  for (const c of conditions) worst = Math.max(worst, CONDITIONS.indexOf(c));
  return CONDITIONS[worst] as Condition;
}

export function parameterCondition(p: MonitoredParameter): ParameterCondition {
  const common = {
    parameter: p.parameter,
    latest_value: p.value,
    unit: p.unit,
    measured_at: new Date(p.measuredAt).toISOString(),
  };
  if (!p.band) {
    return { ...common, baseline_value: null, tolerance_percent: null, deviation_percent: null, status: 'no_baseline', condition: null };
  }
  return {
    ...common,
    baseline_value: p.band.baseline,
    tolerance_percent: round2(p.band.tolerancePercent),
    deviation_percent: deviationPercent(p.value, p.band.baseline),
    status: bandPosition(p.value, p.band) === 'inside' ? 'within_tolerance' : 'out_of_tolerance',
    condition: conditionForScore(parameterScore(deviationRatio(p.value, p.band))),
  };
}

/** Nothing judged (no baseline, no inspection) is `good`: no evidence of a problem. */
export function computeCondition(input: ConditionInput): AssetCondition {
  const parameters = [...input.parameters].sort((a, b) => (a.parameter < b.parameter ? -1 : a.parameter > b.parameter ? 1 : 0)).map(parameterCondition);
  const judged = parameters.flatMap((p) => (p.condition ? [p.condition] : []));
  if (input.lastInspection) judged.push(input.lastInspection.condition);
  return { overall_condition: worstCondition(judged), parameters };
}
