/**
 * `/api/v1/maintenance/tasks` (work orders: list, get, start, complete, cancel) and
 * `/api/v1/maintenance/compliance` (SMRP-style, domain/maintenance/compliance.ts).
 */
import Joi from '../../domain/joi';
import { Condition, CONDITIONS } from '../../domain/assets/health';
import { parseCompliancePeriod, TASK_STATUSES, type TaskStatus } from '../../domain/maintenance';
import { listTasks, planCompliance, requireTask, TASK_TRANSITIONS, TaskAction, transitionTask } from '../../services/maintenance-tasks';
import { tenantScopeOf, userOf } from '../context';
import { actorOf, runMutation } from '../mutation';
import { mapPage, PageRequest } from '../../db/pagination';
import { pageQuery, pageOf } from '../pagination';
import { resourceRoutes } from '../resource-routes';
import { ApiRouter } from '../route';
import { taskParams, taskSchema, toTask } from '../resources/maintenance';
import { tellPlanOfCompletion } from '../../services/maintenance-condition';
import { idRef } from '../validation';

const TAGS = ['maintenance'];

const SUMMARIES: Array<{ action: TaskAction; summary: string }> = [
  { action: 'start', summary: 'Start a task (open → in_progress)' },
  {
    action: 'complete',
    summary:
      'Complete a task (open or in_progress → done); emits task.completed. An inspection is completed with its `condition`, recorded on its assets. ' +
      'A condition work order re-arms its plan for its asset.',
  },
  { action: 'cancel', summary: 'Cancel a task (open or in_progress → cancelled); not counted by compliance' },
];
const TRANSITIONS = SUMMARIES.map((t) => ({ ...t, ...TASK_TRANSITIONS[t.action] }));

export function registerTaskRoutes(api: ApiRouter): void {
  api.route<unknown, PageRequest & { status?: TaskStatus; plan_id?: string; asset_id?: string; overdue?: boolean }>({
    method: 'get',
    readOnly: true,
    path: '/tasks',
    summary: 'List maintenance tasks (work orders), by due time',
    tags: TAGS,
    auth: 'user',
    permission: 'view_maintenance',
    query: Joi.object({
      ...pageQuery,
      status: Joi.string().valid(...TASK_STATUSES),
      plan_id: idRef,
      asset_id: idRef,
      overdue: Joi.boolean().description('Only tasks open past their grace deadline'),
    }),
    responses: { 200: { description: 'A page of tasks', schema: pageOf(taskSchema) } },
    handler: async (ctx, { query }) => {
      ctx.body = mapPage(await listTasks(tenantScopeOf(ctx), query, query), toTask);
    },
  });

  resourceRoutes(api, { path: '/tasks/:task_id', params: taskParams, tags: TAGS, view: 'view_maintenance', schema: taskSchema, find: requireTask, present: toTask }).get({
    summary: 'Get a task',
    found: 'Task',
  });

  for (const t of TRANSITIONS) {
    api.route<{ task_id: string }, unknown, { notes?: string; condition?: Condition }>({
      method: 'post',
      path: `/tasks/:task_id/${t.action}`,
      summary: t.summary,
      tags: TAGS,
      auth: 'user',
      permission: 'manage_maintenance',
      params: taskParams,
      body: Joi.object({
        notes: Joi.string().trim().max(5_000),
        ...(t.action === 'complete'
          ? {
              condition: Joi.string()
                .valid(...CONDITIONS)
                .description("Inspections only (required for them): the inspector's rating, recorded on each asset of the task"),
            }
          : {}),
      }),
      responses: {
        200: { description: 'The task', schema: taskSchema },
        404: { description: 'Not found' },
        409: { description: `Only a task ${t.from.join(' or ')} can be ${t.to}` },
      },
      handler: async (ctx, { params, body }) => {
        const { tenantId, userId } = userOf(ctx);
        const row = await runMutation(ctx, tenantId, actorOf(ctx), (unit) => transitionTask(unit, userId, params.task_id, t.action, body));
        if (t.action === 'complete') await tellPlanOfCompletion({ temporal: ctx.deps.temporal, log: ctx.state.log }, row);
        ctx.body = toTask(row);
      },
    });
  }
}

const day = Joi.string()
  .pattern(/^\d{4}-\d{2}-\d{2}$/)
  .messages({ 'string.pattern.base': 'must be a date in the form YYYY-MM-DD' });

/** The period check of the domain (existing dates, end not before start) as joi rules, so it reads as a 422 on the field. */
const complianceQuery = Joi.object({
  start_date: day.required(),
  end_date: day.required(),
  plan_id: idRef,
}).custom((value, h) => {
  const period = parseCompliancePeriod(value.start_date, value.end_date);
  if (period.ok) return value;
  return h.message({ custom: `${period.field} ${period.message}` });
});

export function registerComplianceRoute(api: ApiRouter): void {
  api.route<unknown, { start_date: string; end_date: string; plan_id?: string }>({
    method: 'get',
    path: '/compliance',
    summary: 'PM compliance over tasks due in the period (both dates included)',
    description:
      'SPEC.md counts plans. A task due in the period is on time when done no later than due + 10 % of its plan interval, late when done after that, overdue-open when still open past it. A plan with tasks due in the period is executed on time when each of them that counts was on time, overdue when one was late or is overdue-open; a plan whose due tasks are all pending (deadline not reached) or cancelled does not count yet (`pending_count`). `compliance_rate` (percent of counted plans on time) is null when no plan counts; `average_delay_hours` is over late executions (due to completion). `tasks` gives the same figures per task.',
    tags: TAGS,
    auth: 'user',
    permission: 'view_maintenance',
    query: complianceQuery,
    responses: {
      200: {
        description: 'Compliance metrics',
        schema: Joi.object({
          start_date: Joi.string(),
          end_date: Joi.string(),
          compliance_rate: Joi.number().allow(null).description('Percent of counted plans executed on time'),
          on_time_count: Joi.number().description('Plans whose every counted task was done by its deadline'),
          overdue_count: Joi.number().description('Plans with a task done late or still open past its deadline'),
          average_delay_hours: Joi.number().allow(null).description('Average delay of late executions (due to completion)'),
          pending_count: Joi.number().description('Plans with tasks due whose deadlines have not passed yet'),
          total_plans: Joi.number().description('Plans with a task due in the period'),
          tasks: Joi.object({
            compliance_rate: Joi.number().allow(null),
            on_time_count: Joi.number(),
            overdue_count: Joi.number(),
            average_delay_hours: Joi.number().allow(null),
            pending_count: Joi.number(),
            cancelled_count: Joi.number(),
            total: Joi.number(),
          }).description('The same figures per task'),
          total_tasks: Joi.number(),
        }),
      },
    },
    handler: async (ctx, { query }) => {
      const period = parseCompliancePeriod(query.start_date, query.end_date);
      if (!period.ok) throw new Error('unreachable: the query schema checks the period');
      const metrics = await planCompliance(tenantScopeOf(ctx), period.period, query.plan_id);
      ctx.body = { start_date: query.start_date, end_date: query.end_date, ...metrics };
    },
  });
}
