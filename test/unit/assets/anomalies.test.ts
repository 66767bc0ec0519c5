import { toleranceBand } from '../../../domain/assets/band';
import { detectAnomalies, zScore } from '../../../domain/assets/anomalies';

const T = Date.UTC(2026, 5, 1);
const noisy = [10, 11, 9, 10, 11, 9, 10, 11, 9, 10]; // mean 10, std ~0.775

describe('zScore', () => {
  it('is (value - mean) / population std of the previous readings', () => {
    const { mean, std, z } = zScore(12, [8, 10, 12, 10]);
    expect(mean).toBe(10);
    expect(std).toBeCloseTo(Math.sqrt(2), 12);
    expect(z).toBeCloseTo(2 / Math.sqrt(2), 12);
  });

  it('floors the std of a flat history at 0.1 % of the mean', () => {
    const { std, z } = zScore(101, Array(10).fill(100));
    expect(std).toBeCloseTo(0.1, 12);
    expect(z).toBeCloseTo(10, 9);
  });
});

describe('detectAnomalies', () => {
  it('flags a current reading outside its baseline band', () => {
    const anomalies = detectAnomalies([{ parameter: 'temp', current: { t: T, value: 125 }, previous: [], band: toleranceBand(100, 10) }]);
    expect(anomalies).toEqual([
      { kind: 'baseline_deviation', parameter: 'temp', value: 125, measured_at: new Date(T).toISOString(), lower: 90, upper: 110, deviation_percent: 25, severity: 'critical' },
    ]);
  });

  it("flags a jump away from the parameter's own recent behaviour", () => {
    const [anomaly] = detectAnomalies([{ parameter: 'vib', current: { t: T, value: 13 }, previous: noisy, band: null }]);
    expect(anomaly).toMatchObject({ kind: 'behaviour_shift', parameter: 'vib', value: 13, window_mean: 10, window_std: 0.77, severity: 'warning' });
    expect(anomaly && anomaly.kind === 'behaviour_shift' && anomaly.z_score).toBeCloseTo(3.87, 2);
  });

  it('does not flag ordinary noise, nor judge behaviour on fewer than 10 previous readings', () => {
    expect(detectAnomalies([{ parameter: 'vib', current: { t: T, value: 11 }, previous: noisy, band: null }])).toEqual([]);
    expect(detectAnomalies([{ parameter: 'vib', current: { t: T, value: 50 }, previous: noisy.slice(0, 9), band: null }])).toEqual([]);
  });

  it('a lower threshold (higher sensitivity) flags smaller shifts', () => {
    const history = [{ parameter: 'vib', current: { t: T, value: 12 }, previous: noisy, band: null }]; // z ≈ 2.58
    expect(detectAnomalies(history)).toEqual([]);
    expect(detectAnomalies(history, 1.5)).toHaveLength(1);
  });

  it('reports both kinds when a reading is outside its band and unlike its history', () => {
    const kinds = detectAnomalies([{ parameter: 't', current: { t: T, value: 30 }, previous: noisy, band: toleranceBand(10, 50) }]).map((a) => [a.kind, a.severity]);
    expect(kinds).toEqual([
      ['baseline_deviation', 'critical'],
      ['behaviour_shift', 'critical'],
    ]);
  });
});
