import { toleranceBand } from '../../../domain/assets/band';
import { computeHealth, inspectionFactor, parameterScore, statusForScore } from '../../../domain/assets/health';
import { SCORE_BANDS } from './score-bands';

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 0, 1);
const series = (values: number[]) => values.map((y, i) => ({ t: T0 + i * HOUR, y }));
// baseline 100 ± 10 %: band 90..110, half-width 10, so a value's ratio is |v - 100| / 10.
const band = toleranceBand(100, 10);

describe('statusForScore: the exact SPEC bands', () => {
  it.each(SCORE_BANDS)('%i is %s', (score, status) => {
    expect(statusForScore(score)).toBe(status);
  });

  it.each([-1, 101, 50.5, NaN])('refuses %p', (score) => {
    expect(() => statusForScore(score)).toThrow(RangeError);
  });
});

describe('parameterScore', () => {
  it.each([
    [0, 100],
    [0.5, 85],
    [1, 71],
    [1.0001, 70],
    [1.5, 51],
    [1.5001, 50],
    [2, 26],
    [2.0001, 25],
    [3, 0],
    [7, 0],
    [Infinity, 0],
  ])('ratio %p scores %i', (ratio, score) => {
    expect(parameterScore(ratio)).toBe(score);
  });
});

describe('computeHealth', () => {
  it('is 100 / excellent with no factor at all', () => {
    expect(computeHealth({ parameters: [], inspections: [] })).toEqual({ health_score: 100, status: 'excellent', factors: [] });
  });

  it.each([
    // value → ratio → score → status at each band boundary
    [107.5, 78, 'good'], // ratio 0.75: 100 - 29 × 0.75 = 78.25
    [110, 71, 'good'], // on the band's edge: 71
    [110.1, 70, 'fair'],
    [115, 51, 'fair'],
    [115.1, 50, 'poor'],
    [120, 26, 'poor'],
    [120.1, 25, 'critical'],
    [100.9, 97, 'excellent'],
    [103, 91, 'excellent'],
    [103.4, 90, 'good'],
  ])('one parameter at %p scores %i (%s)', (value, score, status) => {
    const health = computeHealth({ parameters: [{ parameter: 'temperature', band, recent: series([value]) }], inspections: [] });
    expect(health).toMatchObject({ health_score: score, status });
    expect(health.factors).toEqual([
      expect.objectContaining({ kind: 'parameter', name: 'temperature', score, trend: 'stable', value, baseline_value: 100, tolerance_percent: 10 }),
    ]);
  });

  it('weights parameters 70 % and the inspection 30 %', () => {
    // parameters 100 and 85 (mean 92.5); inspection fair = 60 → 0.7 * 92.5 + 0.3 * 60 = 82.75 → 82
    const health = computeHealth({
      parameters: [
        { parameter: 'a', band, recent: series([100]) },
        { parameter: 'b', band, recent: series([105]) },
      ],
      inspections: [{ condition: 'fair', performedAt: T0 }],
    });
    expect(health.factors.map((f) => [f.name, f.score])).toEqual([
      ['a', 100],
      ['b', 85],
      ['inspection', 60],
    ]);
    expect(health).toMatchObject({ health_score: 82, status: 'good' });
  });

  it('never exceeds the worst factor by more than 25: one failing parameter is not averaged away', () => {
    const healthy = Array.from({ length: 9 }, (_, i) => ({ parameter: `p${i}`, band, recent: series([100]) }));
    const health = computeHealth({ parameters: [...healthy, { parameter: 'z', band, recent: series([140]) }], inspections: [] });
    // mean (9 × 100 + 0) / 10 = 90, capped at 0 + 25
    expect(health).toMatchObject({ health_score: 25, status: 'critical' });
  });

  it('uses the inspection alone when there is no baselined parameter', () => {
    expect(computeHealth({ parameters: [], inspections: [{ condition: 'poor', performedAt: T0 }] })).toMatchObject({ health_score: 40, status: 'poor' });
  });

  it('takes the newest reading as the current value whatever the order given', () => {
    const recent = [
      { t: T0 + 2 * HOUR, y: 118 },
      { t: T0, y: 100 },
      { t: T0 + HOUR, y: 104 },
    ];
    const [factor] = computeHealth({ parameters: [{ parameter: 't', band, recent }], inspections: [] }).factors;
    expect(factor).toMatchObject({ value: 118, score: 36, measured_at: new Date(T0 + 2 * HOUR).toISOString(), deviation_percent: 18 });
  });
});

describe('factor trends', () => {
  const factorOf = (values: number[]) => computeHealth({ parameters: [{ parameter: 'p', band, recent: series(values) }], inspections: [] }).factors[0];

  it('declining when the readings drift away from the baseline', () => {
    expect(factorOf([100, 102, 104, 106, 108])?.trend).toBe('declining');
  });

  it('improving when they come back towards it', () => {
    expect(factorOf([116, 112, 108, 104, 100])?.trend).toBe('improving');
  });

  it('stable with noise around the baseline, and with fewer than 3 readings', () => {
    expect(factorOf([100, 101, 99, 100.5, 99.5, 100])?.trend).toBe('stable');
    expect(factorOf([100, 118])?.trend).toBe('stable');
  });

  it('the inspection trend compares the last two ratings', () => {
    expect(
      inspectionFactor([
        { condition: 'good', performedAt: T0 + HOUR },
        { condition: 'poor', performedAt: T0 },
      ]),
    ).toMatchObject({ score: 100, trend: 'improving' });
    expect(
      inspectionFactor([
        { condition: 'critical', performedAt: T0 + HOUR },
        { condition: 'fair', performedAt: T0 },
      ]),
    ).toMatchObject({ score: 15, trend: 'declining' });
    expect(inspectionFactor([{ condition: 'fair', performedAt: T0 }])).toMatchObject({ trend: 'stable' });
    expect(inspectionFactor([])).toBeNull();
  });
});
