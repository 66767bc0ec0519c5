import { FD001_SENSORS, type FeatureSpec } from './features';

/**
 * Feature set of the FD001 model: last value, mean and slope over the last 30 cycles of the
 * 14 informative sensors, plus the age in cycles. Adding std, min or max made the grouped
 * cross-validation RMSE worse, dropping the age too (README.md).
 */
export const FD001_FEATURE_SPEC: FeatureSpec = {
  window: 30,
  sensors: FD001_SENSORS,
  stats: ['last', 'mean', 'slope'],
  include_age: true,
};
