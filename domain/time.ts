/**
 * The one way the service writes an instant: ISO 8601 in UTC with milliseconds
 * (`2026-11-25T20:11:40.000Z`), whether PostgreSQL gave a Date or a string; a missing one stays null.
 */
export function isoTime(value: Date | string | number): string;
export function isoTime(value: Date | string | number | null | undefined): string | null;
export function isoTime(value: Date | string | number | null | undefined): string | null {
  return value === null || value === undefined ? null : new Date(value).toISOString();
}
