import type { CnnModel } from './cnn';
import { featureNames, isWindowStat, type FeatureSpec } from './features';

/**
 * A trained RUL model as exported by scripts/prognostics/train.py, and its evaluation.
 * The JSON is validated once when loaded, so evaluation itself needs no checks.
 */

/**
 * One regression tree in flat arrays. Split node i sends a sample to `left[i]` when
 * `features[split_feature[i]] <= threshold[i]`, else to `right[i]`. A child >= 0 is a split node,
 * a child < 0 is the leaf `~child` (so -1 is leaf 0). A tree without splits is its single leaf.
 */
export interface RegressionTree {
  readonly split_feature: readonly number[];
  readonly threshold: readonly number[];
  readonly left: readonly number[];
  readonly right: readonly number[];
  readonly leaf_value: readonly number[];
}

/** Spread of held-out errors (capped true RUL minus prediction) as a function of the prediction. */
export interface ResidualSpread {
  readonly pred_centers: readonly number[];
  readonly sigma: readonly number[];
}

export interface RulModel {
  readonly model_version: string;
  /** Training labels were min(true RUL, rul_cap); predictions are clamped to [0, rul_cap]. */
  readonly rul_cap: number;
  readonly feature_spec: FeatureSpec;
  readonly features: readonly string[];
  /** Per-feature range seen in training, used to flag out-of-distribution inputs. */
  readonly feature_ranges: { readonly min: readonly number[]; readonly max: readonly number[] };
  readonly residuals: ResidualSpread;
  readonly trees: readonly RegressionTree[];
  /** Training metadata (data, learner, parameters, cross-validation), kept as exported. */
  readonly training: Readonly<Record<string, unknown>>;
  /** Feature vectors with the prediction the Python learner made for them (parity check). */
  readonly checks: readonly { readonly features: readonly number[]; readonly prediction: number }[];
  /** Model v4: a CNN blended with the trees (blend.ts); absent: the trees alone. */
  readonly cnn?: CnnBlend;
}

/** Model v4's network and its weight in the blend with the trees (blend.ts evaluates it). */
export interface CnnBlend {
  readonly network: CnnModel;
  /** w, in (0, 1]. */
  readonly weight: number;
  /** Positions of the network's side features in the tree model's feature vector. */
  readonly side_indices: readonly number[];
}

/** Sum of the trees' leaf values for one feature vector (the learner's raw prediction). */
export function predictRaw(model: RulModel, features: readonly number[]): number {
  let sum = 0;
  for (const tree of model.trees) sum += evaluateTree(tree, features);
  return sum;
}

function evaluateTree(tree: RegressionTree, features: readonly number[]): number {
  if (tree.split_feature.length === 0) return tree.leaf_value[0] as number;
  let node = 0;
  while (node >= 0) {
    const value = features[tree.split_feature[node] as number] as number;
    node = value <= (tree.threshold[node] as number) ? (tree.left[node] as number) : (tree.right[node] as number);
  }
  return tree.leaf_value[~node] as number;
}

/** Validates a parsed model JSON; throws naming the first problem. */
export function parseRulModel(json: unknown): RulModel {
  const m = json as Record<string, unknown>;
  const fail = (what: string): never => {
    throw new Error(`invalid RUL model: ${what}`);
  };
  if (typeof m !== 'object' || m === null) fail('not an object');
  if (typeof m.model_version !== 'string' || m.model_version === '') fail('model_version');
  if (!isPositive(m.rul_cap)) fail('rul_cap');
  const spec = parseSpec(m.feature_spec) ?? fail('feature_spec');
  const names = featureNames(spec);
  const features = m.features;
  if (!Array.isArray(features) || features.join(',') !== names.join(',')) {
    fail('features do not match feature_spec');
  }
  const ranges = m.feature_ranges as RulModel['feature_ranges'] | undefined;
  if (!ranges || !isNumbers(ranges.min, names.length) || !isNumbers(ranges.max, names.length)) fail('feature_ranges');
  const residuals = m.residuals as ResidualSpread | undefined;
  if (
    !residuals ||
    !isNumbers(residuals.pred_centers) ||
    residuals.pred_centers.length === 0 ||
    !isNumbers(residuals.sigma, residuals.pred_centers.length) ||
    !residuals.sigma.every(isPositive)
  ) {
    fail('residuals');
  }
  if (!Array.isArray(m.trees) || m.trees.length === 0) fail('trees');
  (m.trees as unknown[]).forEach((tree, i) => checkTree(tree, names.length) ?? fail(`tree ${i}`));
  if (typeof m.training !== 'object' || m.training === null) fail('training');
  if (
    !Array.isArray(m.checks) ||
    !(m.checks as Array<{ features?: unknown; prediction?: number } | null>).every((c) => isNumbers(c?.features, names.length) && isFinite(c?.prediction as number))
  ) {
    fail('checks');
  }
  return m as unknown as RulModel;
}

function parseSpec(value: unknown): FeatureSpec | undefined {
  const s = value as Partial<FeatureSpec> | undefined;
  if (!s || !Number.isInteger(s.window) || (s.window as number) < 2) return undefined;
  if (!Array.isArray(s.sensors) || !s.sensors.every((x) => typeof x === 'string')) return undefined;
  if (!Array.isArray(s.stats) || !s.stats.every(isWindowStat) || typeof s.include_age !== 'boolean') return undefined;
  if (s.history_stats !== undefined && !(Array.isArray(s.history_stats) && s.history_stats.every(isWindowStat))) {
    return undefined;
  }
  if (s.history_cycles !== undefined && !(Number.isInteger(s.history_cycles) && s.history_cycles >= s.window!)) return undefined;
  return s as FeatureSpec;
}

/** Every child index points inside the tree, every split feature exists; `true` when valid. */
function checkTree(value: unknown, featureCount: number): true | undefined {
  const t = value as RegressionTree | undefined;
  if (!t || !isNumbers(t.leaf_value) || t.leaf_value.length === 0) return undefined;
  const splits = t.split_feature?.length ?? -1;
  if (splits !== t.leaf_value.length - 1) return undefined;
  if (!isNumbers(t.threshold, splits) || !isNumbers(t.left, splits) || !isNumbers(t.right, splits)) return undefined;
  const validChild = (c: number, parent: number) => Number.isInteger(c) && (c >= 0 ? c > parent && c < splits : ~c < t.leaf_value.length);
  for (let i = 0; i < splits; i++) {
    const f = t.split_feature[i] as number;
    if (!Number.isInteger(f) || f < 0 || f >= featureCount) return undefined;
    if (!validChild(t.left[i] as number, i) || !validChild(t.right[i] as number, i)) return undefined;
  }
  return true;
}

function isFinite(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}

function isPositive(v: unknown): v is number {
  return isFinite(v) && v > 0;
}

function isNumbers(v: unknown, length?: number): v is number[] {
  return Array.isArray(v) && (length === undefined || v.length === length) && v.every(isFinite);
}
