import { addInterval, HOURS_PER_NOMINAL_MONTH, intervalHours, nextFixedDueAfter, nextFloatingDue, nthOccurrence } from '../../../domain/maintenance/calendar';
import { MONTH_END_GRID_FROM_2024_01_31 } from './month-end-grid';

const iso = (d: Date) => d.toISOString();
const grid = (start: string, count: number, every: number, unit: 'hours' | 'days' | 'weeks' | 'months') =>
  Array.from({ length: count }, (_, k) => iso(nthOccurrence(start, k, every, unit)).slice(0, 10));

describe('fixed monthly grid, computed from the anchor', () => {
  it('from 2024-01-31 (leap year) clamps to each month end without drifting', () => {
    expect(grid('2024-01-31T00:00:00Z', 14, 1, 'months')).toEqual(MONTH_END_GRID_FROM_2024_01_31);
  });

  it('from 2023-01-31 (common year) gives 2023-02-28 then back to the 31st', () => {
    expect(grid('2023-01-31T00:00:00Z', 4, 1, 'months')).toEqual(['2023-01-31', '2023-02-28', '2023-03-31', '2023-04-30']);
  });

  it('every 3 months from 2023-11-30 crosses the leap February', () => {
    expect(grid('2023-11-30T00:00:00Z', 4, 3, 'months')).toEqual(['2023-11-30', '2024-02-29', '2024-05-30', '2024-08-30']);
  });

  it('a leap-day anchor yearly falls on Feb 28 and comes back to Feb 29 in leap years', () => {
    expect(grid('2024-02-29T00:00:00Z', 5, 12, 'months')).toEqual(['2024-02-29', '2025-02-28', '2026-02-28', '2027-02-28', '2028-02-29']);
  });

  it('keeps the time of day', () => {
    expect(iso(nthOccurrence('2024-01-31T08:30:00Z', 1, 1, 'months'))).toBe('2024-02-29T08:30:00.000Z');
  });
});

describe('fixed-length units', () => {
  it('weekly every 2 weeks from a Monday', () => {
    expect(grid('2024-01-01T06:00:00Z', 4, 2, 'weeks')).toEqual(['2024-01-01', '2024-01-15', '2024-01-29', '2024-02-12']);
  });

  it('hourly grid is pure UTC (no daylight-saving shift on 2024-03-10 / 2024-03-31)', () => {
    expect(iso(nthOccurrence('2024-03-10T22:00:00Z', 1, 8, 'hours'))).toBe('2024-03-11T06:00:00.000Z');
    expect(iso(nthOccurrence('2024-03-30T12:00:00Z', 3, 8, 'hours'))).toBe('2024-03-31T12:00:00.000Z');
  });

  it('days across the leap day', () => {
    expect(iso(nthOccurrence('2024-02-27T00:00:00Z', 2, 1, 'days'))).toBe('2024-02-29T00:00:00.000Z');
  });
});

describe('nextFixedDueAfter', () => {
  const start = '2024-01-31T00:00:00Z';
  it('is the start itself when `after` is before the start', () => {
    expect(iso(nextFixedDueAfter(start, 1, 'months', '2024-01-01T00:00:00Z'))).toBe('2024-01-31T00:00:00.000Z');
  });
  it('is strictly after: a grid point equal to `after` is skipped', () => {
    expect(iso(nextFixedDueAfter(start, 1, 'months', '2024-03-31T00:00:00Z'))).toBe('2024-04-30T00:00:00.000Z');
    expect(iso(nextFixedDueAfter(start, 1, 'months', '2024-01-31T00:00:00Z'))).toBe('2024-02-29T00:00:00.000Z');
  });
  it('finds the clamped month-end point', () => {
    expect(iso(nextFixedDueAfter(start, 1, 'months', '2024-03-30T23:59:59Z'))).toBe('2024-03-31T00:00:00.000Z');
    expect(iso(nextFixedDueAfter(start, 1, 'months', '2025-06-15T00:00:00Z'))).toBe('2025-06-30T00:00:00.000Z');
    expect(iso(nextFixedDueAfter(start, 3, 'months', '2024-05-01T00:00:00Z'))).toBe('2024-07-31T00:00:00.000Z');
  });
  it('works on weekly and hourly grids', () => {
    expect(iso(nextFixedDueAfter('2024-01-01T06:00:00Z', 1, 'weeks', '2024-01-15T06:00:00Z'))).toBe('2024-01-22T06:00:00.000Z');
    expect(iso(nextFixedDueAfter('2024-01-01T06:00:00Z', 1, 'weeks', '2024-01-15T05:59:59Z'))).toBe('2024-01-15T06:00:00.000Z');
    expect(iso(nextFixedDueAfter('2024-01-01T00:00:00Z', 8, 'hours', '2024-01-03T09:00:00Z'))).toBe('2024-01-03T16:00:00.000Z');
  });
  it('agrees with nthOccurrence over every day of two years', () => {
    const points = Array.from({ length: 30 }, (_, k) => nthOccurrence(start, k, 1, 'months').getTime());
    for (let t = Date.parse('2024-01-01T12:00:00Z'); t < Date.parse('2026-01-01T00:00:00Z'); t += 86_400_000) {
      const expected = points.find((p) => p > t);
      expect(nextFixedDueAfter(start, 1, 'months', new Date(t)).getTime()).toBe(expected);
    }
  });
});

describe('floating and interval lengths', () => {
  it('floating counts from the execution, so month ends drift (unlike the fixed grid)', () => {
    const feb = nextFloatingDue('2024-01-31T00:00:00Z', 1, 'months');
    expect(iso(feb)).toBe('2024-02-29T00:00:00.000Z');
    expect(iso(nextFloatingDue(feb, 1, 'months'))).toBe('2024-03-29T00:00:00.000Z');
  });
  it('addInterval is one step from the given date', () => {
    expect(iso(addInterval('2023-01-31T10:00:00Z', 1, 'months'))).toBe('2023-02-28T10:00:00.000Z');
    expect(iso(addInterval('2023-12-31T10:00:00Z', 2, 'days'))).toBe('2024-01-02T10:00:00.000Z');
  });
  it('interval hours: months use the mean Gregorian month', () => {
    expect(HOURS_PER_NOMINAL_MONTH).toBeCloseTo(730.485, 9);
    expect(intervalHours(3, 'months')).toBeCloseTo(2191.455, 9);
    expect(intervalHours(2, 'weeks')).toBe(336);
    expect(intervalHours(1, 'days')).toBe(24);
    expect(intervalHours(12, 'hours')).toBe(12);
  });
  it('rejects a non-positive or fractional `every`', () => {
    expect(() => intervalHours(0, 'days')).toThrow(RangeError);
    expect(() => addInterval('2024-01-01T00:00:00Z', 1.5, 'days')).toThrow(RangeError);
    expect(() => nthOccurrence('2024-01-01T00:00:00Z', -1, 1, 'days')).toThrow(RangeError);
  });
});
