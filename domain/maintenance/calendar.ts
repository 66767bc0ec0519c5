// UTC calendar arithmetic for calendar triggers. Everything is UTC: plans have no time zone,
// so there is no daylight-saving shift; "days" are exactly 24 h and "weeks" 168 h.
import type { CalendarUnit, Instant } from './types';
import { MS_PER_HOUR, toDate } from './instant';

const FIXED_UNIT_HOURS: Record<Exclude<CalendarUnit, 'months'>, number> = {
  hours: 1,
  days: 24,
  weeks: 168,
};

/** Mean Gregorian month (365.2425 / 12 days), used wherever a month must be a length. */
export const HOURS_PER_NOMINAL_MONTH = (365.2425 / 12) * 24; // 730.485

/** Nominal length of one interval in hours (months: the mean Gregorian month). See README. */
export function intervalHours(every: number, unit: CalendarUnit): number {
  assertEvery(every);
  return every * (unit === 'months' ? HOURS_PER_NOMINAL_MONTH : FIXED_UNIT_HOURS[unit]);
}

/** One interval after `date`, clamping to the month's last day (Jan 31 + 1 month = Feb 28/29). */
export function addInterval(date: Instant, every: number, unit: CalendarUnit): Date {
  return nthOccurrence(date, 1, every, unit);
}

/**
 * The k-th grid point (k >= 0) of the grid start, start + every, ... Months are computed from the
 * anchor each time (start + k*every months, clamped to the month's length), so the day of month
 * never drifts: from Jan 31 monthly gives Feb 29, Mar 31, Apr 30, ...
 */
export function nthOccurrence(start: Instant, k: number, every: number, unit: CalendarUnit): Date {
  assertEvery(every);
  if (!Number.isInteger(k) || k < 0) throw new RangeError(`occurrence index must be an integer >= 0, got ${k}`);
  const anchor = toDate(start);
  if (unit !== 'months') return checked(new Date(anchor.getTime() + k * every * FIXED_UNIT_HOURS[unit] * MS_PER_HOUR));
  return checked(addMonthsClamped(anchor, k * every));
}

/** The first grid point of (start, every, unit) strictly after `after`; `start` itself when `after` < start. */
export function nextFixedDueAfter(start: Instant, every: number, unit: CalendarUnit, after: Instant): Date {
  assertEvery(every);
  const anchor = toDate(start);
  const afterMs = toDate(after).getTime();
  if (afterMs < anchor.getTime()) return anchor;
  let k: number;
  if (unit !== 'months') {
    const stepMs = every * FIXED_UNIT_HOURS[unit] * MS_PER_HOUR;
    k = Math.floor((afterMs - anchor.getTime()) / stepMs) + 1;
  } else {
    // Estimate from the month difference, then step: clamping moves a grid point by at most 3 days.
    const a = new Date(afterMs);
    const monthsApart = (a.getUTCFullYear() - anchor.getUTCFullYear()) * 12 + (a.getUTCMonth() - anchor.getUTCMonth());
    k = Math.max(0, Math.floor(monthsApart / every) - 1);
    while (nthOccurrence(anchor, k, every, unit).getTime() <= afterMs) k += 1;
  }
  return nthOccurrence(anchor, k, every, unit);
}

/** Floating schedule: the next due date counts from the last execution. */
export function nextFloatingDue(lastExecutedAt: Instant, every: number, unit: CalendarUnit): Date {
  return addInterval(lastExecutedAt, every, unit);
}

export function daysInMonth(year: number, monthIndex0: number): number {
  return new Date(Date.UTC(year, monthIndex0 + 1, 0)).getUTCDate();
}

/** Adds whole months keeping the time of day, clamping the day to the target month's length. */
export function addMonthsClamped(date: Date, months: number): Date {
  const total = date.getUTCFullYear() * 12 + date.getUTCMonth() + months;
  const year = Math.floor(total / 12);
  const month = total - year * 12;
  const day = Math.min(date.getUTCDate(), daysInMonth(year, month));
  const result = new Date(date.getTime());
  result.setUTCFullYear(year, month, day);
  return result;
}

function assertEvery(every: number): void {
  if (!Number.isInteger(every) || every < 1) throw new RangeError(`every must be an integer >= 1, got ${every}`);
}

function checked(date: Date): Date {
  if (Number.isNaN(date.getTime())) throw new RangeError('date out of range');
  return date;
}
