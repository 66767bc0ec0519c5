import { cyclesUsed, extractFeatures, featureNames, type FeatureSpec } from '../../../domain/prognostics/features';
import { FD001_FEATURE_SPEC } from '../../../domain/prognostics/spec';
import type { CycleRecord } from '../../../domain/prognostics/types';

const spec: FeatureSpec = {
  window: 4,
  sensors: ['a', 'b'],
  stats: ['last', 'mean', 'std', 'slope', 'min', 'max'],
  include_age: true,
};

function rec(cycle: number, a: number, b = 5): CycleRecord {
  return { cycle, sensors: { a, b } };
}

describe('extractFeatures', () => {
  it('computes the window statistics by hand on the last `window` cycles, in cycle order', () => {
    // Out of order on purpose, with two older cycles that fall outside the 4-cycle window.
    const series = [rec(12, 2), rec(8, 100), rec(10, 1), rec(13, 6), rec(9, -50), rec(11, 3)];
    const result = extractFeatures(series, spec);
    if (!result.ok) throw new Error('expected features');
    // a over cycles 10..13 = [1, 3, 2, 6]: mean 3; std sqrt((4+0+1+9)/4) = sqrt(3.5);
    // slope: dx = [-1.5,-0.5,0.5,1.5], dy = [-2,0,-1,3], sxy = 7, sxx = 5 -> 1.4.
    const a = result.values.slice(0, 6);
    expect(a[0]).toBe(6);
    expect(a[1]).toBe(3);
    expect(a[2]).toBeCloseTo(Math.sqrt(3.5), 12);
    expect(a[3]).toBeCloseTo(1.4, 12);
    expect(a[4]).toBe(1);
    expect(a[5]).toBe(6);
    // b is constant 5: std and slope 0.
    expect(result.values.slice(6, 12)).toEqual([5, 5, 0, 0, 5, 5]);
    expect(result.values[12]).toBe(13); // age = last cycle
    expect(result.last_cycle).toBe(13);
    expect(featureNames(spec)).toEqual(['a_last', 'a_mean', 'a_std', 'a_slope', 'a_min', 'a_max', 'b_last', 'b_mean', 'b_std', 'b_slope', 'b_min', 'b_max', 'age_cycles']);
  });

  it('uses the cycle numbers, not positions, for the slope when cycles have gaps', () => {
    const result = extractFeatures([rec(0, 0), rec(2, 4), rec(4, 8), rec(10, 20)], spec);
    expect(result.ok && result.values[3]).toBeCloseTo(2, 12);
  });

  it('refuses fewer cycles than the window', () => {
    expect(extractFeatures([rec(1, 1), rec(2, 1), rec(3, 1)], spec)).toEqual({
      ok: false,
      insufficient: { reason: 'too_few_cycles', required_cycles: 4, available_cycles: 3 },
    });
  });

  it('refuses a sensor missing or not finite anywhere in the window, naming it', () => {
    const series: CycleRecord[] = [rec(1, 1), rec(2, 1), { cycle: 3, sensors: { a: 1 } }, rec(4, NaN)];
    expect(extractFeatures(series, spec)).toEqual({ ok: false, insufficient: { reason: 'missing_sensors', sensors: ['a', 'b'] } });
  });

  it('ignores a gap in a sensor older than the window', () => {
    const series: CycleRecord[] = [{ cycle: 1, sensors: { a: 1 } }, rec(2, 1), rec(3, 1), rec(4, 1), rec(5, 1)];
    expect(extractFeatures(series, spec).ok).toBe(true);
  });

  it('refuses duplicate or non-finite cycle numbers', () => {
    const dup = extractFeatures([rec(1, 1), rec(2, 1), rec(2, 1), rec(3, 1), rec(4, 1)], spec);
    expect(dup).toEqual({ ok: false, insufficient: { reason: 'invalid_series', detail: 'cycle 2 appears more than once' } });
    const nan = extractFeatures([rec(NaN, 1), rec(2, 1), rec(3, 1), rec(4, 1)], spec);
    expect(!nan.ok && nan.insufficient.reason).toBe('invalid_series');
  });

  it('history statistics cover every cycle with a finite value, after the window statistics and before the age', () => {
    const withHistory: FeatureSpec = { window: 2, sensors: ['a'], stats: ['last'], history_stats: ['mean', 'slope'], include_age: true };
    // a over the whole history: cycles 1, 2, 4, 5 (cycle 3 has no a) = [1, 2, 4, 5]: mean 3, slope 1.
    const series: CycleRecord[] = [rec(5, 5), { cycle: 3, sensors: {} }, rec(1, 1), rec(4, 4), rec(2, 2)];
    const result = extractFeatures(series, withHistory);
    if (!result.ok) throw new Error('expected features');
    expect(featureNames(withHistory)).toEqual(['a_last', 'a_hist_mean', 'a_hist_slope', 'age_cycles']);
    expect(result.values[0]).toBe(5);
    expect(result.values[1]).toBe(3);
    expect(result.values[2]).toBeCloseTo(1, 12);
    expect(result.values[3]).toBe(5);
  });

  it('history_cycles bounds the history statistics to the most recent cycles, and cyclesUsed says how many to load', () => {
    const bounded: FeatureSpec = { window: 2, sensors: ['a'], stats: ['last'], history_stats: ['mean'], history_cycles: 3, include_age: false };
    const result = extractFeatures([rec(1, 100), rec(2, 1), rec(3, 2), rec(4, 3)], bounded);
    expect(result.ok && result.values).toEqual([3, 2]); // mean of cycles 2..4, cycle 1 left out
    expect(cyclesUsed(bounded)).toBe(3);
    expect(cyclesUsed(spec)).toBe(4); // no history statistics: the window
    expect(cyclesUsed(FD001_FEATURE_SPEC)).toBe(400);
  });

  it('FD001 feature set: 30-cycle window, 14 sensors x (last, mean, slope) + history (mean, slope) + age', () => {
    expect(FD001_FEATURE_SPEC.window).toBe(30);
    const perSensor = FD001_FEATURE_SPEC.stats.length + (FD001_FEATURE_SPEC.history_stats?.length ?? 0);
    expect(perSensor).toBe(5);
    expect(featureNames(FD001_FEATURE_SPEC)).toHaveLength(FD001_FEATURE_SPEC.sensors.length * perSensor + 1);
  });
});
