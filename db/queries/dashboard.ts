import { HEALTH_STATUSES, HealthStatus } from '../../domain/assets/health';
import { Queryable } from '../knex';
import { maintenanceKpis, MaintenanceKpis } from './maintenance-read';

/**
 * Dashboard KPIs of one tenant, each computed by SQL over small, indexed tables: stored asset
 * health (one row per asset), unresolved alerts, maintenance tasks, the webhook delivery log of the
 * last 7 days and today's agent conversations. Raw readings are never scanned here.
 */

export const WEBHOOK_WINDOW_DAYS = 7;

export interface AssetKpis {
  total: number;
  /** Assets without stored health (no reading, inspection or baseline yet) count as excellent, like GET .../health. */
  by_health_status: Record<HealthStatus, number>;
  not_assessed: number;
}

export interface AlertKpis {
  /** Unresolved: open or acknowledged. */
  open: number;
  /** Unresolved and not acknowledged yet. */
  unacknowledged: number;
  /** Unresolved with critical severity. */
  critical: number;
}

export interface WebhookKpis {
  attempts: number;
  succeeded: number;
}

export interface DashboardData {
  assets: AssetKpis;
  alerts: AlertKpis;
  maintenance: MaintenanceKpis;
  webhooks: WebhookKpis;
  conversations_today: number;
}

export async function dashboardData(db: Queryable, tenantId: string, now: Date): Promise<DashboardData> {
  const [assets, alerts, maintenance, webhooks, conversations] = await Promise.all([
    assetKpis(db, tenantId),
    alertKpis(db, tenantId),
    maintenanceKpis(db, tenantId, now),
    webhookKpis(db, tenantId, now),
    conversationsToday(db, tenantId, now),
  ]);
  return { assets, alerts, maintenance, webhooks, conversations_today: conversations };
}

export async function assetKpis(db: Queryable, tenantId: string): Promise<AssetKpis> {
  const { rows } = await db.raw(
    `select (select count(*) from assets where tenant_id = ?)::int as total,
            coalesce((select json_object_agg(status, n) from (
              select status, count(*)::int as n from asset_health where tenant_id = ? group by status) s), '{}') as by_status`,
    [tenantId, tenantId],
  );
  const { total, by_status } = rows[0] as { total: number; by_status: Partial<Record<HealthStatus, number>> };
  const assessed = Object.values(by_status).reduce((s, n) => s + (n ?? 0), 0);
  const notAssessed = total - assessed;
  const byHealth = Object.fromEntries(HEALTH_STATUSES.map((s) => [s, by_status[s] ?? 0])) as Record<HealthStatus, number>;
  byHealth.excellent += notAssessed;
  return { total, by_health_status: byHealth, not_assessed: notAssessed };
}

export async function alertKpis(db: Queryable, tenantId: string): Promise<AlertKpis> {
  const { rows } = await db.raw(
    `select count(*)::int as open,
            count(*) filter (where status = 'open')::int as unacknowledged,
            count(*) filter (where severity = 'critical')::int as critical
       from asset_alerts where tenant_id = ? and status in ('open', 'acknowledged')`,
    [tenantId],
  );
  return rows[0];
}

async function webhookKpis(db: Queryable, tenantId: string, now: Date): Promise<WebhookKpis> {
  const { rows } = await db.raw(
    `select count(*)::int as attempts, (count(*) filter (where status = 'succeeded'))::int as succeeded
       from webhook_deliveries where tenant_id = ? and created_at > ?::timestamptz - make_interval(days => ?)`,
    [tenantId, now.toISOString(), WEBHOOK_WINDOW_DAYS],
  );
  return rows[0];
}

/** Conversations started since 00:00 UTC. */
async function conversationsToday(db: Queryable, tenantId: string, now: Date): Promise<number> {
  const { rows } = await db.raw(
    `select count(*)::int as n from conversations
      where tenant_id = ? and started_at >= date_trunc('day', ?::timestamptz at time zone 'UTC') at time zone 'UTC'`,
    [tenantId, now.toISOString()],
  );
  return rows[0].n;
}
