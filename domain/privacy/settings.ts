/**
 * Retention and privacy settings (SPEC.md "Retention and privacy settings") and the rule that a
 * lowered retention value is not retroactive (SPEC.md Privacy rule 5; defined in docs/decisions/retention-settings-not-retroactive.md). Pure: `now` is always an argument.
 */
import { isValidDuration, parseDuration } from '../maintenance/duration';

const DAY_MS = 86_400_000;

export const RETENTION_DEFAULTS = {
  machine_events_days: 90,
  alerts_days: 180,
  conversations_days: 365,
  audit_trail_days: 2555,
  extracted_records_days: 1825,
} as const;
export type RetentionKey = keyof typeof RETENTION_DEFAULTS;
export const RETENTION_KEYS = Object.keys(RETENTION_DEFAULTS) as RetentionKey[];

export const MIN_AUDIT_RETENTION_DAYS = 365;
export const RETENTION_BOUNDS: Record<RetentionKey, { min: number; max: number }> = {
  machine_events_days: { min: 1, max: 36_500 },
  alerts_days: { min: 1, max: 36_500 },
  conversations_days: { min: 1, max: 36_500 },
  audit_trail_days: { min: MIN_AUDIT_RETENTION_DAYS, max: 36_500 },
  extracted_records_days: { min: 1, max: 36_500 },
};

export const FIXED_ENCRYPTION = { at_rest: 'AES-256', in_transit: 'TLS 1.3' } as const;

/**
 * One retention setting as stored. After a lowering, rows that were already past the new value at
 * the moment of the change (`timestamp < protectedBefore`) are grandfathered: they stay until they
 * are older than `priorDays` (the longest value they were promised before).
 */
export interface RetentionPolicy {
  days: number;
  grandfathered?: { protectedBefore: string; priorDays: number };
}

export type StoredRetention = Partial<Record<RetentionKey, RetentionPolicy>>;

export function policyOf(stored: StoredRetention, key: RetentionKey): RetentionPolicy {
  return stored[key] ?? { days: RETENTION_DEFAULTS[key] };
}

/** The policy after setting `days` at `now`: lowering grandfathers the rows already past it. */
export function changeRetention(current: RetentionPolicy, days: number, now: Date): RetentionPolicy {
  if (days === current.days) return current;
  const promised = Math.max(current.days, current.grandfathered?.priorDays ?? 0);
  if (days >= promised) return { days };
  if (days > current.days) return { days, ...(current.grandfathered ? { grandfathered: current.grandfathered } : {}) };
  return {
    days,
    grandfathered: { protectedBefore: new Date(now.getTime() - days * DAY_MS).toISOString(), priorDays: promised },
  };
}

/** A half-open time range of rows to delete: `from <= ts < before` (no `from`: everything before). */
export interface DeleteRange {
  from?: Date;
  before: Date;
}

/** The rows a sweep at `now` deletes under `policy`. */
export function retentionRanges(policy: RetentionPolicy, now: Date): DeleteRange[] {
  const before = new Date(now.getTime() - policy.days * DAY_MS);
  const g = policy.grandfathered;
  if (!g) return [{ before }];
  const protectedBefore = new Date(g.protectedBefore);
  const priorCutoff = new Date(now.getTime() - g.priorDays * DAY_MS);
  // Once the prior value has caught up with the protected rows, the protection is moot.
  if (priorCutoff >= protectedBefore) return [{ before }];
  return [{ from: protectedBefore, before }, { before: priorCutoff }].filter((r) => !r.from || r.from < r.before);
}

/**
 * The audit trail is never purged past the minimum, whatever is asked. One hour of margin, so clock
 * skew between a worker and the database never trips the audit trigger (which checks 365 days too).
 */
export function clampAuditCutoff(cutoff: Date, now: Date): Date {
  const minimum = new Date(now.getTime() - MIN_AUDIT_RETENTION_DAYS * DAY_MS - 3_600_000);
  return cutoff < minimum ? cutoff : minimum;
}

const DATE = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2}))?$/;

/**
 * `older_than` of purge-old: an ISO 8601 duration (`P90D`, `P1Y2M`, `PT12H`; years are 365 days and
 * months 30, as retention settings count days) or a date/date-time cut-off. Returns the cut-off, or
 * null when the value is neither, or a cut-off in the future.
 */
export function parseOlderThan(value: string, now: Date): Date | null {
  if (isValidDuration(value)) {
    const { years, months, weeks, days, hours, minutes, seconds } = parseDuration(value);
    const ms = (((years * 365 + months * 30 + weeks * 7 + days) * 24 + hours) * 60 + minutes) * 60_000 + seconds * 1000;
    if (ms <= 0) return null;
    return new Date(now.getTime() - ms);
  }
  if (DATE.test(value)) {
    const date = new Date(value);
    if (Number.isNaN(date.getTime()) || date > now) return null;
    return date;
  }
  return null;
}
