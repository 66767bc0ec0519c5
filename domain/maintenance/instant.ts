import type { Instant, IsoTimestamp } from './types';

export class InvalidInstantError extends Error {
  override readonly name = 'InvalidInstantError';
}

// A date, or a date-time with an explicit offset. A date-time without offset is refused:
// JavaScript would read it in the process's local zone, which differs between machines.
export const ISO_INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2})))?$/;

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

/** `ms` as a Date, no later than LATEST_INSTANT_MS (an infinite or NaN time is the latest too). */
export function clampedDate(ms: number): Date {
  return new Date(Number.isFinite(ms) ? Math.min(ms, LATEST_INSTANT_MS) : LATEST_INSTANT_MS);
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
  return (
    month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth &&
    hour <= 23 && minute <= 59 && second <= 59 && offsetHour <= 23 && offsetMinute <= 59
  );
}
