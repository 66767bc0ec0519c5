import * as fs from 'fs';
import * as path from 'path';
import { parseBlendedModel } from '../../../domain/prognostics/blend';
import { parseCmapss } from '../../../domain/prognostics/cmapss';
import { predictCnn } from '../../../domain/prognostics/cnn';
import { extractFeatures } from '../../../domain/prognostics/features';
import { FD001_MODEL, predictRul } from '../../../domain/prognostics/index';
import { predictRaw } from '../../../domain/prognostics/model';

const models = path.join(__dirname, '../../../domain/prognostics/models');
const treesJson: unknown = JSON.parse(fs.readFileSync(path.join(models, 'fd001-v3.json'), 'utf8'));
const blendJson = JSON.parse(fs.readFileSync(path.join(models, 'fd001-cnn-v4.json'), 'utf8')) as Record<string, unknown>;
// Training engine 1, run to failure: its first 150 cycles.
const series = parseCmapss(fs.readFileSync(path.join(__dirname, '../../../data/cmapss/train_FD001.txt'), 'utf8'))[0]!.records.slice(0, 150);

describe('FD001 model v4: trees blended with the CNN', () => {
  it('serves the blend, with its own version and error spread', () => {
    expect(FD001_MODEL.cnn).toBeDefined();
    expect(FD001_MODEL.model_version).toBe('cmapss-fd001-blend-v4');
    expect(FD001_MODEL.residuals).toEqual(blendJson.residuals);
  });

  it('predictRul is (1 - w) · trees + w · CNN, each clamped, the CNN fed the last 30 cycles and the history features', () => {
    const blend = FD001_MODEL.cnn!;
    const features = extractFeatures(series, FD001_MODEL.feature_spec);
    if (!features.ok) throw new Error('features refused');
    const clamp = (v: number) => Math.min(Math.max(v, 0), 125);
    const window = series.slice(-30).map((r) => blend.network.sensors.map((s) => r.sensors[s] as number));
    const side = blend.network.side_features.map((name) => features.values[FD001_MODEL.features.indexOf(name)] as number);
    const expected = (1 - blend.weight) * clamp(predictRaw(FD001_MODEL, features.values)) + blend.weight * clamp(predictCnn(blend.network, window, side));
    const result = predictRul([...series].reverse()); // any order: sorted by cycle
    expect(result.ok && result.rul_cycles).toBeCloseTo(expected, 9);
  });

  it('refuses a blend weight outside (0, 1] or a side feature the trees do not compute', () => {
    expect(() => parseBlendedModel(treesJson, { ...blendJson, blend_weight: 0 })).toThrow('blend_weight');
    expect(() => parseBlendedModel(treesJson, { ...blendJson, blend_weight: 1.5 })).toThrow('blend_weight');
    const side = [...(blendJson.side_features as string[])];
    side[0] = 's1_hist_mean';
    expect(() => parseBlendedModel(treesJson, { ...blendJson, side_features: side })).toThrow('side feature s1_hist_mean');
  });
});
