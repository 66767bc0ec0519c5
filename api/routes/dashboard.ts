import Joi from '../../domain/joi';
import { HEALTH_STATUSES } from '../../domain/assets/health';
import { dashboard, WEBHOOK_WINDOW_DAYS } from '../../services/dashboard';
import { tenantScopeOf } from '../context';
import { ApiRouter } from '../route';

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
      const d = await dashboard(tenantScopeOf(ctx), new Date());
      const compliance = d.maintenance.compliance_this_month;
      ctx.body = {
        ...d,
        maintenance: {
          ...d.maintenance,
          compliance_this_month: { ...compliance, period_start: compliance.period_start.toISOString(), period_end: compliance.period_end.toISOString() },
        },
        generated_at: d.generated_at.toISOString(),
      };
    },
  });
  return api;
}
