import { FD001_SENSORS, type FeatureSpec } from './features';

/** Feature set of the FD001 model: 30-cycle window statistics of the 14 informative sensors, plus age. */
export const FD001_FEATURE_SPEC: FeatureSpec = {
  window: 30,
  sensors: FD001_SENSORS,
  stats: ['last', 'mean', 'std', 'slope'],
  include_age: true,
};
