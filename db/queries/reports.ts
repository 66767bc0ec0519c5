/**
 * What the reports read. Counts that the dashboard already computes (health distribution, open
 * alerts, open work orders) come from the dashboard's own queries (dashboard.ts, maintenance-read.ts)
 * so both always agree; the rest are
 * bounded reads over indexed columns (tenant first).
 */
import type { CompliancePeriod } from '../../domain/maintenance/compliance';
import type { ComplianceReportTask } from '../../domain/reports/compliance';
import type { CsatReportTally } from '../../domain/reports/csat';
import type { AssetHealthEntry, OpenAlertEntry, WebhookHealthInput } from '../../domain/reports/snapshots';
import { Queryable } from '../knex';
import { AlertKpis, alertKpis, AssetKpis, assetKpis } from './dashboard';
import { maintenanceKpis } from './maintenance-read';

/** Rows a table of a report lists at most (the totals are always complete). */
export const REPORT_ROW_CAP = 1000;

export interface ComplianceTaskRow extends ComplianceReportTask {
  id: string;
}

/** Plan tasks due in the period, like GET /maintenance/compliance, with their plan's name; at most `limit` (all by default). */
export async function complianceTasks(db: Queryable, tenantId: string, range: CompliancePeriod, limit?: number): Promise<ComplianceTaskRow[]> {
  const query = db('maintenance_tasks as t')
    .join('maintenance_plans as p', function joinPlan() {
      this.on('p.id', '=', 't.plan_id').andOn('p.tenant_id', '=', 't.tenant_id');
    })
    .where('t.tenant_id', tenantId)
    .where('t.due_at', '>=', range.start)
    .where('t.due_at', '<', range.end)
    .orderBy([{ column: 't.due_at' }, { column: 't.task_code' }])
    .select('t.id', 't.task_code', 't.title', 't.plan_id', 'p.name as plan_name', 't.due_at', 't.completed_at', 't.status', 't.interval_hours');
  const rows = await (limit === undefined ? query : query.limit(limit));
  return rows.map((r) => ({ ...r, interval_hours: Number(r.interval_hours ?? 0) }));
}

export interface AssetHealthRow extends AssetHealthEntry {
  asset_id: string;
}

export interface AssetHealthData {
  assets: AssetKpis;
  open_work_orders: number;
  overdue_work_orders: number;
  /** The N assets with the lowest score, lowest first. */
  worst: AssetHealthRow[];
}

export async function assetHealthData(db: Queryable, tenantId: string, now: Date, worstCount: number): Promise<AssetHealthData> {
  const [assets, maintenance, worst] = await Promise.all([
    assetKpis(db, tenantId),
    maintenanceKpis(db, tenantId, now),
    db.raw(
      `select a.id as asset_id, a.name, a.type, h.health_score, coalesce(h.status, 'excellent') as status,
              (select count(*) from asset_alerts al
                where al.tenant_id = a.tenant_id and al.asset_id = a.id and al.status in ('open', 'acknowledged'))::int as open_alerts,
              (select count(*) from maintenance_tasks t
                where t.tenant_id = a.tenant_id and t.status in ('open', 'in_progress') and t.asset_ids @> array[a.id])::int as open_work_orders
         from assets a left join asset_health h on h.tenant_id = a.tenant_id and h.asset_id = a.id
        where a.tenant_id = ?
        order by coalesce(h.health_score, 101), a.name, a.id
        limit ?`,
      [tenantId, worstCount],
    ),
  ]);
  return {
    assets,
    open_work_orders: maintenance.open_tasks,
    overdue_work_orders: maintenance.overdue_tasks,
    worst: worst.rows,
  };
}

export interface OpenAlertRow extends OpenAlertEntry {
  id: string;
  asset_id: string;
}

export interface OpenAlertsData {
  counts: AlertKpis;
  /** Oldest first, at most REPORT_ROW_CAP. */
  alerts: OpenAlertRow[];
}

export async function openAlertsData(db: Queryable, tenantId: string): Promise<OpenAlertsData> {
  const [counts, alerts] = await Promise.all([
    alertKpis(db, tenantId),
    db('asset_alerts as al')
      .join('assets as a', function joinAsset() {
        this.on('a.id', '=', 'al.asset_id').andOn('a.tenant_id', '=', 'al.tenant_id');
      })
      .where('al.tenant_id', tenantId)
      .whereIn('al.status', ['open', 'acknowledged'])
      .orderBy([{ column: 'al.raised_at' }, { column: 'al.id' }])
      .limit(REPORT_ROW_CAP)
      .select(
        'al.id',
        'al.asset_id',
        'a.name as asset_name',
        'al.parameter',
        'al.severity',
        'al.status',
        'al.direction',
        'al.value',
        'al.peak_value',
        'al.lower_bound',
        'al.upper_bound',
        'al.raised_at',
      ),
  ]);
  return { counts, alerts };
}

/** Per webhook over the period: the report's input (domain/reports/snapshots.ts) and its id. */
export interface WebhookHealthRow extends WebhookHealthInput {
  webhook_id: string;
}

/** Per webhook of the tenant (also those without attempts), over attempts made in the period. */
export async function webhookHealthData(db: Queryable, tenantId: string, range: CompliancePeriod): Promise<WebhookHealthRow[]> {
  const { rows } = await db.raw(
    `with attempts as (
       select * from webhook_deliveries where tenant_id = ? and created_at >= ? and created_at < ?
     ), last_attempt as (
       select distinct on (delivery_id) delivery_id, webhook_id, status, next_attempt_at
         from attempts order by delivery_id, attempt desc
     )
     select w.id as webhook_id, w.url, w.status,
            (select count(*) from attempts a where a.webhook_id = w.id)::int as attempts,
            (select count(*) from attempts a where a.webhook_id = w.id and a.status = 'succeeded')::int as succeeded_attempts,
            (select count(*) from attempts a where a.webhook_id = w.id and a.status = 'failed')::int as failed_attempts,
            (select count(distinct delivery_id) from attempts a where a.webhook_id = w.id)::int as deliveries,
            (select count(distinct delivery_id) from attempts a where a.webhook_id = w.id and a.status = 'succeeded')::int as delivered,
            (select count(*) from last_attempt l where l.webhook_id = w.id and l.status = 'failed' and l.next_attempt_at is null)::int as failed,
            (select percentile_cont(0.5) within group (order by latency_ms) from attempts a where a.webhook_id = w.id and latency_ms is not null) as p50_latency_ms,
            (select percentile_cont(0.95) within group (order by latency_ms) from attempts a where a.webhook_id = w.id and latency_ms is not null) as p95_latency_ms
       from webhooks w
      where w.tenant_id = ?
      order by w.created_at, w.id
      limit ?`,
    [tenantId, range.start.toISOString(), range.end.toISOString(), tenantId, REPORT_ROW_CAP],
  );
  return rows.map((r: WebhookHealthRow) => ({
    ...r,
    p50_latency_ms: r.p50_latency_ms === null ? null : Math.round(Number(r.p50_latency_ms)),
    p95_latency_ms: r.p95_latency_ms === null ? null : Math.round(Number(r.p95_latency_ms)),
  }));
}

export type CsatTallyRow = CsatReportTally;

/** Responses given in the period, counted per (survey, agent, UTC month, score): aggregates never load rows. */
export async function csatTallies(db: Queryable, tenantId: string, range: CompliancePeriod): Promise<CsatTallyRow[]> {
  const { rows } = await db.raw(
    `select r.survey_id, s.name as survey_name, s.scale, r.agent_id, ag.name as agent_name,
            to_char(r.responded_at at time zone 'UTC', 'YYYY-MM') as month, r.score, count(*)::int as count
       from csat_responses r
       join csat_surveys s on s.id = r.survey_id and s.tenant_id = r.tenant_id
       left join agents ag on ag.id = r.agent_id and ag.tenant_id = r.tenant_id
      where r.tenant_id = ? and r.responded_at >= ? and r.responded_at < ?
      group by 1, 2, 3, 4, 5, 6, 7
      order by 1, 4, 6, 7`,
    [tenantId, range.start.toISOString(), range.end.toISOString()],
  );
  return rows;
}
