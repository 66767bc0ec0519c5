import { Knex } from 'knex';
import { GRACE_FRACTION, UNKNOWN_INTERVAL_GRACE_HOURS } from '../../domain/maintenance/compliance';

/**
 * domain/maintenance/compliance.ts `graceDeadline` as a SQL expression over a maintenance_tasks
 * row (`alias.` prefix optional), so queries judge overdue tasks by the same rule as the code.
 */
export function graceDeadlineSql(alias?: string): Knex.RawBinding & { sql: string; bindings: number[] } {
  const c = alias ? `${alias}.` : '';
  return {
    sql: `(${c}due_at + (case when coalesce(${c}interval_hours, 0) > 0 then ${c}interval_hours * ? else ? end) * interval '1 hour')`,
    bindings: [GRACE_FRACTION, UNKNOWN_INTERVAL_GRACE_HOURS],
  };
}
