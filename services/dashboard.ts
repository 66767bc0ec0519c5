/**
 * The operational dashboard's KPIs, without HTTP: the figures SQL computes over the tenant's
 * indexed tables (db/queries/dashboard.ts) and the rates and period derived from them.
 * api/routes/dashboard.ts is the HTTP face.
 */
import { AlertKpis, AssetKpis, dashboardData, WEBHOOK_WINDOW_DAYS } from '../db/queries/dashboard';
import type { TenantScope } from '../db/tenant-scope';

export { WEBHOOK_WINDOW_DAYS };

export interface Dashboard {
  assets: AssetKpis;
  alerts: AlertKpis;
  maintenance: {
    open_tasks: number;
    overdue_tasks: number;
    /** Tasks due this calendar month (UTC): the on-time rate among those that count. */
    compliance_this_month: { rate: number | null; on_time: number; overdue: number; period_start: Date; period_end: Date };
  };
  webhooks: { success_rate: number | null; attempts: number; window_days: number };
  agents: { conversations_today: number };
  generated_at: Date;
}

/** Percent with two decimals; null without a whole. */
const percent = (part: number, whole: number): number | null => (whole === 0 ? null : Math.round((part / whole) * 10_000) / 100);

export async function dashboard(scope: TenantScope, now: Date): Promise<Dashboard> {
  const d = await dashboardData(scope.db, scope.tenantId, now);
  const m = d.maintenance;
  return {
    assets: d.assets,
    alerts: d.alerts,
    maintenance: {
      open_tasks: m.open_tasks,
      overdue_tasks: m.overdue_tasks,
      compliance_this_month: {
        rate: percent(m.compliance_on_time, m.compliance_on_time + m.compliance_overdue),
        on_time: m.compliance_on_time,
        overdue: m.compliance_overdue,
        period_start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)),
        period_end: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)),
      },
    },
    webhooks: { success_rate: percent(d.webhooks.succeeded, d.webhooks.attempts), attempts: d.webhooks.attempts, window_days: WEBHOOK_WINDOW_DAYS },
    agents: { conversations_today: d.conversations_today },
    generated_at: now,
  };
}
