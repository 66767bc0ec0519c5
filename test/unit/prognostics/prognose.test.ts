import * as fs from 'fs';
import * as path from 'path';
import { parseCmapss } from '../../../domain/prognostics/cmapss';
import { FD001_MODEL, predictRul, prognose, type Prognosis } from '../../../domain/prognostics/index';
import { recommendAction, DEFAULT_ACTION_THRESHOLDS } from '../../../domain/prognostics/actions';
import { confidenceLevel, normalCdf, sigmaAt } from '../../../domain/prognostics/uncertainty';
import type { CycleRecord } from '../../../domain/prognostics/types';

const test = parseCmapss(fs.readFileSync(path.join(__dirname, '../../../data/cmapss/test_FD001.txt'), 'utf8'));
const engine = (unit: number) => test.find((e) => e.unit === unit)!.records;

function ok(p: ReturnType<typeof prognose>): Prognosis {
  if (p.status !== 'ok') throw new Error(`expected a prognosis, got ${JSON.stringify(p)}`);
  return p;
}

describe('prognose: insufficient data is a typed answer, never a number', () => {
  it('fewer cycles than the 30-cycle window', () => {
    const p = prognose({ series: engine(1).slice(0, 12), cycle_length_days: 1 });
    expect(p).toEqual({
      status: 'insufficient_data',
      insufficient: { reason: 'too_few_cycles', required_cycles: 30, available_cycles: 12 },
      message: 'needs 30 cycles of history, has 12',
      model_version: 'cmapss-fd001-blend-v4',
    });
    expect(p).not.toHaveProperty('remaining_useful_life');
  });

  it('a required sensor missing in the window', () => {
    const series = engine(1).map((r) => {
      const { s11: _dropped, ...sensors } = r.sensors;
      return { cycle: r.cycle, sensors };
    });
    const p = prognose({ series, cycle_length_days: 1 });
    expect(p.status === 'insufficient_data' && p.insufficient).toEqual({ reason: 'missing_sensors', sensors: ['s11'] });
  });
});

describe('prognose on a real FD001 test engine', () => {
  // Test engine 34 is 7 cycles from failure (RUL_FD001.txt), engine 1 is 112 cycles away.
  it('near failure: short RUL in days, high failure probability, immediate action', () => {
    const p = ok(prognose({ series: engine(34), cycle_length_days: 0.5 }));
    expect(p.remaining_useful_life_cycles).toBeLessThan(25);
    expect(p.remaining_useful_life).toBeCloseTo(p.remaining_useful_life_cycles * 0.5, 0);
    expect(p.failure_probability).toBeGreaterThan(0.9);
    expect(p.recommended_action).toBe('immediate_maintenance');
    expect(p.model_version).toBe('cmapss-fd001-blend-v4');
    expect(p.out_of_range_features).toEqual([]);
  });

  it('healthy engine: long RUL, low failure probability, continue operation; a feature out of range caps the confidence', () => {
    const p = ok(prognose({ series: engine(1), cycle_length_days: 1 }));
    expect(p.remaining_useful_life).toBeGreaterThan(90);
    expect(p.failure_probability).toBeLessThan(0.05);
    // Only 31 cycles: the whole-history slope of s8 lies beyond the training range (in_distribution 0.79),
    // which bounds the confidence (v4 0.69, medium; v3's narrower spread near 112 cycles gave 0.70).
    expect(p.out_of_range_features).toEqual(['s8_hist_slope']);
    const distribution = predictRul(engine(1));
    expect(distribution.ok && distribution.in_distribution).toBeLessThan(0.8);
    expect(p.confidence).toBeGreaterThan(0.6);
    expect(p.confidence).toBeLessThanOrEqual(distribution.ok ? distribution.in_distribution : 0);
    expect(p.recommended_action).toBe('continue_operation');
  });

  it('days scale with the cycle length, the failure horizon shrinks in cycles', () => {
    const daily = ok(prognose({ series: engine(34), cycle_length_days: 1 }));
    const weekly = ok(prognose({ series: engine(34), cycle_length_days: 7 }));
    expect(weekly.remaining_useful_life_cycles).toBe(daily.remaining_useful_life_cycles);
    expect(weekly.remaining_useful_life).toBeCloseTo(daily.remaining_useful_life * 7, 0);
    // 30 days = 30 cycles vs 4.3 cycles: failure within 30 days is less likely with longer cycles.
    expect(weekly.failure_probability).toBeLessThan(daily.failure_probability);
  });

  it('flags a horizon beyond the RUL cap as a lower bound', () => {
    const p = ok(prognose({ series: engine(1), cycle_length_days: 0.1 })); // 30 days = 300 cycles
    expect(p.failure_probability_lower_bound).toBe(true);
  });

  it('is deterministic', () => {
    expect(prognose({ series: engine(20), cycle_length_days: 1 })).toEqual(prognose({ series: engine(20), cycle_length_days: 1 }));
  });

  it('refuses a non-positive cycle length', () => {
    expect(() => prognose({ series: engine(1), cycle_length_days: 0 })).toThrow(RangeError);
  });
});

describe('out-of-distribution input', () => {
  const scaled = (factor: number): CycleRecord[] =>
    engine(34).map((r) => ({
      cycle: r.cycle,
      sensors: Object.fromEntries(Object.entries(r.sensors).map(([k, v]) => [k, v * factor])),
    }));

  it('all sensors x3: prediction still within [0, cap], confidence low, action inspect', () => {
    const normal = ok(prognose({ series: engine(34), cycle_length_days: 1 }));
    const p = ok(prognose({ series: scaled(3), cycle_length_days: 1 }));
    expect(p.remaining_useful_life_cycles).toBeGreaterThanOrEqual(0);
    expect(p.remaining_useful_life_cycles).toBeLessThanOrEqual(FD001_MODEL.rul_cap);
    expect(p.confidence).toBeLessThan(normal.confidence);
    expect(p.confidence).toBeLessThan(0.1);
    expect(p.confidence_level).toBe('low');
    expect(p.out_of_range_features.length).toBeGreaterThan(20);
    expect(p.recommended_action).toBe('inspect');
  });

  it('huge and negative readings stay bounded too', () => {
    for (const factor of [1e6, -1]) {
      const r = predictRul(scaled(factor));
      if (!r.ok) throw new Error('expected a prediction');
      expect(r.rul_cycles).toBeGreaterThanOrEqual(0);
      expect(r.rul_cycles).toBeLessThanOrEqual(125);
      expect(r.in_distribution).toBeLessThan(0.01);
    }
  });
});

describe('uncertainty and actions', () => {
  it('normalCdf matches the table', () => {
    expect(normalCdf(0)).toBeCloseTo(0.5, 7);
    expect(normalCdf(1.959964)).toBeCloseTo(0.975, 6);
    expect(normalCdf(-1)).toBeCloseTo(0.158655, 6);
  });

  it('sigmaAt interpolates between bins and is flat beyond them', () => {
    const spread = { pred_centers: [10, 30], sigma: [4, 8] };
    expect(sigmaAt(spread, 0)).toBe(4);
    expect(sigmaAt(spread, 20)).toBe(6);
    expect(sigmaAt(spread, 100)).toBe(8);
  });

  it('confidence bands', () => {
    expect([confidenceLevel(0.7), confidenceLevel(0.69), confidenceLevel(0.4), confidenceLevel(0.39)]).toEqual(['high', 'medium', 'medium', 'low']);
  });

  it('actions follow the thresholds; low confidence always asks for an inspection', () => {
    const t = DEFAULT_ACTION_THRESHOLDS;
    expect(recommendAction(200, 0.5, 'high', t)).toBe('immediate_maintenance');
    expect(recommendAction(7, 0, 'high', t)).toBe('immediate_maintenance');
    expect(recommendAction(200, 0.2, 'high', t)).toBe('schedule_maintenance');
    expect(recommendAction(30, 0.1, 'high', t)).toBe('schedule_maintenance');
    expect(recommendAction(90, 0.01, 'medium', t)).toBe('monitor');
    expect(recommendAction(91, 0.01, 'high', t)).toBe('continue_operation');
    expect(recommendAction(200, 0.01, 'low', t)).toBe('inspect');
    expect(recommendAction(2, 0.9, 'low', t)).toBe('inspect');
  });

  it('thresholds from the predictive config override the defaults', () => {
    const p = ok(prognose({ series: engine(1), cycle_length_days: 1, thresholds: { monitor_rul_days: 500 } }));
    expect(p.recommended_action).toBe('monitor');
  });
});
