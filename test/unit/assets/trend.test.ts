import { scoreTrend, slopePerMs } from '../../../domain/assets/trend';

const pts = (ys: number[], step = 1000) => ys.map((y, i) => ({ t: i * step, y }));

describe('slopePerMs', () => {
  it('is the least-squares slope', () => {
    expect(slopePerMs(pts([0, 2, 4, 6]))).toBeCloseTo(0.002, 12);
    expect(slopePerMs(pts([1, 3, 2, 4]))).toBeCloseTo(0.0008, 12);
  });

  it('is 0 for one point or for points at the same time', () => {
    expect(slopePerMs(pts([5]))).toBe(0);
    expect(
      slopePerMs([
        { t: 1, y: 1 },
        { t: 1, y: 9 },
      ]),
    ).toBe(0);
  });
});

describe('scoreTrend', () => {
  it('compares the fitted change over the window with the threshold (5 points)', () => {
    expect(scoreTrend(pts([90, 92, 94, 96]))).toBe('improving'); // +6
    expect(scoreTrend(pts([90, 91, 92, 93]))).toBe('stable'); // +3
    expect(scoreTrend(pts([96, 94, 92, 90]))).toBe('declining');
  });

  it('does not depend on the time unit or the order of the points', () => {
    const ys = [80, 85, 90, 95];
    expect(scoreTrend(pts(ys, 3_600_000))).toBe('improving');
    expect(scoreTrend([...pts(ys)].reverse())).toBe('improving');
  });
});
