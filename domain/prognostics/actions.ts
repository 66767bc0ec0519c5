import type { ConfidenceLevel } from './uncertainty';

/** What the prognosis suggests doing, most urgent first. */
export type RecommendedAction = 'immediate_maintenance' | 'schedule_maintenance' | 'inspect' | 'monitor' | 'continue_operation';

/** Thresholds of the predictive config (per tenant and asset type); defaults below. */
export interface ActionThresholds {
  /** failure_probability at or above which maintenance is due now. */
  readonly immediate_probability: number;
  /** RUL in days at or below which maintenance is due now. */
  readonly immediate_rul_days: number;
  readonly schedule_probability: number;
  readonly schedule_rul_days: number;
  /** Below this RUL in days the asset is watched more closely. */
  readonly monitor_rul_days: number;
}

export const DEFAULT_ACTION_THRESHOLDS: ActionThresholds = {
  immediate_probability: 0.5,
  immediate_rul_days: 7,
  schedule_probability: 0.2,
  schedule_rul_days: 30,
  monitor_rul_days: 90,
};

/**
 * With low confidence (in practice: an input unlike the training data) the model can neither
 * reassure nor alarm, so the answer is 'inspect': have a person look at the asset. Otherwise the
 * failure probability and the RUL in days are compared with the thresholds, most urgent first.
 */
export function recommendAction(rulDays: number, failureProbability: number, confidence: ConfidenceLevel, t: ActionThresholds): RecommendedAction {
  if (confidence === 'low') return 'inspect';
  if (failureProbability >= t.immediate_probability || rulDays <= t.immediate_rul_days) return 'immediate_maintenance';
  if (failureProbability >= t.schedule_probability || rulDays <= t.schedule_rul_days) return 'schedule_maintenance';
  return rulDays <= t.monitor_rul_days ? 'monitor' : 'continue_operation';
}
