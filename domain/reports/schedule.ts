/**
 * When a scheduled report runs: a cron expression or a fixed interval, always with an IANA time
 * zone. Checked here so a bad spec is a 422 on the field rather than an error from Temporal.
 */
import { CronDayOfMonth, CronDayOfWeek, CronExpressionParser, CronHour, CronMinute, CronMonth } from 'cron-parser';
import { CronGap, shortestCronGap } from './cron-gap';

export type ReportScheduleSpec = { cron: string } | { interval_minutes: number };

/** Shortest interval, and shortest gap between two fires of a cron: a report every quarter of an hour is already a lot of mail. */
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

const GAP_PLACES: Record<CronGap['where'], string> = {
  hour: 'within an hour',
  hours: 'from one fire hour to the next',
  midnight: 'across midnight',
  clock_change: 'at a clock change of the time zone',
  none: '',
};

/**
 * null when a valid cron fires at least MIN_INTERVAL_MINUTES apart everywhere in `timeZone`
 * (domain/reports/cron-gap.ts), otherwise why not. Intervals are bounded by their own minimum.
 */
export function cronGapProblem(expression: string, timeZone: string, from: Date = new Date()): string | null {
  const gap = shortestCronGap(expression, timeZone, from, MIN_INTERVAL_MINUTES);
  if (gap.minutes >= MIN_INTERVAL_MINUTES) return null;
  return `fires ${gap.minutes} minute${gap.minutes === 1 ? '' : 's'} apart ${GAP_PLACES[gap.where]}; two runs of a scheduled report must be at least ${MIN_INTERVAL_MINUTES} minutes apart`;
}

/** The Temporal Schedule spec of a report schedule. */
export function temporalSpecOf(spec: ReportScheduleSpec, timeZone: string): { cronExpressions?: string[]; intervals?: { every: string }[]; timezone: string } {
  return 'cron' in spec ? { cronExpressions: [spec.cron.trim()], timezone: timeZone } : { intervals: [{ every: `${spec.interval_minutes}m` }], timezone: timeZone };
}
