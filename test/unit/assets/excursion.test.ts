import { bandPosition, deviationRatio, toleranceBand } from '../../../domain/assets/band';
import { foldReadings, severityOf } from '../../../domain/assets/excursion';

const band = toleranceBand(100, 10); // 90..110
const r = (t: number, value: number) => ({ t, value });

describe('toleranceBand', () => {
  it('is baseline ± tolerance percent of |baseline|, divided by the sensitivity', () => {
    expect(toleranceBand(100, 10)).toMatchObject({ lower: 90, upper: 110, tolerancePercent: 10 });
    expect(toleranceBand(-200, 5)).toMatchObject({ lower: -210, upper: -190 });
    expect(toleranceBand(100, 10, 2)).toMatchObject({ lower: 95, upper: 105, tolerancePercent: 5 });
    expect(toleranceBand(100, 10, 0.5)).toMatchObject({ lower: 80, upper: 120 });
    expect(() => toleranceBand(100, 10, 0)).toThrow(RangeError);
  });

  it('keeps the edges inside', () => {
    expect([89.99, 90, 110, 110.01].map((v) => bandPosition(v, band))).toEqual(['below', 'inside', 'inside', 'above']);
  });

  it('a zero-width band has everything but the baseline infinitely far', () => {
    const zero = toleranceBand(0, 10);
    expect(deviationRatio(0, zero)).toBe(0);
    expect(deviationRatio(0.001, zero)).toBe(Infinity);
  });
});

describe('foldReadings', () => {
  it('raises once for consecutive readings outside (deduplicated), keeping the peak and the last one', () => {
    const [excursion, ...more] = foldReadings(null, band, [r(1, 100), r(2, 112), r(3, 125), r(4, 115)]);
    expect(more).toEqual([]);
    expect(excursion).toEqual({ started: r(2, 112), direction: 'above', peakValue: 125, lastOutside: r(4, 115), ended: null });
  });

  it('resolves on the first reading back inside', () => {
    expect(foldReadings({ direction: 'above', peakValue: 125 }, band, [r(5, 111), r(6, 105), r(7, 130)])).toEqual([
      { started: null, direction: 'above', peakValue: 125, lastOutside: r(5, 111), ended: r(6, 105) },
      { started: r(7, 130), direction: 'above', peakValue: 130, lastOutside: r(7, 130), ended: null },
    ]);
  });

  it('continues an open excursion without raising again', () => {
    expect(foldReadings({ direction: 'below', peakValue: 80 }, band, [r(1, 85)])).toEqual([
      { started: null, direction: 'below', peakValue: 80, lastOutside: r(1, 85), ended: null },
    ]);
  });

  it('sorts by device time, so out-of-order readings in a batch are judged in time order', () => {
    const result = foldReadings(null, band, [r(3, 100), r(1, 100), r(2, 150)]);
    expect(result).toEqual([{ started: r(2, 150), direction: 'above', peakValue: 150, lastOutside: r(2, 150), ended: r(3, 100) }]);
  });

  it('produces nothing for readings inside with nothing open, or for no readings', () => {
    expect(foldReadings(null, band, [r(1, 95), r(2, 105)])).toEqual([]);
    expect(foldReadings({ direction: 'above', peakValue: 120 }, band, [])).toEqual([]);
  });

  it('severity is critical beyond twice the tolerance', () => {
    expect(severityOf(120, band)).toBe('warning');
    expect(severityOf(120.5, band)).toBe('critical');
    expect(severityOf(79, band)).toBe('critical');
  });
});
