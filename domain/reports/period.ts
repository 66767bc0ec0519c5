/**
 * Report periods: explicit `{from, to}` days (both included, UTC) and the rules a scheduled report
 * names, resolved against the run's time in the schedule's time zone. Pure: `now` is passed in.
 */
import { CompliancePeriod, parseCompliancePeriod } from '../maintenance/compliance';
import { ReportPeriod } from './types';

export const PERIOD_RULES = ['previous_day', 'last_7_days', 'last_30_days', 'previous_month', 'month_to_date'] as const;
export type PeriodRule = (typeof PERIOD_RULES)[number];

/** Longest period a report covers: bounds the work of one report. */
export const MAX_PERIOD_DAYS = 366;
const DAY_MS = 86_400_000;

export type PeriodCheck = { ok: true; range: CompliancePeriod } | { ok: false; message: string };

/** The [start, end) instants of a period, or why it is not one (same rules as maintenance compliance). */
export function checkPeriod(period: ReportPeriod): PeriodCheck {
  const parsed = parseCompliancePeriod(period.from, period.to);
  if (!parsed.ok) return { ok: false, message: `${parsed.field === 'start_date' ? 'from' : 'to'} ${parsed.message.replace('start_date', 'from')}` };
  const days = (parsed.period.end.getTime() - parsed.period.start.getTime()) / DAY_MS;
  if (days > MAX_PERIOD_DAYS) return { ok: false, message: `must cover at most ${MAX_PERIOD_DAYS} days` };
  return { ok: true, range: parsed.period };
}

export function isValidTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The calendar day of `at` in the time zone, as a UTC midnight (so day arithmetic is plain). */
function localDay(at: Date, timeZone: string): Date {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(at);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return new Date(Date.UTC(get('year'), get('month') - 1, get('day')));
}

const iso = (d: Date) => d.toISOString().slice(0, 10);
const addDays = (d: Date, n: number) => new Date(d.getTime() + n * DAY_MS);

/**
 * The period a rule names on the local day of `now` in `timeZone`; "previous_month" on any day of
 * March is February 1 – 28/29. Days are then read as UTC days, like every report period.
 */
export function resolvePeriodRule(rule: PeriodRule, now: Date, timeZone: string): ReportPeriod {
  const today = localDay(now, timeZone);
  const yesterday = addDays(today, -1);
  switch (rule) {
    case 'previous_day':
      return { from: iso(yesterday), to: iso(yesterday) };
    case 'last_7_days':
      return { from: iso(addDays(today, -7)), to: iso(yesterday) };
    case 'last_30_days':
      return { from: iso(addDays(today, -30)), to: iso(yesterday) };
    case 'previous_month': {
      const firstOfMonth = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), 1));
      const firstOfPrevious = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - 1, 1));
      return { from: iso(firstOfPrevious), to: iso(addDays(firstOfMonth, -1)) };
    }
    case 'month_to_date':
      return { from: iso(new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), 1))), to: iso(today) };
  }
}
