import * as fs from 'fs';
import * as path from 'path';
import { parseCnnModel, predictCnn } from '../../../domain/prognostics/cnn';

/** One conv layer (kernel 3, one filter), one dense unit: small enough to compute by hand. */
function tinyNetwork(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    window: 3,
    sensors: ['a'],
    side_features: ['f'],
    normalization: { window_mean: [1], window_std: [2], side_mean: [0], side_std: [2] },
    layers: { output_scale: 10 },
    members: [
      {
        conv: [{ w: [[[0.1]], [[0.2]], [[0.3]]], b: [0] }],
        dense: { w: [[1], [1], [1], [1]], b: [0] },
        output: { w: [[2]], b: [0.5] },
      },
    ],
    checks: [],
    ...overrides,
  };
}

const modelFile = path.join(__dirname, '../../../domain/prognostics/models/fd001-cnn-v4.json');

describe('CNN forward pass', () => {
  it('z-scores, convolves with same padding (zeros outside the window), applies tanh, the dense layer and the output scale', () => {
    const net = parseCnnModel(tinyNetwork());
    // z = [(3-1)/2, (5-1)/2, (1-1)/2] = [1, 2, 0]; kernel offsets -1, 0, +1 weigh 0.1, 0.2, 0.3.
    const conv = [0.2 * 1 + 0.3 * 2, 0.1 * 1 + 0.2 * 2 + 0.3 * 0, 0.1 * 2 + 0.2 * 0].map(Math.tanh);
    const hidden = Math.tanh(conv[0]! + conv[1]! + conv[2]! + 4 / 2);
    expect(predictCnn(net, [[3], [5], [1]], [4])).toBeCloseTo(10 * (2 * hidden + 0.5), 12);
  });

  it('averages its members', () => {
    const one = tinyNetwork().members as unknown[];
    const shifted = { ...(one[0] as object), output: { w: [[2]], b: [1.5] } };
    const net = parseCnnModel(tinyNetwork({ members: [one[0], shifted] }));
    const single = predictCnn(parseCnnModel(tinyNetwork()), [[3], [5], [1]], [4]);
    expect(predictCnn(net, [[3], [5], [1]], [4])).toBeCloseTo(single + 10 * 0.5, 12);
  });

  it('rejects shapes that do not chain, a zero standard deviation, or a malformed check', () => {
    const member = (tinyNetwork().members as Record<string, unknown>[])[0]!;
    expect(() => parseCnnModel(tinyNetwork({ members: [{ ...member, dense: { w: [[1], [1], [1]], b: [0] } }] }))).toThrow('member 0');
    expect(() => parseCnnModel(tinyNetwork({ members: [{ ...member, output: { w: [[2, 1]], b: [0.5, 0] } }] }))).toThrow('member 0');
    expect(() => parseCnnModel(tinyNetwork({ members: [{ ...member, conv: [{ w: [[[0.1, 0]]], b: [0] }] }] }))).toThrow('member 0');
    expect(() => parseCnnModel(tinyNetwork({ normalization: { window_mean: [1], window_std: [0], side_mean: [0], side_std: [2] } }))).toThrow('normalization');
    expect(() => parseCnnModel(tinyNetwork({ checks: [{ window: [[1], [2]], side: [0], prediction: 1 }] }))).toThrow('checks');
    expect(() => parseCnnModel(tinyNetwork({ members: [] }))).toThrow('members');
  });
});

describe('FD001 CNN (fd001-cnn-v4.json)', () => {
  const net = parseCnnModel(JSON.parse(fs.readFileSync(modelFile, 'utf8')));

  it('reproduces the Python forward pass on the windows stored with it (train_cnn.py checks) to 1e-4', () => {
    expect(net.checks.length).toBeGreaterThanOrEqual(4);
    for (const check of net.checks) {
      expect(Math.abs(predictCnn(net, check.window, check.side) - check.prediction)).toBeLessThan(1e-4);
    }
  });

  it('is the network train_cnn.py describes: 14 sensors over 30 cycles, 29 side features, 3 members', () => {
    expect(net.window).toBe(30);
    expect(net.sensors).toHaveLength(14);
    expect(net.side_features).toHaveLength(29);
    expect(net.members).toHaveLength(3);
  });
});
