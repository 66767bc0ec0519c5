import { sameTrigger, triggerIntervalHours, validateDurationField, validateOnOpenTask, validateTrigger } from '../../../domain/maintenance/trigger';
import type { Trigger } from '../../../domain/maintenance/types';

describe('validateTrigger', () => {
  it('accepts a calendar trigger and normalises start_at', () => {
    expect(validateTrigger({ type: 'calendar', every: 1, unit: 'months', start_at: '2024-01-31', mode: 'fixed', extra: 1 })).toEqual({
      ok: true,
      value: { type: 'calendar', every: 1, unit: 'months', start_at: '2024-01-31T00:00:00.000Z', mode: 'fixed' },
    });
  });

  it('accepts a combined trigger', () => {
    const result = validateTrigger({
      type: 'calendar_or_counter',
      calendar: { every: 6, unit: 'months', start_at: '2024-01-01T00:00:00Z', mode: 'floating' },
      counter: { counter: 'operating_hours', unit: 'h', every: 500, start_value: 1200 },
    });
    expect(result.ok).toBe(true);
  });

  it('lists every bad field with its path', () => {
    const result = validateTrigger({ type: 'calendar', every: 1.5, unit: 'years', start_at: '2024-01-31T08:00:00', mode: 'sliding' });
    expect(result).toEqual({
      ok: false,
      errors: [
        { field: 'trigger.every', message: 'must be an integer from 1 to 10000' },
        { field: 'trigger.unit', message: 'must be one of hours, days, weeks, months' },
        { field: 'trigger.start_at', message: 'must be an ISO 8601 timestamp with offset, e.g. 2024-01-31T08:00:00Z' },
        { field: 'trigger.mode', message: 'must be one of fixed, floating' },
      ],
    });
    const combined = validateTrigger({ type: 'calendar_or_counter', calendar: null, counter: { counter: '', unit: 'h', every: 0, start_value: 'x' } });
    expect(combined.ok === false && combined.errors.map((e) => e.field)).toEqual([
      'trigger.calendar',
      'trigger.counter.counter',
      'trigger.counter.every',
      'trigger.counter.start_value',
    ]);
    expect(validateTrigger({ type: 'meter' })).toEqual({
      ok: false,
      errors: [{ field: 'trigger.type', message: 'must be one of calendar, counter, calendar_or_counter, condition, predictive' }],
    });
    expect(validateTrigger('calendar')).toEqual({ ok: false, errors: [{ field: 'trigger', message: 'must be an object' }] });
  });

  it('validates policy fields', () => {
    expect(validateDurationField('P1D', 'generate_ahead')).toEqual([]);
    expect(validateDurationField('1d', 'notify.lead_time')).toEqual([{ field: 'notify.lead_time', message: 'must be an ISO 8601 duration such as P0D, PT12H or P1DT6H' }]);
    expect(validateOnOpenTask('stack')).toEqual([]);
    expect(validateOnOpenTask('queue')).toHaveLength(1);
  });
});

describe('sameTrigger and triggerIntervalHours', () => {
  const a: Trigger = { type: 'counter', counter: 'km', unit: 'km', every: 10000, start_value: 0 };
  it('compares structurally, ignoring key order', () => {
    expect(sameTrigger(a, { start_value: 0, every: 10000, unit: 'km', counter: 'km', type: 'counter' })).toBe(true);
    expect(sameTrigger(a, { ...a, every: 5000 })).toBe(false);
  });
  it('gives the nominal interval; counters need a rate', () => {
    expect(triggerIntervalHours({ type: 'calendar', every: 2, unit: 'weeks', start_at: '2024-01-01T00:00:00Z', mode: 'fixed' }, null)).toBe(336);
    expect(triggerIntervalHours(a, 20)).toBe(500);
    expect(triggerIntervalHours(a, null)).toBeNull();
    expect(triggerIntervalHours(a, 0)).toBeNull();
  });
});
