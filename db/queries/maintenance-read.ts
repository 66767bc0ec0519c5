import { graceDeadlineSql } from './grace-deadline-sql';
import { Queryable } from '../knex';
import { tenantScope } from '../tenant-scope';

/** What the assets feature (condition, dashboard) reads from the maintenance tables. */

export interface AssetMaintenance {
  /**
   * When the asset's next inspection is due: the earliest of its active inspection plans' next due
   * times and its open inspection tasks' due times (an overdue one is still the next to do); null
   * when neither exists. Preventive and corrective work is not an inspection.
   */
  next_inspection_at: Date | null;
  /** Tasks (work orders) open or in progress that include the asset. */
  open_work_orders: number;
}

export async function assetMaintenance(db: Queryable, tenantId: string, assetId: string): Promise<AssetMaintenance> {
  // One after the other, so `db` may be a transaction too.
  const plans = await tenantScope(db, tenantId)
    .table('maintenance_plans')
    .where({ status: 'active', task_kind: 'inspection' })
    .whereNull('deleted_at')
    .whereRaw('asset_ids @> array[?]::uuid[]', [assetId])
    .min({ next: 'next_due_at' })
    .first();
  const tasks = await tenantScope(db, tenantId)
    .table('maintenance_tasks')
    .whereIn('status', ['open', 'in_progress'])
    .whereRaw('asset_ids @> array[?]::uuid[]', [assetId])
    .first(db.raw('count(*)::int as open'), db.raw("min(due_at) filter (where kind = 'inspection') as next"));
  const candidates = [plans?.next, tasks?.next].filter((at): at is Date | string => at !== null && at !== undefined).map((at) => new Date(at).getTime());
  return {
    next_inspection_at: candidates.length > 0 ? new Date(Math.min(...candidates)) : null,
    open_work_orders: tasks ? Number(tasks.open) : 0,
  };
}

export interface MaintenanceKpis {
  open_tasks: number;
  overdue_tasks: number;
  /** Tasks due this month, judged as in domain/maintenance/compliance.ts (pending and cancelled not counted). */
  compliance_on_time: number;
  compliance_overdue: number;
}

/**
 * Dashboard maintenance numbers in one statement, with the maintenance feature's rules: a task's
 * deadline is the compliance rule's (graceDeadlineSql). `overdue_tasks`: open
 * or in progress past the deadline. Compliance this month: tasks due in [month start, next month
 * start) UTC; on time when completed by the deadline, overdue when completed later or still open
 * past it; pending and cancelled tasks do not count.
 */
export async function maintenanceKpis(db: Queryable, tenantId: string, now: Date): Promise<MaintenanceKpis> {
  const at = now.toISOString();
  const deadline = graceDeadlineSql('t');
  const { rows } = await db.raw(
    `with month as (select date_trunc('month', ?::timestamptz at time zone 'UTC') at time zone 'UTC' as start),
     judged as (
       select t.status, t.completed_at,
              t.status in ('open', 'in_progress') as unfinished,
              t.status = 'done' and t.completed_at is not null as completed,
              t.due_at >= m.start and t.due_at < m.start + interval '1 month' as due_this_month,
              ${deadline.sql} as deadline
         from maintenance_tasks t cross join month m
        where t.tenant_id = ? and t.status <> 'cancelled'
     )
     select count(*) filter (where unfinished)::int as open_tasks,
            count(*) filter (where unfinished and deadline < ?::timestamptz)::int as overdue_tasks,
            count(*) filter (where due_this_month and completed and completed_at <= deadline)::int as compliance_on_time,
            count(*) filter (where due_this_month and ((completed and completed_at > deadline) or (not completed and deadline < ?::timestamptz)))::int as compliance_overdue
       from judged`,
    [at, ...deadline.bindings, tenantId, at, at],
  );
  return rows[0];
}
