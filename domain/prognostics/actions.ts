import type { ConfidenceLevel } from './uncertainty';

/** What the prognosis suggests doing, most urgent first. */
export type RecommendedAction =
  | 'immediate_maintenance'
  | 'schedule_maintenance'
  | 'inspect'
  | 'monitor'
  | 'continue_operation';

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
 * Urgent actions follow the risk whatever the confidence. A reassuring answer ('monitor',
 * 'continue_operation') needs at least medium confidence; with low confidence it becomes 'inspect',
 * because the model cannot vouch for the asset.
 */
export function recommendAction(
  rulDays: number,
  failureProbability: number,
  confidence: ConfidenceLevel,
  t: ActionThresholds,
): RecommendedAction {
  if (failureProbability >= t.immediate_probability || rulDays <= t.immediate_rul_days) return 'immediate_maintenance';
  if (failureProbability >= t.schedule_probability || rulDays <= t.schedule_rul_days) return 'schedule_maintenance';
  if (confidence === 'low') return 'inspect';
  return rulDays <= t.monitor_rul_days ? 'monitor' : 'continue_operation';
}
