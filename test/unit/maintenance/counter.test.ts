import {
  applyReading,
  counterAfterTriggerChange,
  estimateRatePerHour,
  initialCounterState,
  MAX_RECENT_READINGS,
  projectNextDue,
  type CounterState,
  type ReadingResult,
} from '../../../domain/maintenance/counter';
import type { CounterPart } from '../../../domain/maintenance/types';

const part: CounterPart = { counter: 'operating_hours', unit: 'h', every: 500, start_value: 1000 };

function accepted(result: ReadingResult) {
  if (!result.ok) throw new Error(`rejected: ${result.error.message}`);
  return result;
}

function feed(state: CounterState, readings: [string, number, boolean?][]): CounterState {
  return readings.reduce((s, [at, value, reset]) => accepted(applyReading(s, { at, value, source: 'gw-1', reset })).state, state);
}

describe('thresholds', () => {
  it('starts counting at start_value: first threshold is start_value + every', () => {
    expect(initialCounterState(part)).toEqual({
      counter: 'operating_hours',
      every: 500,
      anchor: 1000,
      next_threshold: 1500,
      last_value: 1000,
      last_read_at: null,
      total: 0,
      recent: [],
    });
  });

  it('a reading below the threshold is recorded, not due', () => {
    const r = accepted(applyReading(initialCounterState(part), { value: 1200, source: 'gw-1', at: '2024-03-01T00:00:00Z' }));
    expect(r.thresholds_crossed).toBe(0);
    expect(r.state.next_threshold).toBe(1500);
    expect(r.recorded).toEqual({ value: 1200, source: 'gw-1', at: '2024-03-01T00:00:00.000Z', reset: false, total: 200 });
  });

  it('reaching the threshold exactly is due and moves it by every', () => {
    const r = accepted(applyReading(initialCounterState(part), { value: 1500, source: 'gw-1', at: '2024-03-01T00:00:00Z' }));
    expect(r.thresholds_crossed).toBe(1);
    expect(r.state.next_threshold).toBe(2000);
  });

  it('one reading crossing several thresholds counts them and moves past the value on the grid', () => {
    const s = feed(initialCounterState(part), [['2024-03-01T00:00:00Z', 1600]]); // next 2000
    const r = accepted(applyReading(s, { value: 3700, source: 'gw-1', at: '2024-03-02T00:00:00Z' }));
    expect(r.thresholds_crossed).toBe(4); // 2000, 2500, 3000, 3500
    expect(r.state.next_threshold).toBe(4000);
    expect(r.state.anchor).toBe(1000); // the grid itself does not move
  });

  it('decimal steps do not lose a threshold to floating point', () => {
    const s = initialCounterState({ counter: 'km', unit: 'km', every: 0.1, start_value: 0 });
    const r = accepted(applyReading(s, { value: 0.3, source: 'gw', at: '2024-01-01T00:00:00Z' }));
    expect(r.thresholds_crossed).toBe(3);
    expect(r.state.next_threshold).toBe(0.4);
  });
});

describe('rejections', () => {
  const s = feed(initialCounterState(part), [['2024-03-01T00:00:00Z', 1200]]);

  it('a value going backwards without reset is refused with a typed error', () => {
    expect(applyReading(s, { value: 1199, source: 'gw-1', at: '2024-03-02T00:00:00Z' })).toEqual({
      ok: false,
      error: {
        code: 'COUNTER_WENT_BACKWARDS',
        message: 'value 1199 is below the last value 1200; send reset: true if the meter was reset',
        last_value: 1200,
        value: 1199,
      },
    });
  });

  it('a first reading below start_value is backwards too', () => {
    const r = applyReading(initialCounterState(part), { value: 900, source: 'gw-1', at: '2024-03-02T00:00:00Z' });
    expect(!r.ok && r.error.code).toBe('COUNTER_WENT_BACKWARDS');
  });

  it('the same value again is accepted', () => {
    expect(accepted(applyReading(s, { value: 1200, source: 'gw-1', at: '2024-03-02T00:00:00Z' })).thresholds_crossed).toBe(0);
  });

  it('an older reading, a non-number value or an empty source is refused', () => {
    const older = applyReading(s, { value: 1300, source: 'gw-1', at: '2024-02-29T00:00:00Z' });
    expect(!older.ok && older.error.code).toBe('READING_OUT_OF_ORDER');
    const nan = applyReading(s, { value: Number.NaN, source: 'gw-1', at: '2024-03-02T00:00:00Z' });
    expect(!nan.ok && nan.error).toMatchObject({ code: 'INVALID_READING', field: 'value' });
    const noSource = applyReading(s, { value: 1300, source: ' ', at: '2024-03-02T00:00:00Z' });
    expect(!noSource.ok && noSource.error).toMatchObject({ code: 'INVALID_READING', field: 'source' });
    const badAt = applyReading(s, { value: 1300, source: 'gw-1', at: 'now' });
    expect(!badAt.ok && badAt.error).toMatchObject({ code: 'INVALID_READING', field: 'at' });
  });
});

describe('meter reset', () => {
  const before = feed(initialCounterState(part), [['2024-03-01T00:00:00Z', 1800]]); // next 2000: 200 to go

  it('keeps the distance still to go and the accumulated usage', () => {
    const r = accepted(applyReading(before, { value: 50, source: 'gw-1', at: '2024-03-02T00:00:00Z', reset: true }));
    expect(r.thresholds_crossed).toBe(0);
    expect(r.state.next_threshold).toBe(200); // 200 to go from zero, 150 after this reading
    expect(r.state.total).toBe(850); // 800 before + 50 since the reset
    expect(r.recorded.reset).toBe(true);
    const after = accepted(applyReading(r.state, { value: 250, source: 'gw-1', at: '2024-03-03T00:00:00Z' }));
    expect(after.thresholds_crossed).toBe(1);
    expect(after.state.next_threshold).toBe(700);
  });

  it('a reset reading can itself cross the threshold', () => {
    const s = feed(initialCounterState(part), [['2024-03-01T00:00:00Z', 1900]]); // next 2000
    const r = accepted(applyReading(s, { value: 150, source: 'gw-1', at: '2024-03-02T00:00:00Z', reset: true }));
    expect(r.thresholds_crossed).toBe(1); // threshold 100 on the new scale
    expect(r.state.next_threshold).toBe(600);
  });
});

describe('rate and projection', () => {
  it('least-squares slope over the recent readings', () => {
    const points = [0, 12, 18, 30].map((total, h) => ({ at: new Date(Date.UTC(2024, 0, 1, h)).toISOString(), total }));
    expect(estimateRatePerHour(points, '2024-01-01T03:00:00Z')).toBeCloseTo(9.6, 12);
  });

  it('ignores readings outside the window or in the future, and needs two distinct instants and a positive rate', () => {
    const at = (d: number) => new Date(Date.UTC(2024, 0, d)).toISOString();
    const now = '2024-03-01T00:00:00Z';
    expect(
      estimateRatePerHour(
        [
          { at: at(1), total: 0 },
          { at: at(2), total: 24 },
        ],
        now,
      ),
    ).toBeNull(); // > 30 days old
    expect(
      estimateRatePerHour(
        [
          { at: at(1), total: 0 },
          { at: at(2), total: 24 },
        ],
        now,
        { window_hours: 24 * 70 },
      ),
    ).toBe(1);
    expect(
      estimateRatePerHour(
        [
          { at: '2024-02-29T00:00:00Z', total: 0 },
          { at: '2024-03-02T00:00:00Z', total: 10 },
        ],
        now,
      ),
    ).toBeNull();
    expect(estimateRatePerHour([{ at: '2024-02-29T00:00:00Z', total: 5 }], now)).toBeNull();
    expect(
      estimateRatePerHour(
        [
          { at: '2024-02-29T00:00:00Z', total: 5 },
          { at: '2024-02-29T00:00:00Z', total: 9 },
        ],
        now,
      ),
    ).toBeNull();
    expect(
      estimateRatePerHour(
        [
          { at: '2024-02-28T00:00:00Z', total: 5 },
          { at: '2024-02-29T00:00:00Z', total: 5 },
        ],
        now,
      ),
    ).toBeNull();
  });

  it('projects the next threshold from the last reading at the recent rate', () => {
    const s = feed(initialCounterState({ ...part, every: 1000 }), [
      ['2024-03-01T00:00:00Z', 1100],
      ['2024-03-02T00:00:00Z', 1340],
      ['2024-03-03T00:00:00Z', 1580],
    ]); // 10 h/h, 420 to go to 2000
    expect(projectNextDue(s, '2024-03-03T06:00:00Z')).toEqual({ at: '2024-03-04T18:00:00.000Z', rate_per_hour: 10 });
  });

  it('never projects into the past and is null without enough data', () => {
    const s = feed(initialCounterState({ ...part, every: 1000 }), [
      ['2024-03-01T00:00:00Z', 1100],
      ['2024-03-02T00:00:00Z', 1340],
    ]);
    expect(projectNextDue(s, '2024-03-10T00:00:00Z')?.at).toBe('2024-03-10T00:00:00.000Z');
    expect(projectNextDue(feed(initialCounterState(part), [['2024-03-01T00:00:00Z', 1100]]), '2024-03-02T00:00:00Z')).toBeNull();
    expect(projectNextDue(initialCounterState(part), '2024-03-02T00:00:00Z')).toBeNull();
  });

  it('is null when the rate is so slow that the threshold is beyond 100 years (found by the fuzzer: a Date out of range failed the plan workflow)', () => {
    const s = feed(initialCounterState({ ...part, every: 1e12 }), [
      ['2024-03-01T00:00:00Z', 1000],
      ['2024-03-02T00:00:00Z', 1000.000001],
    ]);
    expect(() => projectNextDue(s, '2024-03-02T06:00:00Z')).not.toThrow();
    expect(projectNextDue(s, '2024-03-02T06:00:00Z')).toBeNull();
  });

  it('keeps only the last readings (bounded state for continueAsNew)', () => {
    const readings = Array.from({ length: 30 }, (_, i): [string, number] => [new Date(Date.UTC(2024, 0, 1, i)).toISOString(), 1000 + i]);
    const s = feed(initialCounterState(part), readings);
    expect(s.recent).toHaveLength(MAX_RECENT_READINGS);
    expect(s.recent[0].at).toBe('2024-01-01T10:00:00.000Z');
    expect(JSON.parse(JSON.stringify(s))).toEqual(s);
  });
});

describe('counterAfterTriggerChange', () => {
  const s = feed(initialCounterState(part), [['2024-03-01T00:00:00Z', 1600]]); // next 2000
  it('same meter, new step: keeps readings and the anchor', () => {
    const next = counterAfterTriggerChange(s, part, { ...part, every: 300 });
    expect(next).toMatchObject({ every: 300, anchor: 1000, next_threshold: 1900, last_value: 1600, total: 600 });
  });
  it('same meter, new start_value: the grid restarts there', () => {
    expect(counterAfterTriggerChange(s, part, { ...part, start_value: 1550 }).next_threshold).toBe(2050);
    expect(counterAfterTriggerChange(s, part, { ...part, start_value: 1900 }).next_threshold).toBe(2400);
  });
  it('another meter: fresh state', () => {
    expect(counterAfterTriggerChange(s, part, { ...part, counter: 'cycles', start_value: 0 })).toEqual(initialCounterState({ ...part, counter: 'cycles', start_value: 0 }));
  });
});
