/**
 * The small 1-D convolutional network of the FD001 model v4, as exported by
 * scripts/prognostics/train_cnn.py: validation of its JSON (once, at load) and its forward pass.
 *
 * Input: the last `window` cycles of `sensors` (raw values, oldest first) and the `side_features`
 * (history statistics and age, taken from the tree model's feature vector), both z-scored with the
 * training statistics. Convolutions with "same" padding (left (k-1)/2 rounded down) and tanh, the
 * flattened output joined with the side features, one tanh dense layer, a linear output times
 * `output_scale`. The prediction is the mean over the seed `members`.
 */

export interface Layer {
  readonly w: readonly (readonly number[])[];
  readonly b: readonly number[];
}

export interface ConvLayer {
  /** w[j][i][o]: kernel offset j, input channel i, output filter o. */
  readonly w: readonly (readonly (readonly number[])[])[];
  readonly b: readonly number[];
}

export interface CnnMember {
  readonly conv: readonly ConvLayer[];
  /** w[i][o] */
  readonly dense: Layer;
  readonly output: Layer;
}

export interface CnnModel {
  readonly window: number;
  readonly sensors: readonly string[];
  readonly side_features: readonly string[];
  readonly normalization: {
    readonly window_mean: readonly number[];
    readonly window_std: readonly number[];
    readonly side_mean: readonly number[];
    readonly side_std: readonly number[];
  };
  readonly output_scale: number;
  readonly members: readonly CnnMember[];
  /** Raw windows and side inputs with the Python forward pass's prediction (parity check). */
  readonly checks: readonly { readonly window: readonly (readonly number[])[]; readonly side: readonly number[]; readonly prediction: number }[];
}

/** Mean over the members of the network's output for one raw window (`window` rows × sensors) and side vector. */
export function predictCnn(model: CnnModel, window: readonly (readonly number[])[], side: readonly number[]): number {
  const { window_mean, window_std, side_mean, side_std } = model.normalization;
  const channels = model.sensors.length;
  // Activations as flat typed arrays (cycle-major: [t * channels + i]): a few ms become well under one.
  const x = new Float64Array(window.length * channels);
  window.forEach((row, t) => row.forEach((v, i) => (x[t * channels + i] = (v - (window_mean[i] as number)) / (window_std[i] as number))));
  const s = side.map((v, i) => (v - (side_mean[i] as number)) / (side_std[i] as number));
  let sum = 0;
  for (const member of model.members) sum += memberForward(member, x, channels, window.length, s);
  return (model.output_scale * sum) / model.members.length;
}

function memberForward(member: CnnMember, input: Float64Array, channels: number, length: number, side: readonly number[]): number {
  let h = input;
  let width = channels;
  for (const layer of member.conv) {
    h = convTanh(layer, h, width, length);
    width = layer.b.length;
  }
  const joined = new Float64Array(h.length + side.length);
  joined.set(h);
  joined.set(side, h.length);
  const hidden = dense(member.dense, joined).map(Math.tanh);
  return dense(member.output, hidden)[0] as number;
}

/** "Same" convolution and tanh over `length` cycles of `channels` inputs. */
function convTanh(layer: ConvLayer, x: Float64Array, channels: number, length: number): Float64Array {
  const kernel = layer.w.length;
  const left = Math.floor((kernel - 1) / 2);
  const filters = layer.b.length;
  const w = flat(layer.w);
  const out = new Float64Array(length * filters);
  for (let t = 0; t < length; t++) {
    const base = t * filters;
    for (let o = 0; o < filters; o++) out[base + o] = layer.b[o] as number;
    for (let j = 0; j < kernel; j++) {
      const src = t + j - left;
      if (src < 0 || src >= length) continue; // zero padding
      for (let i = 0; i < channels; i++) {
        const v = x[src * channels + i] as number;
        const row = (j * channels + i) * filters;
        for (let o = 0; o < filters; o++) out[base + o] = (out[base + o] as number) + v * (w[row + o] as number);
      }
    }
  }
  for (let k = 0; k < out.length; k++) out[k] = Math.tanh(out[k] as number);
  return out;
}

function dense(layer: Layer, x: ArrayLike<number>): Float64Array {
  const out = Float64Array.from(layer.b);
  const w = flat(layer.w);
  const outputs = out.length;
  for (let i = 0; i < x.length; i++) {
    const v = x[i] as number;
    for (let o = 0; o < outputs; o++) out[o] = (out[o] as number) + v * (w[i * outputs + o] as number);
  }
  return out;
}

const flattened = new WeakMap<object, Float64Array>();

/** A layer's nested weight arrays as one typed array in row-major order, computed once per layer. */
function flat(weights: readonly unknown[]): Float64Array {
  let cached = flattened.get(weights);
  if (cached === undefined) {
    cached = Float64Array.from(weights.flat(2) as number[]);
    flattened.set(weights, cached);
  }
  return cached;
}

/** Validates a parsed network JSON (every shape consistent with the next layer); throws naming the first problem. */
export function parseCnnModel(json: unknown): CnnModel {
  const m = json as Record<string, unknown>;
  const fail = (what: string): never => {
    throw new Error(`invalid CNN model: ${what}`);
  };
  if (typeof m !== 'object' || m === null) fail('not an object');
  const window = m.window;
  if (!Number.isInteger(window) || (window as number) < 1) fail('window');
  const sensors = m.sensors;
  if (!Array.isArray(sensors) || sensors.length === 0 || !sensors.every((s) => typeof s === 'string')) fail('sensors');
  const side = m.side_features;
  if (!Array.isArray(side) || !side.every((s) => typeof s === 'string')) fail('side_features');
  const channels = (sensors as string[]).length;
  const sideCount = (side as string[]).length;
  const norm = m.normalization as CnnModel['normalization'] | undefined;
  if (
    !norm ||
    !isNumbers(norm.window_mean, channels) ||
    !isNumbers(norm.window_std, channels) ||
    !norm.window_std.every((v) => v > 0) ||
    !isNumbers(norm.side_mean, sideCount) ||
    !isNumbers(norm.side_std, sideCount) ||
    !norm.side_std.every((v) => v > 0)
  ) {
    fail('normalization');
  }
  const layers = m.layers as { output_scale?: unknown } | undefined;
  if (!isFiniteNumber(layers?.output_scale)) fail('layers.output_scale');
  if (!Array.isArray(m.members) || m.members.length === 0) fail('members');
  (m.members as unknown[]).forEach((member, i) => checkMember(member, window as number, channels, sideCount) ?? fail(`member ${i}`));
  const checks = m.checks;
  if (
    !Array.isArray(checks) ||
    !checks.every(
      (c: { window?: unknown; side?: unknown; prediction?: unknown } | null) =>
        Array.isArray(c?.window) && c.window.length === window && c.window.every((row) => isNumbers(row, channels)) && isNumbers(c.side, sideCount) && isFiniteNumber(c.prediction),
    )
  ) {
    fail('checks');
  }
  return {
    window: window as number,
    sensors: sensors as string[],
    side_features: side as string[],
    normalization: norm as CnnModel['normalization'],
    output_scale: layers?.output_scale as number,
    members: m.members as CnnMember[],
    checks: checks as CnnModel['checks'],
  };
}

/** Each layer's input size is the previous layer's output size; `true` when valid. */
function checkMember(value: unknown, window: number, channels: number, sideCount: number): true | undefined {
  const member = value as Partial<CnnMember> | undefined;
  const conv: unknown = member?.conv;
  if (!member || !Array.isArray(conv) || conv.length === 0) return undefined;
  let inputs = channels;
  for (const value of conv as unknown[]) {
    const layer = value as Partial<ConvLayer> | undefined;
    const w: unknown = layer?.w;
    const filters = isNumbers(layer?.b) ? layer.b.length : 0;
    if (filters === 0 || !Array.isArray(w) || w.length === 0) return undefined;
    if (!(w as unknown[]).every((wj) => Array.isArray(wj) && wj.length === inputs && (wj as unknown[]).every((wji) => isNumbers(wji, filters)))) return undefined;
    inputs = filters;
  }
  const hidden = checkLayer(member.dense, window * inputs + sideCount);
  if (hidden === undefined) return undefined;
  return checkLayer(member.output, hidden) === 1 ? true : undefined;
}

/** Output size of a dense layer with `inputs` inputs, or undefined when malformed. */
function checkLayer(value: unknown, inputs: number): number | undefined {
  const layer = value as Partial<Layer> | undefined;
  if (!layer || !isNumbers(layer.b) || layer.b.length === 0) return undefined;
  const outputs = layer.b.length;
  if (!Array.isArray(layer.w) || layer.w.length !== inputs || !layer.w.every((wi) => isNumbers(wi, outputs))) return undefined;
  return outputs;
}

function isFiniteNumber(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}

function isNumbers(v: unknown, length?: number): v is number[] {
  return Array.isArray(v) && (length === undefined || v.length === length) && v.every(isFiniteNumber);
}
