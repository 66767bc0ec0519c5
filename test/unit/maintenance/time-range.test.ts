/**
 * Times a plan computes never leave the range of a four-digit-year ISO timestamp (found by the
 * fuzzer: a counter plan whose meter barely moved had a grace beyond the range of a Date, and its
 * workflow failed every task with "Invalid time value").
 */
import { graceDeadline } from '../../../domain/maintenance/compliance';
import { clampedDate, EARLIEST_INSTANT_MS, LATEST_INSTANT_MS } from '../../../domain/maintenance/instant';
import { generateAt, notifyAt } from '../../../domain/maintenance/schedule';
import { validateTrigger } from '../../../domain/maintenance/trigger';
import { overdueDeadline } from '../../../workflows/maintenance-plan-state';

describe('plan times stay in range', () => {
  it('clamps a grace deadline of an astronomically long interval to the end of year 9999', () => {
    expect(graceDeadline({ due_at: '2026-01-01T00:00:00Z', interval_hours: 1e300 }).toISOString()).toBe('9999-12-31T23:59:59.999Z');
    expect(overdueDeadline('2026-01-01T00:00:00Z', Number.MAX_VALUE)).toBe('9999-12-31T23:59:59.999Z');
    expect(overdueDeadline('2026-01-01T00:00:00Z', 240)).toBe('2026-01-02T00:00:00.000Z');
    expect(clampedDate(Infinity).getTime()).toBe(LATEST_INSTANT_MS);
    expect(clampedDate(Number.NaN).getTime()).toBe(LATEST_INSTANT_MS);
  });

  it('a lead time or generate-ahead of a million years is "already past", not an invalid time', () => {
    expect(generateAt('2026-01-01T00:00:00Z', 'P1000000Y')).toBe('1970-01-01T00:00:00.000Z');
    expect(notifyAt('2026-01-01T00:00:00Z', 'P1000000Y')).toBe('1970-01-01T00:00:00.000Z');
    expect(notifyAt('2026-01-02T00:00:00Z', 'P1D')).toBe('2026-01-01T00:00:00.000Z');
    expect(clampedDate(Number.NaN, 'earliest').getTime()).toBe(EARLIEST_INSTANT_MS);
  });

  it('refuses a calendar start outside 1970-2999, so ten thousand months later is still a four-digit year', () => {
    const trigger = (start_at: string) => validateTrigger({ type: 'calendar', every: 10_000, unit: 'months', start_at, mode: 'fixed' });
    expect(trigger('2999-12-31T23:00:00Z').ok).toBe(true);
    for (const start of ['3000-01-01T00:00:00Z', '9999-12-31T23:59:59Z', '1969-12-31T23:59:59Z']) {
      expect(trigger(start)).toEqual({ ok: false, errors: [{ field: 'trigger.start_at', message: 'must be between 1970 and 2999' }] });
    }
  });
});
