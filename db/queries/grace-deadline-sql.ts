import { Knex } from 'knex';
import { GRACE_FRACTION, UNKNOWN_INTERVAL_GRACE_HOURS } from '../../domain/maintenance/compliance';
import { LATEST_INSTANT_MS } from '../../domain/maintenance/instant';

/**
 * domain/maintenance/compliance.ts `graceDeadline` as a SQL expression over a maintenance_tasks
 * row (`alias.` prefix optional), so queries judge overdue tasks by the same rule as the code,
 * clamped to the latest instant as `graceDeadline` is: computed in epoch seconds, since a huge
 * interval added to a timestamp overflows it (22008) and failed the whole query.
 */
export function graceDeadlineSql(alias?: string): Knex.RawBinding & { sql: string; bindings: number[] } {
  const c = alias ? `${alias}.` : '';
  return {
    sql: `to_timestamp(least(extract(epoch from ${c}due_at) + (case when coalesce(${c}interval_hours, 0) > 0 then ${c}interval_hours * ? else ? end) * 3600, ?)::float8)`,
    bindings: [GRACE_FRACTION, UNKNOWN_INTERVAL_GRACE_HOURS, LATEST_INSTANT_MS / 1000],
  };
}
