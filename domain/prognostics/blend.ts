import { parseCnnModel, predictCnn } from './cnn';
import { recentWindow } from './features';
import { parseRulModel, type CnnBlend, type RulModel } from './model';
import type { CycleRecord } from './types';

/**
 * Model v4: the tree ensemble's prediction blended with the CNN's, `(1 - w) · trees + w · cnn`, each
 * clamped to [0, rul_cap] first, as train_cnn.py chose `w` on the out-of-fold predictions (README,
 * Candidate v4). The blend's JSON carries its own version and held-out error spread (`residuals`).
 */

/** The tree model (its JSON) with the blend's version, residuals and network; validated, throws naming the problem. */
export function parseBlendedModel(treesJson: unknown, blendJson: unknown): RulModel & { readonly cnn: CnnBlend } {
  const blend = blendJson as Record<string, unknown>;
  const fail = (what: string): never => {
    throw new Error(`invalid blended RUL model: ${what}`);
  };
  if (typeof blend !== 'object' || blend === null) fail('not an object');
  const weight = blend.blend_weight;
  if (typeof weight !== 'number' || !(weight > 0 && weight <= 1)) fail('blend_weight');
  const model = parseRulModel({ ...(treesJson as object), model_version: blend.model_version, residuals: blend.residuals });
  const network = parseCnnModel(blendJson);
  if (network.window > model.feature_spec.window) fail('the network reads more cycles than the feature window checks');
  const unknownSensor = network.sensors.find((s) => !model.feature_spec.sensors.includes(s));
  if (unknownSensor !== undefined) fail(`sensor ${unknownSensor} is not checked by the feature spec`);
  const side_indices = network.side_features.map((name) => (model.features.includes(name) ? model.features.indexOf(name) : fail(`side feature ${name}`)));
  return { ...model, cnn: { network, weight: weight as number, side_indices } };
}

/**
 * Blended RUL for a series extractFeatures accepted (so its last window holds finite values of every
 * sensor) with that feature vector and the trees' clamped prediction.
 */
export function blendedRul(model: RulModel, blend: CnnBlend, series: readonly CycleRecord[], features: readonly number[], trees: number): number {
  const window = recentWindow(series, blend.network.window, blend.network.sensors);
  const side = blend.side_indices.map((i) => features[i] as number);
  const cnn = Math.min(Math.max(predictCnn(blend.network, window, side), 0), model.rul_cap);
  return (1 - blend.weight) * trees + blend.weight * cnn;
}
