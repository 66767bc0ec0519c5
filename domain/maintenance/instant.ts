import type { Instant, IsoTimestamp } from './types';

export class InvalidInstantError extends Error {
  override readonly name = 'InvalidInstantError';
}

// A date, or a date-time with an explicit offset. A date-time without offset is refused:
// JavaScript would read it in the process's local zone, which differs between machines.
export const ISO_INSTANT = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2})))?$/;

/** Parses an ISO 8601 timestamp (date only = midnight UTC) or passes a Date through. Throws on garbage. */
export function toDate(instant: Instant): Date {
  // Not `instanceof Date`: a Date may come from another realm (the workflow sandbox is a vm context).
  if (typeof instant === 'object' && instant !== null && typeof (instant as Date).getTime === 'function') {
    if (Number.isNaN(instant.getTime())) throw new InvalidInstantError('invalid Date');
    return instant;
  }
  const match = typeof instant === 'string' ? ISO_INSTANT.exec(instant) : null;
  if (!match) throw new InvalidInstantError(`not an ISO 8601 timestamp with offset: ${JSON.stringify(instant)}`);
  const date = new Date(instant);
  if (Number.isNaN(date.getTime()) || !fieldsInRange(match)) {
    throw new InvalidInstantError(`not a valid date: ${JSON.stringify(instant)}`);
  }
  return date;
}

export function isValidInstant(value: unknown): value is Instant {
  try {
    toDate(value as Instant);
    return true;
  } catch {
    return false;
  }
}

/**
 * The latest instant plans compute with: the last millisecond of year 9999, so every computed time
 * stays a four-digit-year ISO timestamp (a Date reaches year 275760, ISO_INSTANT does not) and a
 * grace or projection beyond it can never throw "Invalid time value" inside a workflow.
 */
export const LATEST_INSTANT_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** The earliest: a time before it (a lead time of a million years) means "already past" anyway. */
export const EARLIEST_INSTANT_MS = Date.UTC(1970, 0, 1);

/**
 * `ms` as a Date within [EARLIEST_INSTANT_MS, LATEST_INSTANT_MS]. A time that left the range of a
 * Date (NaN) is taken as the bound it left by: `ifInvalid`.
 */
export function clampedDate(ms: number, ifInvalid: 'earliest' | 'latest' = 'latest'): Date {
  if (Number.isNaN(ms)) return new Date(ifInvalid === 'earliest' ? EARLIEST_INSTANT_MS : LATEST_INSTANT_MS);
  return new Date(Math.min(Math.max(ms, EARLIEST_INSTANT_MS), LATEST_INSTANT_MS));
}

export function toIso(instant: Instant): IsoTimestamp {
  return toDate(instant).toISOString();
}

export function toMs(instant: Instant): number {
  return toDate(instant).getTime();
}

export const MS_PER_HOUR = 3_600_000;

// Date.parse rolls "2023-02-30" over to March 2; a date or time that is not on the clock is an error.
function fieldsInRange(match: RegExpExecArray): boolean {
  const [year, month, day, hour, minute, second, offsetHour, offsetMinute] = match.slice(1).map((p) => Number(p ?? 0));
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth && hour <= 23 && minute <= 59 && second <= 59 && offsetHour <= 23 && offsetMinute <= 59;
}
