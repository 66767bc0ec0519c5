/**
 * When a scheduled report runs: a cron expression or a fixed interval, always with an IANA time
 * zone. Checked here so a bad spec is a 422 on the field rather than an error from Temporal.
 */
import { CronDayOfMonth, CronDayOfWeek, CronExpressionParser, CronHour, CronMinute, CronMonth } from 'cron-parser';

export type ReportScheduleSpec = { cron: string } | { interval_minutes: number };

/** Shortest interval: a report every quarter of an hour is already a lot of mail. */
export const MIN_INTERVAL_MINUTES = 15;

// Five fields (minute hour day-of-month month day-of-week), each checked by cron-parser.
const FIELDS = [
  { name: 'minute', field: CronMinute },
  { name: 'hour', field: CronHour },
  { name: 'day-of-month', field: CronDayOfMonth },
  { name: 'month', field: CronMonth },
  { name: 'day-of-week', field: CronDayOfWeek },
] as const;
// The syntax Temporal Schedules read as cron-parser does: numbers, 3-letter names, ranges, lists,
// steps. cron-parser also takes `?`, `L`, `W`, `H` and `#`, which Temporal rejects or (`#`) ignores.
const PART = /^(\*|[0-9]+|[A-Za-z]{3})(-([0-9]+|[A-Za-z]{3}))?(\/[0-9]+)?$/;

function libraryProblem(expression: string): string | null {
  try {
    CronExpressionParser.parse(expression);
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

/** null when the expression is a valid five-field cron that Temporal runs as written, otherwise why not. */
export function cronProblem(expression: string): string | null {
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== FIELDS.length) return 'must have five fields: minute hour day-of-month month day-of-week';
  for (const [i, field] of fields.entries()) {
    const { name, field: kind } = FIELDS[i] as (typeof FIELDS)[number];
    if (!field.split(',').every((part) => PART.test(part))) return `${name} field "${field}" is not a cron field`;
    // The field alone (the others "*"), so the message can name it.
    const problem = libraryProblem(fields.map((f, j) => (j === i ? f : '*')).join(' '));
    if (problem === null) continue;
    if (problem.startsWith('Constraint error, got value')) return `${name} field "${field}" is out of range ${kind.constraints.min}-${kind.constraints.max}`;
    return `${name} field "${field}" is not valid (${problem})`;
  }
  // Fields valid on their own that never meet, e.g. "0 6 31 2 *" (Temporal would accept it and never run).
  const problem = libraryProblem(fields.join(' '));
  return problem === null ? null : `never matches a date (${problem})`;
}

/** The Temporal Schedule spec of a report schedule. */
export function temporalSpecOf(spec: ReportScheduleSpec, timeZone: string): { cronExpressions?: string[]; intervals?: { every: string }[]; timezone: string } {
  return 'cron' in spec ? { cronExpressions: [spec.cron.trim()], timezone: timeZone } : { intervals: [{ every: `${spec.interval_minutes}m` }], timezone: timeZone };
}
