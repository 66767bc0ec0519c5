/**
 * The shortest time between two fires of a five-field cron expression in a time zone: how often
 * a scheduled report can mail at most. Two parts, each exact for what it covers:
 *
 * - The wall clock, from the parsed fields: consecutive minutes of an hour, the last minute of an
 *   hour to the first of the next fire hour, and the last fire of a day to the first of the next
 *   day when two consecutive calendar days both match (searched over the 400-year Gregorian cycle,
 *   so month ends, 29 February and weekday patterns all occur). Day-of-month and day-of-week
 *   restricted together match either (cron's rule); a scheduler that needs both fires a subset of
 *   these times, whose gaps are no shorter.
 * - The time zone's clock changes in the coming year: there a wall-clock gap can shrink (an hour
 *   skipped in spring, or repeated in autumn), so the real fire instants around each change are
 *   measured.
 *
 * cron-parser only parses: iterating its fires in a time zone costs about a millisecond each.
 */
import { CronExpressionParser } from 'cron-parser';

const MINUTES_PER_HOUR = 60;
const MINUTES_PER_DAY = 24 * MINUTES_PER_HOUR;
const MS_PER_MINUTE = 60_000;
const MS_PER_HOUR = 60 * MS_PER_MINUTE;
const MS_PER_DAY = 24 * MS_PER_HOUR;
/** How far ahead clock changes are looked for, and how many fires either side of one are measured. */
const CLOCK_CHANGE_HORIZON_DAYS = 366;
const CLOCK_CHANGE_WINDOW_MS = 3 * MS_PER_HOUR;

export interface CronGap {
  /** Minutes between the two closest fires (Infinity: none within a day of another). */
  minutes: number;
  /** Where that gap is: within an hour, across hours, across midnight, or at a clock change. */
  where: 'hour' | 'hours' | 'midnight' | 'clock_change' | 'none';
}

interface CalendarFields {
  minutes: number[];
  hours: number[];
  matchesDay: (month: number, dayOfMonth: number, dayOfWeek: number) => boolean;
}

function calendarFields(expression: string): CalendarFields {
  const { fields } = CronExpressionParser.parse(expression);
  const numbers = (values: readonly unknown[]) => values.filter((v): v is number => typeof v === 'number').sort((a, b) => a - b);
  const months = new Set(numbers(fields.month.values));
  const daysOfMonth = new Set(numbers(fields.dayOfMonth.values));
  const daysOfWeek = new Set(numbers(fields.dayOfWeek.values).map((d) => d % 7));
  // cron: when both day fields are restricted a day matches either; otherwise both.
  const either = daysOfMonth.size < 31 && daysOfWeek.size < 7;
  return {
    minutes: numbers(fields.minute.values),
    hours: numbers(fields.hour.values),
    matchesDay: (month, dayOfMonth, dayOfWeek) => {
      if (!months.has(month)) return false;
      const dom = daysOfMonth.has(dayOfMonth);
      const dow = daysOfWeek.has(dayOfWeek);
      return either ? dom || dow : dom && dow;
    },
  };
}

const isLeapYear = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Whether two consecutive calendar days both match, over one full 400-year Gregorian cycle. */
function hasConsecutiveFireDays(matchesDay: CalendarFields['matchesDay']): boolean {
  let dayOfWeek = 6; // 2000-01-01 was a Saturday; the cycle's last day (2399-12-31) precedes it.
  let previous = matchesDay(12, 31, 5);
  for (let year = 2000; year < 2400; year += 1) {
    for (let month = 1; month <= 12; month += 1) {
      const days = month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1]!;
      for (let day = 1; day <= days; day += 1) {
        const current = matchesDay(month, day, dayOfWeek);
        if (current && previous) return true;
        previous = current;
        dayOfWeek = (dayOfWeek + 1) % 7;
      }
    }
  }
  return false;
}

/** The shortest gap on the wall clock (no clock changes). */
function wallClockGap({ minutes, hours, matchesDay }: CalendarFields): CronGap {
  let gap: CronGap = { minutes: Infinity, where: 'none' };
  const consider = (minutesApart: number, where: CronGap['where']) => {
    if (minutesApart < gap.minutes) gap = { minutes: minutesApart, where };
  };
  for (let i = 1; i < minutes.length; i += 1) consider(minutes[i]! - minutes[i - 1]!, 'hour');
  const hourSpan = minutes[minutes.length - 1]! - minutes[0]!;
  for (let i = 1; i < hours.length; i += 1) consider((hours[i]! - hours[i - 1]!) * MINUTES_PER_HOUR - hourSpan, 'hours');
  const daySpan = hours[hours.length - 1]! * MINUTES_PER_HOUR + minutes[minutes.length - 1]! - (hours[0]! * MINUTES_PER_HOUR + minutes[0]!);
  // Days further apart than consecutive are always at least a day apart: only consecutive ones can be closer.
  if (MINUTES_PER_DAY - daySpan < gap.minutes && hasConsecutiveFireDays(matchesDay)) consider(MINUTES_PER_DAY - daySpan, 'midnight');
  return gap;
}

/** The zone's UTC offset in minutes at an instant. */
function offsetReader(timeZone: string): (at: number) => number {
  const format = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' });
  return (at) => {
    const name = format.formatToParts(at).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
    const match = /GMT([+-])(\d{2}):(\d{2})/.exec(name);
    return match ? (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3])) : 0;
  };
}

interface ClockChange {
  /** The first instant of the new offset. */
  at: number;
  /** UTC offsets in minutes before and after. */
  before: number;
  after: number;
}

/** The zone's offset changes (to the minute) in the coming year. */
function clockChanges(offset: (at: number) => number, from: Date): ClockChange[] {
  const changes: ClockChange[] = [];
  let dayStart = from.getTime();
  let before = offset(dayStart);
  for (let day = 0; day < CLOCK_CHANGE_HORIZON_DAYS; day += 1, dayStart += MS_PER_DAY) {
    const next = offset(dayStart + MS_PER_DAY);
    if (next !== before) {
      let [low, high] = [dayStart, dayStart + MS_PER_DAY];
      while (high - low > MS_PER_MINUTE) {
        const middle = low + Math.floor((high - low) / 2);
        if (offset(middle) === before) low = middle;
        else high = middle;
      }
      changes.push({ at: high, before, after: next });
    }
    before = next;
  }
  return changes;
}

/**
 * The instants the fields fire at within CLOCK_CHANGE_WINDOW_MS of a change. A wall time the
 * change skips fires shifted by the jump (as Go's and luxon's calendars resolve it); one it
 * repeats fires twice, the cautious reading.
 */
function firesAround(fields: CalendarFields, change: ClockChange, offset: (at: number) => number): number[] {
  // Wall times as "naive" epoch milliseconds: the instant plus the offset in force.
  const first = change.at - CLOCK_CHANGE_WINDOW_MS + Math.min(change.before, change.after) * MS_PER_MINUTE;
  const last = change.at + CLOCK_CHANGE_WINDOW_MS + Math.max(change.before, change.after) * MS_PER_MINUTE;
  const offsets = [change.before, change.after];
  const instants = new Set<number>();
  for (let dayStart = first - (first % MS_PER_DAY); dayStart <= last; dayStart += MS_PER_DAY) {
    const date = new Date(dayStart);
    if (!fields.matchesDay(date.getUTCMonth() + 1, date.getUTCDate(), date.getUTCDay())) continue;
    for (const hour of fields.hours) {
      for (const minute of fields.minutes) {
        const wall = dayStart + (hour * MINUTES_PER_HOUR + minute) * MS_PER_MINUTE;
        if (wall < first || wall > last) continue;
        const valid = offsets.map((o) => wall - o * MS_PER_MINUTE).filter((at, i) => offset(at) === offsets[i]);
        for (const at of valid.length > 0 ? valid : [wall - change.before * MS_PER_MINUTE]) instants.add(at);
      }
    }
  }
  return [...instants].sort((a, b) => a - b);
}

/** The shortest real gap between fires around the zone's clock changes in the coming year. */
function clockChangeGap(fields: CalendarFields, timeZone: string, from: Date): CronGap {
  const offset = offsetReader(timeZone);
  let shortest = Infinity;
  for (const change of clockChanges(offset, from)) {
    const fires = firesAround(fields, change, offset);
    for (let i = 1; i < fires.length; i += 1) shortest = Math.min(shortest, (fires[i]! - fires[i - 1]!) / MS_PER_MINUTE);
  }
  return { minutes: shortest, where: shortest === Infinity ? 'none' : 'clock_change' };
}

/**
 * The shortest gap between two fires of a valid expression (domain/reports/schedule.ts's
 * cronProblem) in `timeZone`, clock changes from `from` to a year later included. A wall-clock
 * gap already shorter than `enough` is returned as it is: the clock changes could only shorten it.
 */
export function shortestCronGap(expression: string, timeZone: string, from: Date = new Date(), enough = 0): CronGap {
  const fields = calendarFields(expression);
  const wall = wallClockGap(fields);
  if (wall.minutes < enough) return wall;
  const atChanges = clockChangeGap(fields, timeZone, from);
  return atChanges.minutes < wall.minutes ? atChanges : wall;
}
