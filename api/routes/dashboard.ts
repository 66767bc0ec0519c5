import Joi from '../../domain/joi';
import { dashboardData, WEBHOOK_WINDOW_DAYS } from '../../db/queries/dashboard';
import { HEALTH_STATUSES } from '../../domain/assets/health';
import { userOf } from '../context';
import { ApiRouter } from '../route';

const percent = (part: number, whole: number): number | null => (whole === 0 ? null : Math.round((part / whole) * 10_000) / 100);

const count = Joi.number().integer();
const dashboardSchema = Joi.object({
  assets: Joi.object({
    total: count,
    by_health_status: Joi.object(Object.fromEntries(HEALTH_STATUSES.map((s) => [s, count]))),
    not_assessed: count.description('Assets without stored health yet (counted as excellent, as GET .../health answers)'),
  }),
  alerts: Joi.object({ open: count.description('Unresolved (open or acknowledged)'), unacknowledged: count, critical: count.description('Unresolved and critical') }),
  maintenance: Joi.object({
    open_tasks: count.description('Tasks open or in progress'),
    overdue_tasks: count.description('Open or in progress past their due time'),
    compliance_this_month: Joi.object({
      rate: Joi.number().allow(null).description('Percent on time among tasks due this month (UTC) that count; null when none count'),
      on_time: count,
      overdue: count,
      period_start: Joi.string().isoDate(),
      period_end: Joi.string().isoDate(),
    }),
  }),
  webhooks: Joi.object({
    success_rate: Joi.number().allow(null).description(`Percent of delivery attempts that succeeded in the last ${WEBHOOK_WINDOW_DAYS} days; null without attempts`),
    attempts: count,
    window_days: count,
  }),
  agents: Joi.object({ conversations_today: count.description('Conversations started since 00:00 UTC (0 until the agents feature stores conversations)') }),
  generated_at: Joi.string().isoDate(),
});

export function dashboardRoutes(): ApiRouter {
  const api = new ApiRouter('/api/v1/dashboard');
  api.route({
    method: 'get',
    path: '/',
    summary: 'Operational dashboard KPIs',
    description: 'Computed in SQL over indexed tables of the tenant (stored asset health, unresolved alerts, maintenance tasks, webhook delivery log).',
    tags: ['dashboard'],
    auth: 'user',
    permission: 'view_dashboard',
    responses: { 200: { description: 'KPIs', schema: dashboardSchema } },
    handler: async (ctx) => {
      const now = new Date();
      const d = await dashboardData(ctx.deps.db, userOf(ctx).tenantId, now);
      const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
      const monthEnd = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
      ctx.body = {
        assets: d.assets,
        alerts: d.alerts,
        maintenance: {
          open_tasks: d.maintenance.open_tasks,
          overdue_tasks: d.maintenance.overdue_tasks,
          compliance_this_month: {
            rate: percent(d.maintenance.compliance_on_time, d.maintenance.compliance_on_time + d.maintenance.compliance_overdue),
            on_time: d.maintenance.compliance_on_time,
            overdue: d.maintenance.compliance_overdue,
            period_start: monthStart.toISOString(),
            period_end: monthEnd.toISOString(),
          },
        },
        webhooks: { success_rate: percent(d.webhooks.succeeded, d.webhooks.attempts), attempts: d.webhooks.attempts, window_days: WEBHOOK_WINDOW_DAYS },
        agents: { conversations_today: d.conversations_today },
        generated_at: now.toISOString(),
      };
    },
  });
  return api;
}
