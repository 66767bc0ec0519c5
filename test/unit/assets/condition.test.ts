import { toleranceBand } from '../../../domain/assets/band';
import { computeCondition, conditionForScore, worstCondition } from '../../../domain/assets/condition';
import { SCORE_BANDS } from './score-bands';

const T = Date.UTC(2026, 2, 1, 12);
const band = toleranceBand(50, 20); // 40..60, half-width 10
const param = (parameter: string, value: number, withBaseline = true) => ({ parameter, value, unit: 'bar', measuredAt: T, band: withBaseline ? band : null });

describe('computeCondition', () => {
  it.each([
    [55, 'good', 'within_tolerance'],
    [60, 'good', 'within_tolerance'], // on the edge
    [60.5, 'fair', 'out_of_tolerance'],
    [65, 'fair', 'out_of_tolerance'], // 1.5× the tolerance
    [66, 'poor', 'out_of_tolerance'],
    [70, 'poor', 'out_of_tolerance'], // 2×
    [71, 'critical', 'out_of_tolerance'],
    [29, 'critical', 'out_of_tolerance'], // below
  ])('a parameter at %p is %s', (value, condition, status) => {
    const result = computeCondition({ parameters: [param('pressure', value)], lastInspection: null });
    expect(result.overall_condition).toBe(condition);
    expect(result.parameters).toEqual([
      {
        parameter: 'pressure',
        latest_value: value,
        unit: 'bar',
        measured_at: new Date(T).toISOString(),
        baseline_value: 50,
        tolerance_percent: 20,
        deviation_percent: Math.round(((value - 50) / 50) * 10000) / 100,
        status,
        condition,
      },
    ]);
  });

  it('is the worst of the parameters and of the last inspection', () => {
    const params = [param('a', 52), param('b', 63)]; // good, fair
    expect(computeCondition({ parameters: params, lastInspection: null }).overall_condition).toBe('fair');
    expect(computeCondition({ parameters: params, lastInspection: { condition: 'poor', performedAt: T } }).overall_condition).toBe('poor');
    expect(computeCondition({ parameters: params, lastInspection: { condition: 'good', performedAt: T } }).overall_condition).toBe('fair');
  });

  it('lists parameters without a baseline without judging them', () => {
    const result = computeCondition({ parameters: [param('rpm', 9999, false), param('a', 50)], lastInspection: null });
    expect(result.overall_condition).toBe('good');
    expect(result.parameters.map((p) => [p.parameter, p.status, p.condition, p.deviation_percent])).toEqual([
      ['a', 'within_tolerance', 'good', 0],
      ['rpm', 'no_baseline', null, null],
    ]);
  });

  it('is good with nothing to judge, and follows an inspection alone', () => {
    expect(computeCondition({ parameters: [], lastInspection: null })).toEqual({ overall_condition: 'good', parameters: [] });
    expect(computeCondition({ parameters: [], lastInspection: { condition: 'critical', performedAt: T } }).overall_condition).toBe('critical');
  });
});

describe('condition bands', () => {
  it.each(SCORE_BANDS)('score %i (%s) reads as %s', (score, _status, condition) => {
    expect(conditionForScore(score)).toBe(condition);
  });

  it('worstCondition orders good < fair < poor < critical', () => {
    expect(worstCondition(['fair', 'critical', 'good'])).toBe('critical');
    expect(worstCondition(['good', 'fair'])).toBe('fair');
    expect(worstCondition([])).toBe('good');
  });
});
