import { DEFAULT_ACTION_THRESHOLDS } from '../../../domain/prognostics/actions';
import { prognoseDegradation, type ParameterHistory } from '../../../domain/prognostics/degradation';
import { failurePrior, MIN_EXPOSURE_DAYS, withPrior, type FailureHistory } from '../../../domain/prognostics/failure-prior';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 25);
const history = (corrective_tasks: number, exposure_days: number, assets = 10): FailureHistory => ({ asset_type: 'pump', assets, exposure_days, corrective_tasks });

describe('failure prior of an asset type from its corrective tasks', () => {
  it('is the Poisson rate of a long history: 10 pumps for a year with 24 repairs fail within 30 days with about 1 - exp(-24/3650 x 30)', () => {
    const prior = failurePrior(history(24, 3650), 30)!;
    expect(prior).toMatchObject({ asset_type: 'pump', assets: 10, corrective_tasks: 24, window_days: 365, failures_per_asset_year: 2.4 });
    // Jeffreys posterior predictive: 1 - (3650 / 3680)^24.5 = 0.182; the plain rate gives 0.179.
    expect(prior.failure_probability).toBeCloseTo(1 - Math.pow(3650 / 3680, 24.5), 3);
    expect(Math.abs(prior.failure_probability - (1 - Math.exp((-24 / 3650) * 30)))).toBeLessThan(0.01);
  });

  it('grows with the failures and shrinks with the exposure', () => {
    const p = (k: number, e: number) => failurePrior(history(k, e), 30)!.failure_probability;
    expect(p(2, 3650)).toBeLessThan(p(6, 3650));
    expect(p(6, 7300)).toBeLessThan(p(6, 3650));
  });

  it('is no prior (null) without a corrective task or with too little exposure: no made-up rate', () => {
    expect(failurePrior(history(0, 3650), 30)).toBeNull();
    expect(failurePrior(history(3, MIN_EXPOSURE_DAYS - 1), 30)).toBeNull();
    expect(failurePrior(history(3, MIN_EXPOSURE_DAYS), 30)).not.toBeNull();
  });

  it('joins a trend as an independent cause, and leaves it alone without history', () => {
    const prior = failurePrior(history(24, 3650), 30)!;
    expect(withPrior(0.5, prior)).toBeCloseTo(1 - 0.5 * (1 - prior.failure_probability), 6);
    expect(withPrior(0.5, null)).toBe(0.5);
  });

  it("raises a flat pump's probability to its type's history, and says so in the answer", () => {
    const flat: ParameterHistory = {
      parameter: 'vibration',
      readings: Array.from({ length: 120 }, (_, i) => ({ t: NOW - (30 - i / 4) * DAY, y: 2.5 * (1 + 0.01 * Math.sin(i * 12.9898)) })),
      upper: 3,
      lower: null,
      limit_source: 'baseline_band',
    };
    const options = { nowMs: NOW, horizonDays: 30, thresholds: DEFAULT_ACTION_THRESHOLDS };
    const without = prognoseDegradation([flat], options);
    const withHistory = prognoseDegradation([flat], { ...options, failureHistory: history(60, 3650) });
    if (without.status !== 'ok' || withHistory.status !== 'ok') throw new Error('expected ok answers');
    expect(without.failure_history).toBeNull();
    expect(without.failure_probability).toBe(without.trend_failure_probability);
    expect(without.failure_probability).toBeLessThanOrEqual(0.05);
    expect(withHistory.remaining_useful_life).toBeNull();
    expect(withHistory.trend_failure_probability).toBe(without.trend_failure_probability);
    expect(withHistory.failure_history).toMatchObject({ corrective_tasks: 60, failures_per_asset_year: 6 });
    // 6 repairs per pump-year: about 1 - exp(-0.49) = 0.39 within 30 days, so maintenance is scheduled.
    expect(withHistory.failure_probability).toBeGreaterThan(0.35);
    expect(withHistory.failure_probability).toBeLessThan(0.45);
    expect(without.recommended_action).toBe('continue_operation');
    expect(withHistory.recommended_action).toBe('schedule_maintenance');
  });
});
