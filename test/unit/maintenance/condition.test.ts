import {
  conditionPriors,
  onConditionRuns,
  rearmCondition,
  toRuns,
  validateTrigger,
  withCalendar,
  initialSchedule,
  onExecuted,
  type ConditionPoint,
  type ConditionState,
  type ConditionTrigger,
} from '../../../domain/maintenance';

const T0 = Date.UTC(2026, 0, 1, 0, 0, 0);
const at = (minute: number) => new Date(T0 + minute * 60_000).toISOString();
const trigger: ConditionTrigger = { type: 'condition', parameter: 'vibration', above: 3.5, for_minutes: 60 };

/** Readings every 5 minutes from `startMinute`, one value each. */
const series = (startMinute: number, values: number[]): ConditionPoint[] => values.map((value, i) => ({ at: at(startMinute + i * 5), value }));

/** Feeds the readings batch by batch (as the workflow receives them) and counts the firings. */
function feed(batches: ConditionPoint[][], start: ConditionState = { parameter: 'vibration', assets: {} }) {
  let state = start;
  const fired = [];
  for (const batch of batches) {
    const r = onConditionRuns(trigger, state, { pump: toRuns(trigger, batch, conditionPriors(state).pump ?? null) });
    state = r.state;
    fired.push(...r.fired);
  }
  return { state, fired };
}

describe('condition trigger evaluator', () => {
  it('fires once the readings stay above the limit for the window, with the first and last reading as evidence', () => {
    const readings = series(0, Array(13).fill(4)); // minutes 0..60
    const { fired } = feed([readings.slice(0, 12), readings.slice(12)]);
    expect(fired).toEqual([
      {
        asset_id: 'pump',
        parameter: 'vibration',
        limit: { above: 3.5 },
        deadband: 0.175,
        for_minutes: 60,
        first_reading: { at: at(0), value: 4 },
        last_reading: { at: at(60), value: 4 },
      },
    ]);
  });

  it('the evidence names the reading that completed the window, however the readings were batched', () => {
    const readings = series(0, Array(20).fill(4)); // minutes 0..95
    const oneBatch = feed([readings]).fired;
    const manyBatches = feed([readings.slice(0, 5), readings.slice(5, 11), readings.slice(11)]).fired;
    expect(oneBatch.map((f) => f.last_reading.at)).toEqual([at(60)]);
    expect(manyBatches).toEqual(oneBatch);
  });

  it('does not fire when the excursion is shorter than the window (strict persistence)', () => {
    expect(feed([series(0, [4, 4, 4, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4])]).fired).toEqual([]);
  });

  it('a flapping sensor around the limit after the excursion makes no second firing', () => {
    const excursion = series(0, Array(13).fill(4));
    const flapping = series(
      65,
      Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? 3.4 : 3.6)),
    );
    const { fired } = feed([excursion, ...chunks(flapping, 7)]);
    expect(fired).toHaveLength(1);
  });

  it('a sensor flapping around the limit from the start makes one work order (the deadband keeps it in one excursion); without a deadband, none', () => {
    const flapping = series(
      0,
      Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? 3.6 : 3.4)),
    );
    expect(feed(chunks(flapping, 6)).fired.map((f) => [f.first_reading.at, f.last_reading.at])).toEqual([[at(0), at(60)]]);
    const strict: ConditionTrigger = { ...trigger, deadband: 0 };
    const runs = toRuns(strict, flapping);
    expect(onConditionRuns(strict, { parameter: 'vibration', assets: {} }, { pump: runs }).fired).toEqual([]);
  });

  it('readings back inside for the window re-arm it: the next excursion fires again', () => {
    const first = series(0, Array(13).fill(4));
    const recovery = series(65, Array(13).fill(2)); // minutes 65..125: inside for 60 minutes
    const second = series(130, Array(13).fill(5));
    const { fired } = feed([first, recovery, second]);
    expect(fired.map((f) => f.first_reading.at)).toEqual([at(0), at(130)]);
  });

  it('a completed work order re-arms its asset: readings still beyond make another work order after the window', () => {
    const first = feed([series(0, Array(13).fill(4))]);
    const rearmed = { ...first.state, ...rearmCondition(first.state, 'other-asset') };
    expect(rearmed).toEqual(first.state); // another asset's work order changes nothing here
    const again = feed([series(65, Array(13).fill(4))], rearmCondition(first.state, 'pump'));
    expect(again.fired.map((f) => [f.first_reading.at, f.last_reading.at])).toEqual([[at(65), at(125)]]);
    expect(feed([series(65, Array(13).fill(4))], first.state).fired).toEqual([]); // not re-armed: still one
  });

  it('a recovery shorter than the window does not re-arm', () => {
    const { fired } = feed([series(0, Array(13).fill(4)), series(65, Array(6).fill(2)), series(95, Array(20).fill(5))]);
    expect(fired).toHaveLength(1);
  });

  it('below limits fire on low values; readings older than the last evaluated one are ignored', () => {
    const low: ConditionTrigger = { type: 'condition', parameter: 'pressure', below: 1, for_minutes: 10 };
    const first = onConditionRuns(low, { parameter: 'pressure', assets: {} }, { a: toRuns(low, series(0, [0.5, 0.5, 0.5])) });
    expect(first.fired).toHaveLength(1);
    const late = onConditionRuns(low, first.state, { a: toRuns(low, series(-200, Array(20).fill(2))) });
    expect(late.state).toEqual(first.state);
  });

  it('an execution keeps the condition state and moves the calendar fallback from it', () => {
    const withCalendar: ConditionTrigger = { ...trigger, calendar: { every: 30, unit: 'days', start_at: at(0), mode: 'floating' } };
    const s0 = initialSchedule(withCalendar, at(0));
    const s1 = onExecuted(s0, withCalendar, { at: at(60 * 24), by: 'system', trigger: 'condition' });
    expect('calendar' in s1 && s1.calendar.due_at).toBe(new Date(T0 + 31 * 86_400_000).toISOString());
    expect('condition' in s1 && s1.condition).toEqual(s0.type === 'condition' && s0.condition);
  });
});

describe('an optimizer frequency patch on a condition plan', () => {
  it('moves its calendar fallback; a plan without one is left as it is', () => {
    const cal = { every: 30, unit: 'days' as const, start_at: at(0), mode: 'floating' as const };
    expect(withCalendar({ ...trigger, calendar: cal }, { ...cal, every: 20 })).toEqual({ ...trigger, calendar: { ...cal, every: 20 } });
    expect(withCalendar(trigger, cal)).toEqual(trigger);
  });
});

describe('condition trigger validation', () => {
  it('accepts above or below with an optional calendar fallback', () => {
    const r = validateTrigger({ type: 'condition', parameter: 'vibration', below: 1, for_minutes: 0, extra: 1 });
    expect(r).toEqual({ ok: true, value: { type: 'condition', parameter: 'vibration', below: 1, for_minutes: 0 } });
  });

  it('names each invalid field', () => {
    const r = validateTrigger({ type: 'condition', parameter: '', above: 1, below: 2, for_minutes: 1.5, calendar: 'monthly' });
    expect(r.ok === false && r.errors.map((e) => e.field)).toEqual(['trigger.parameter', 'trigger.above', 'trigger.for_minutes', 'trigger.calendar']);
  });
});

function chunks<T>(xs: T[], size: number): T[][] {
  return Array.from({ length: Math.ceil(xs.length / size) }, (_, i) => xs.slice(i * size, (i + 1) * size));
}
