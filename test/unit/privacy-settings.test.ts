import { changeRetention, clampAuditCutoff, parseOlderThan, retentionRanges } from '../../domain/privacy/settings';

const DAY = 86_400_000;
const T0 = new Date('2026-06-01T00:00:00Z');
const daysBefore = (d: Date, n: number) => new Date(d.getTime() - n * DAY);
const daysAfter = (d: Date, n: number) => new Date(d.getTime() + n * DAY);

/** Whether a row with timestamp `ts` is deleted by a sweep at `now`. */
function deleted(policy: ReturnType<typeof changeRetention>, ts: Date, now: Date): boolean {
  return retentionRanges(policy, now).some((r) => ts < r.before && (!r.from || ts >= r.from));
}

describe('retention rule 5: a lowered value is not retroactive', () => {
  const lowered = changeRetention({ days: 365 }, 90, T0);

  it('records the change time and the value rows were promised before', () => {
    expect(lowered).toEqual({ days: 90, grandfathered: { protectedBefore: daysBefore(T0, 90).toISOString(), priorDays: 365 } });
  });

  it('keeps rows already past the new value at the change until they pass the old value', () => {
    const old = daysBefore(T0, 200); // 200 days old when lowered to 90
    expect(deleted(lowered, old, daysAfter(T0, 1))).toBe(false);
    expect(deleted(lowered, old, daysAfter(T0, 164))).toBe(false); // 364 days old
    expect(deleted(lowered, old, daysAfter(T0, 166))).toBe(true); // 366 days old
  });

  it('deletes rows that cross the new value after the change', () => {
    const young = daysBefore(T0, 30); // crosses 90 days 60 days after the change
    expect(deleted(lowered, young, daysAfter(T0, 59))).toBe(false);
    expect(deleted(lowered, young, daysAfter(T0, 61))).toBe(true);
  });

  it('raising a value applies at once and drops the protection once it covers the promise', () => {
    expect(changeRetention(lowered, 400, daysAfter(T0, 1))).toEqual({ days: 400 });
    expect(changeRetention(lowered, 120, daysAfter(T0, 1))).toEqual({ days: 120, grandfathered: lowered.grandfathered });
    expect(changeRetention({ days: 90 }, 180, T0)).toEqual({ days: 180 });
  });

  it('a second lowering keeps the longest promise', () => {
    const twice = changeRetention(lowered, 30, daysAfter(T0, 10));
    expect(twice.grandfathered?.priorDays).toBe(365);
    expect(deleted(twice, daysBefore(T0, 200), daysAfter(T0, 20))).toBe(false);
  });

  it('without a change, everything older than the value goes', () => {
    expect(retentionRanges({ days: 90 }, T0)).toEqual([{ before: daysBefore(T0, 90) }]);
  });
});

describe('purge-old', () => {
  const now = new Date('2026-11-23T12:00:00Z');
  it('parses ISO 8601 durations and dates into a cut-off', () => {
    expect(parseOlderThan('P90D', now)).toEqual(daysBefore(now, 90));
    expect(parseOlderThan('P1Y', now)).toEqual(daysBefore(now, 365));
    expect(parseOlderThan('P2W', now)).toEqual(daysBefore(now, 14));
    expect(parseOlderThan('PT12H', now)).toEqual(new Date(now.getTime() - 12 * 3_600_000));
    expect(parseOlderThan('2026-01-01', now)).toEqual(new Date('2026-01-01T00:00:00Z'));
    expect(parseOlderThan('2026-01-01T10:00:00Z', now)).toEqual(new Date('2026-01-01T10:00:00Z'));
  });
  it('refuses anything else, zero durations and future dates', () => {
    for (const v of ['90', 'P', 'PT', 'P0D', 'P1DT', 'P-1D', 'P1.5D', '90 days', '2027-01-01', '2026-13-01', 'yesterday']) expect(parseOlderThan(v, now)).toBeNull();
  });
  it('never lets the audit cut-off cross 365 days', () => {
    expect(clampAuditCutoff(daysBefore(now, 30), now).getTime()).toBe(daysBefore(now, 365).getTime() - 3_600_000);
    expect(clampAuditCutoff(daysBefore(now, 400), now)).toEqual(daysBefore(now, 400));
  });
});
