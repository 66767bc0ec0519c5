import {
  initialSchedule,
  nextDue,
  onExecuted,
  onForecasts,
  predictedDueAt,
  rearmPredictive,
  validateTrigger,
  withCalendar,
  workOrderDueAt,
  type PredictiveState,
  type PredictiveTrigger,
} from '../../../domain/maintenance';
import { forecastAsset } from '../../../domain/maintenance/predictive-forecast';
import type { ParameterHistory } from '../../../domain/prognostics/degradation';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1);
const trigger: PredictiveTrigger = { type: 'predictive', parameter: 'vibration', lead_days: 3, min_probability: 0.5 };

/** Hourly readings over `days` days ending at T0, from `from` rising by `perDay`, with a wobble of `noise`. */
function history(days: number, from: number, perDay: number, noise = 0.01): ParameterHistory {
  const readings = Array.from({ length: days * 24 + 1 }, (_, i) => {
    const t = T0 - days * DAY + i * 3_600_000;
    return { t, y: from + (perDay * i) / 24 + noise * Math.sin(i * 1.7) };
  });
  return { parameter: 'vibration', readings, upper: 7.1, lower: null, limit_source: 'predictive_config' };
}

describe('predictive trigger validation', () => {
  it('accepts the issue example with a calendar fallback and names each bad field', () => {
    const calendar = { every: 3, unit: 'months' as const, start_at: '2026-01-01T00:00:00Z', mode: 'fixed' as const };
    const ok = validateTrigger({ ...trigger, lead_days: 14, calendar, extra: 1 });
    expect(ok).toEqual({ ok: true, value: { ...trigger, lead_days: 14, calendar: { ...calendar, start_at: '2026-01-01T00:00:00.000Z' } } });
    const bad = validateTrigger({ type: 'predictive', parameter: '', lead_days: 0, min_probability: 1.5 });
    expect(bad.ok === false && bad.errors.map((e) => e.field)).toEqual(['trigger.parameter', 'trigger.lead_days', 'trigger.min_probability']);
    expect(withCalendar({ ...trigger, calendar }, { ...calendar, every: 6 })).toMatchObject({ type: 'predictive', calendar: { every: 6 } });
  });
});

describe('forecastAsset', () => {
  it('a trend crossing in ten days falls due lead_days before the crossing, not now', () => {
    const f = forecastAsset(trigger, 'pump', history(10, 2, 0.25), T0); // 4.5 now, 7.1 in about 10.4 days
    const crossing = Date.parse(f.evidence!.projected_crossing_at!);
    expect(crossing - T0).toBeGreaterThan(9 * DAY);
    expect(crossing - T0).toBeLessThan(12 * DAY);
    // Probability 0.5 within lead_days is reached when the crossing is lead_days away (to the minute and the rounding of the RUL).
    expect(Math.abs(Date.parse(f.due_at!) - (crossing - 3 * DAY))).toBeLessThan(30 * 60_000);
    expect(f.evidence).toMatchObject({
      asset_id: 'pump',
      model_version: 'degradation-trend-v2',
      limit: { above: 7.1 },
      limit_source: 'predictive_config',
      lead_days: 3,
      min_probability: 0.5,
      readings: { count: 241, from: new Date(T0 - 10 * DAY).toISOString(), to: new Date(T0).toISOString() },
      predicted_at: new Date(T0).toISOString(),
    });
    expect(f.evidence!.probability).toBeLessThan(0.5);
    expect(f.evidence!.remaining_useful_life_interval![0]).toBeLessThanOrEqual(f.evidence!.remaining_useful_life!);
  });

  it('due now when the crossing is within lead_days; a higher min_probability waits longer; a flat series is never due', () => {
    const rising = history(10, 2, 0.25, 0.4);
    expect(forecastAsset({ ...trigger, lead_days: 14 }, 'pump', rising, T0).due_at).toBe(new Date(T0).toISOString());
    const at50 = Date.parse(forecastAsset(trigger, 'pump', rising, T0).due_at!);
    const at90 = Date.parse(forecastAsset({ ...trigger, min_probability: 0.9 }, 'pump', rising, T0).due_at!);
    expect(at90).toBeGreaterThan(at50);
    const flat = forecastAsset(trigger, 'pump', history(10, 2, 0), T0);
    expect(flat.due_at).toBeNull();
    expect(flat.evidence?.remaining_useful_life).toBeNull();
    expect(forecastAsset(trigger, 'pump', { ...rising, readings: rising.readings.slice(-3) }, T0)).toEqual({ asset_id: 'pump', due_at: null, evidence: null });
  });
});

describe('predictive state', () => {
  const evidence = forecastAsset(trigger, 'pump', history(10, 2, 0.25), T0).evidence!;
  const empty: PredictiveState = { parameter: 'vibration', assets: {} };
  const now = new Date(T0);

  it('keeps a future due time for the timer, fires once when due, re-arms on completion or when the trend turns away', () => {
    const due = new Date(T0 + 7 * DAY).toISOString();
    let r = onForecasts(empty, [{ asset_id: 'pump', due_at: due, evidence }], now);
    expect(r.fired).toEqual([]);
    expect(predictedDueAt(r.state)).toBe(due);
    r = onForecasts(r.state, [{ asset_id: 'pump', due_at: due, evidence }], new Date(due));
    expect(r.fired).toEqual([evidence]);
    expect(predictedDueAt(r.state)).toBeNull();
    // Fired: the same forecast again makes nothing.
    expect(onForecasts(r.state, [{ asset_id: 'pump', due_at: due, evidence }], new Date(due)).fired).toEqual([]);
    // Too few readings says nothing either way.
    expect(onForecasts(r.state, [{ asset_id: 'pump', due_at: null, evidence: null }], new Date(due)).state.assets.pump!.fired).toBe(true);
    // A trend heading away re-arms only once it has stayed away for lead_days (3 here): a flip back
    // up before that is the same excursion, and fires nothing.
    const away = (state: PredictiveState, at: number) => onForecasts(state, [{ asset_id: 'pump', due_at: null, evidence }], new Date(at)).state;
    const briefly = away(r.state, Date.parse(due));
    expect(briefly.assets.pump).toMatchObject({ fired: true, away_since: due });
    const back = onForecasts(briefly, [{ asset_id: 'pump', due_at: due, evidence }], new Date(Date.parse(due) + DAY));
    expect(back.fired).toEqual([]);
    expect(back.state.assets.pump).toMatchObject({ fired: true, away_since: null });
    expect(away(away(back.state, Date.parse(due) + 2 * DAY), Date.parse(due) + 4 * DAY).assets.pump!.fired).toBe(true);
    expect(away(away(back.state, Date.parse(due) + 2 * DAY), Date.parse(due) + 5 * DAY).assets.pump!.fired).toBe(false);
    // A completed work order re-arms, and the readings before it no longer count.
    const rearmed = rearmPredictive(r.state, 'pump', due);
    expect(rearmed.assets.pump).toMatchObject({ due_at: null, fired: false, evidence: null, since: due });
    expect(onForecasts(rearmed, [{ asset_id: 'pump', due_at: due, evidence }], new Date(due)).fired).toHaveLength(1);
  });

  it('the work order is due lead_days before the projected crossing, never before the decision', () => {
    const crossing = Date.parse(evidence.projected_crossing_at!);
    expect(workOrderDueAt(evidence, now)).toBe(new Date(crossing - 3 * DAY).toISOString());
    expect(workOrderDueAt(evidence, new Date(crossing))).toBe(new Date(crossing).toISOString());
  });

  it("the plan's next due is the earlier of the prediction and the calendar fallback; an execution re-arms the calendar", () => {
    const calendar = { every: 1, unit: 'months' as const, start_at: new Date(T0 + 30 * DAY).toISOString(), mode: 'fixed' as const };
    const withFallback = { ...trigger, calendar };
    const schedule = initialSchedule(withFallback, now);
    expect(nextDue(schedule, now)).toMatchObject({ trigger: 'calendar', at: calendar.start_at });
    const due = new Date(T0 + 7 * DAY).toISOString();
    const predicted = { ...schedule, predictive: onForecasts(empty, [{ asset_id: 'pump', due_at: due, evidence }], now).state } as typeof schedule;
    expect(nextDue(predicted, now)).toEqual({ at: due, trigger: 'predictive', projected: true });
    const executed = onExecuted(predicted, withFallback, { at: due, by: 'system', trigger: 'predictive' });
    expect('calendar' in executed && executed.calendar.due_at).toBe(new Date(T0 + 7 * DAY + 31 * DAY).toISOString());
  });
});
