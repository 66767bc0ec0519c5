import { DEFAULT_ACTION_THRESHOLDS, type ActionThresholds } from '../prognostics/actions';
import { ownValue } from '../own';

/**
 * Predictive configuration of one asset type in one tenant: which asset parameters feed the
 * prognostics model (and as which model sensor), how long one model cycle lasts, the thresholds of
 * the recommended actions, and the alert sensitivity. Read on every reading and every prognosis,
 * so a change takes effect on the next one.
 */

export const OPERATIONAL_PARAMETERS = ['speed', 'load', 'temperature', 'pressure'] as const;
export type OperationalParameter = (typeof OPERATIONAL_PARAMETERS)[number];

export interface PredictiveConfig {
  readonly asset_type: string;
  /** Asset parameter name → model sensor name (e.g. `{"hpc_outlet_temp": "s3"}`). */
  readonly model_inputs: Readonly<Record<string, string>>;
  /** Days one model cycle stands for: readings are averaged per cycle, RUL cycles × this = days. */
  readonly cycle_length_days: number;
  readonly action_thresholds: ActionThresholds;
  /** Divides baseline tolerances and the anomaly z threshold: 2 = twice as sensitive. */
  readonly alert_sensitivity: number;
  /** Which asset parameter is the twin's speed, load, temperature, pressure (default: the same name). */
  readonly operational_parameters: Readonly<Partial<Record<OperationalParameter, string>>>;
  /**
   * Failure limits by asset parameter (`{"vibration": {"upper": 7.1}}`): where set, the general
   * prognostics model projects the parameter to them instead of the edges of its baseline band.
   */
  readonly failure_limits: Readonly<Record<string, FailureLimit>>;
}

export interface FailureLimit {
  readonly upper?: number;
  readonly lower?: number;
}

export function defaultPredictiveConfig(assetType: string): PredictiveConfig {
  return {
    asset_type: assetType,
    model_inputs: {},
    cycle_length_days: 1,
    action_thresholds: DEFAULT_ACTION_THRESHOLDS,
    alert_sensitivity: 1,
    operational_parameters: {},
    failure_limits: {},
  };
}

/** The asset parameter behind an operational parameter. */
export function operationalParameterName(config: PredictiveConfig, name: OperationalParameter): string {
  return ownValue(config.operational_parameters, name) ?? name;
}
