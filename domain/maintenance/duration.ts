// ISO 8601 durations, subset PnYnMnWnDTnHnMnS (generate_ahead, notify lead time, retention).
import type { Instant, IsoDuration } from './types';
import { addMonthsClamped } from './calendar';
import { MS_PER_HOUR, toDate } from './instant';

export interface Duration {
  years: number;
  months: number;
  weeks: number;
  days: number;
  hours: number;
  minutes: number;
  seconds: number; // may carry a fraction (milliseconds are kept)
}

export class InvalidDurationError extends Error {
  override readonly name = 'InvalidDurationError';
}

// Components are integers except seconds; at least one component; "T" only with a time component.
const ISO_DURATION = /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d{1,3})?)S)?)?$/;

// Upper bound per component: keeps every result far inside the Date range and rejects typos.
const MAX_COMPONENT = 1_000_000;

export function parseDuration(text: IsoDuration): Duration {
  const fail = (why: string): never => {
    throw new InvalidDurationError(`invalid ISO 8601 duration ${JSON.stringify(text)}: ${why}`);
  };
  if (typeof text !== 'string') return fail('not a string');
  const match = ISO_DURATION.exec(text);
  if (!match) return fail('expected the form PnYnMnWnDTnHnMnS, e.g. P1D, PT12H, P1M2DT3H');
  if (match.slice(1).every((part) => part === undefined)) return fail('no component');
  if (text.endsWith('T')) return fail('"T" must be followed by a time component');
  const [years, months, weeks, days, hours, minutes, seconds] = match.slice(1).map((part) => Number(part ?? 0));
  const duration: Duration = { years, months, weeks, days, hours, minutes, seconds };
  if (Object.values(duration).some((n) => n > MAX_COMPONENT)) return fail(`a component exceeds ${MAX_COMPONENT}`);
  return duration;
}

export function isValidDuration(text: unknown): text is IsoDuration {
  try {
    parseDuration(text as string);
    return true;
  } catch {
    return false;
  }
}

export function isZeroDuration(duration: Duration): boolean {
  return Object.values(duration).every((n) => n === 0);
}

/**
 * Applies a duration to a date in UTC, largest component first (years and months on the calendar,
 * clamped to the month's last day; weeks, days and time as exact lengths). `sign` -1 subtracts
 * with the same order, so "2024-03-31 minus P1M" is 2024-02-29.
 */
export function addDuration(date: Instant, duration: IsoDuration | Duration, sign: 1 | -1 = 1): Date {
  const d = typeof duration === 'string' ? parseDuration(duration) : duration;
  const withMonths = addMonthsClamped(toDate(date), sign * (d.years * 12 + d.months));
  const exactMs = ((d.weeks * 7 + d.days) * 24 + d.hours) * MS_PER_HOUR + d.minutes * 60_000 + Math.round(d.seconds * 1000);
  const result = new Date(withMonths.getTime() + sign * exactMs);
  if (Number.isNaN(result.getTime())) throw new InvalidDurationError('result out of the date range');
  return result;
}

export function subtractDuration(date: Instant, duration: IsoDuration | Duration): Date {
  return addDuration(date, duration, -1);
}
