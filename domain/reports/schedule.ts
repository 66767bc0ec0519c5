/**
 * When a scheduled report runs: a cron expression or a fixed interval, always with an IANA time
 * zone. Checked here so a bad spec is a 422 on the field rather than an error from Temporal.
 */
export type ReportScheduleSpec = { cron: string } | { interval_minutes: number };

/** Shortest interval: a report every quarter of an hour is already a lot of mail. */
export const MIN_INTERVAL_MINUTES = 15;

// Five fields (minute hour day-of-month month day-of-week); MON or JAN style names are allowed.
const FIELDS: readonly { name: string; min: number; max: number }[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12 },
  { name: 'day-of-week', min: 0, max: 7 },
];
const PART = /^(\*|([0-9]+|[A-Za-z]{3})(-([0-9]+|[A-Za-z]{3}))?)(\/([0-9]+))?$/;

/** null when the expression is a valid five-field cron, otherwise why not. */
export function cronProblem(expression: string): string | null {
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== FIELDS.length) return 'must have five fields: minute hour day-of-month month day-of-week';
  for (const [i, field] of fields.entries()) {
    const { name, min, max } = FIELDS[i] as (typeof FIELDS)[number];
    for (const part of field.split(',')) {
      const m = PART.exec(part);
      if (!m) return `${name} field "${field}" is not a cron field`;
      const numbers = [m[2], m[4]].filter((v): v is string => v !== undefined && /^[0-9]+$/.test(v)).map(Number);
      if (numbers.some((n) => n < min || n > max)) return `${name} field "${field}" is out of range ${min}-${max}`;
      if (m[6] !== undefined && Number(m[6]) === 0) return `${name} field "${field}" has a zero step`;
    }
  }
  return null;
}

/** The Temporal Schedule spec of a report schedule. */
export function temporalSpecOf(spec: ReportScheduleSpec, timeZone: string): { cronExpressions?: string[]; intervals?: { every: string }[]; timezone: string } {
  return 'cron' in spec ? { cronExpressions: [spec.cron.trim()], timezone: timeZone } : { intervals: [{ every: `${spec.interval_minutes}m` }], timezone: timeZone };
}
