import { FD001_MODEL } from '../../../domain/prognostics/index';
import { parseRulModel, predictRaw, type RulModel } from '../../../domain/prognostics/model';
import { featureNames } from '../../../domain/prognostics/features';

/** A two-feature model with one hand-made tree: x0 <= 1 ? 10 : (x1 <= 5 ? 20 : 30). */
function tinyModel(overrides: Partial<Record<string, unknown>> = {}): unknown {
  const spec = { window: 2, sensors: ['a'], stats: ['last', 'mean'], include_age: false };
  return {
    model_version: 'tiny-v1',
    rul_cap: 125,
    feature_spec: spec,
    features: featureNames(spec as RulModel['feature_spec']),
    feature_ranges: { min: [0, 0], max: [10, 10] },
    residuals: { pred_centers: [10, 100], sigma: [5, 15] },
    training: {},
    checks: [],
    trees: [
      { split_feature: [0, 1], threshold: [1, 5], left: [-1, -2], right: [1, -3], leaf_value: [10, 20, 30] },
      { split_feature: [], threshold: [], left: [], right: [], leaf_value: [0.5] },
    ],
    ...overrides,
  };
}

describe('tree ensemble evaluation', () => {
  it('follows value <= threshold to the left and sums the trees', () => {
    const model = parseRulModel(tinyModel());
    expect(predictRaw(model, [1, 99])).toBe(10.5); // equal to the threshold goes left
    expect(predictRaw(model, [1.0000001, 5])).toBe(20.5);
    expect(predictRaw(model, [2, 6])).toBe(30.5);
  });

  it('reproduces the Python learner on the parity rows stored with the FD001 model', () => {
    expect(FD001_MODEL.checks.length).toBeGreaterThanOrEqual(3);
    for (const check of FD001_MODEL.checks) {
      expect(predictRaw(FD001_MODEL, check.features)).toBeCloseTo(check.prediction, 9);
    }
  });

  it('rejects a model whose features do not match its feature spec', () => {
    expect(() => parseRulModel(tinyModel({ features: ['a_mean', 'a_last'] }))).toThrow('features do not match feature_spec');
  });

  it('rejects unknown history statistics or a history_cycles shorter than the window', () => {
    const spec = { window: 2, sensors: ['a'], stats: ['last', 'mean'], include_age: false };
    expect(() => parseRulModel(tinyModel({ feature_spec: { ...spec, history_stats: ['median'] } }))).toThrow('feature_spec');
    expect(() => parseRulModel(tinyModel({ feature_spec: { ...spec, history_stats: [], history_cycles: 1 } }))).toThrow('feature_spec');
    expect(() => parseRulModel(tinyModel({ feature_spec: { ...spec, history_stats: [], history_cycles: 2 } }))).not.toThrow();
  });

  it('rejects a tree whose child points outside it or backwards (no loops)', () => {
    const bad = { split_feature: [0], threshold: [1], left: [0], right: [-1], leaf_value: [1, 2] };
    expect(() => parseRulModel(tinyModel({ trees: [bad] }))).toThrow('tree 0');
    const outside = { split_feature: [0], threshold: [1], left: [-3], right: [-1], leaf_value: [1, 2] };
    expect(() => parseRulModel(tinyModel({ trees: [outside] }))).toThrow('tree 0');
  });

  it('FD001 model carries its version, cap, training ranges and metadata', () => {
    expect(FD001_MODEL.model_version).toBe('cmapss-fd001-blend-v4');
    expect(FD001_MODEL.rul_cap).toBe(125);
    expect(FD001_MODEL.feature_ranges.min).toHaveLength(FD001_MODEL.features.length);
    expect(FD001_MODEL.training).toHaveProperty('cv');
  });
});
