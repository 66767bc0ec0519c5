/** Work orders: the list with its filters, a task's locked read and update, and the compliance read. */
import type { Knex } from 'knex';
import type { TaskStatus } from '../../domain/maintenance';
import { isUuid, type TenantScope, whereUuidIs } from '../tenant-scope';
import type { TaskRow } from './maintenance';

export interface TaskFilter {
  status?: TaskStatus;
  plan_id?: string;
  asset_id?: string;
  overdue?: boolean;
}

/** The tenant's tasks by due time, filtered (a list query: the caller pages it). */
export function tasksQuery(scope: TenantScope, filter: TaskFilter): Knex.QueryBuilder {
  const q = scope.table('maintenance_tasks').orderBy([{ column: 'due_at' }, { column: 'task_code' }]);
  if (filter.status) q.where('status', filter.status);
  for (const [key, column] of [
    ['plan_id', 'plan_id'],
    ['asset_id', null],
  ] as const) {
    const value = filter[key];
    if (value === undefined) continue;
    if (!isUuid(value)) q.whereRaw('false');
    else if (column) q.where(column, value);
    else q.whereRaw('asset_ids @> array[?]::uuid[]', [value]);
  }
  if (filter.overdue !== undefined) {
    if (filter.overdue) q.whereNotNull('overdue_at').whereIn('status', ['open', 'in_progress']);
    else q.where((w) => void w.whereNull('overdue_at').orWhereNotIn('status', ['open', 'in_progress']));
  }
  return q;
}

export async function lockTask(scope: TenantScope, id: string): Promise<TaskRow> {
  const [locked] = (await scope.table('maintenance_tasks').where('id', id).forUpdate().select('*')) as TaskRow[];
  return locked!;
}

export async function updateTask(scope: TenantScope, id: string, change: Record<string, unknown>): Promise<TaskRow> {
  const [updated] = (await scope.table('maintenance_tasks').where('id', id).update(change).returning('*')) as TaskRow[];
  return updated!;
}

export type ComplianceTaskRow = Pick<TaskRow, 'due_at' | 'completed_at' | 'status' | 'interval_hours'> & { plan_id: string };

/** Plan tasks due in [start, end), of one plan or all. */
export async function planTasksDue(scope: TenantScope, range: { start: Date; end: Date }, planId?: string): Promise<ComplianceTaskRow[]> {
  const q = scope
    .table('maintenance_tasks')
    .whereNotNull('plan_id')
    .where('due_at', '>=', range.start)
    .where('due_at', '<', range.end)
    .select('plan_id', 'due_at', 'completed_at', 'status', 'interval_hours');
  if (planId) whereUuidIs(q, 'plan_id', planId);
  return (await q) as ComplianceTaskRow[];
}
