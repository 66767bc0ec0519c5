/**
 * `/api/v1/maintenance/tasks` (work orders: list, get, start, complete, cancel) and
 * `/api/v1/maintenance/compliance` (SMRP-style, domain/maintenance/compliance.ts).
 */
import Joi from '../../domain/joi';
import { recordInspection } from '../../db/asset-monitoring/inspection';
import { TaskRow } from '../../db/queries/maintenance';
import { Condition, CONDITIONS } from '../../domain/assets/health';
import { isUuid, tenantScope } from '../../db/tenant-scope';
import { computePlanCompliance, parseCompliancePeriod, TASK_STATUSES, type TaskStatus } from '../../domain/maintenance';
import { userOf } from '../context';
import { invalidState, validationError } from '../errors';
import { actorOf, runMutation } from '../mutation';
import { pageQuery, paginate, PageRequest, pageOf } from '../pagination';
import { ApiRouter } from '../route';
import { requireTask, taskParams, taskSchema, toTask } from '../resources/maintenance';
import { idRef } from '../validation';
import { isoTime } from '../../domain/time';

const TAGS = ['maintenance'];

interface Transition {
  action: 'start' | 'complete' | 'cancel';
  from: TaskStatus[];
  to: TaskStatus;
  summary: string;
}

const TRANSITIONS: Transition[] = [
  { action: 'start', from: ['open'], to: 'in_progress', summary: 'Start a task (open → in_progress)' },
  {
    action: 'complete',
    from: ['open', 'in_progress'],
    to: 'done',
    summary: 'Complete a task (open or in_progress → done); emits task.completed. An inspection is completed with its `condition`, recorded on its assets.',
  },
  { action: 'cancel', from: ['open', 'in_progress'], to: 'cancelled', summary: 'Cancel a task (open or in_progress → cancelled); not counted by compliance' },
];

export function registerTaskRoutes(api: ApiRouter): void {
  api.route<unknown, PageRequest & { status?: TaskStatus; plan_id?: string; asset_id?: string; overdue?: boolean }>({
    method: 'get',
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
      const q = tenantScope(ctx.deps.db, userOf(ctx).tenantId)
        .table('maintenance_tasks')
        .orderBy([{ column: 'due_at' }, { column: 'task_code' }]);
      if (query.status) q.where('status', query.status);
      for (const [key, column] of [
        ['plan_id', 'plan_id'],
        ['asset_id', null],
      ] as const) {
        const value = query[key];
        if (value === undefined) continue;
        if (!isUuid(value)) q.whereRaw('false');
        else if (column) q.where(column, value);
        else q.whereRaw('asset_ids @> array[?]::uuid[]', [value]);
      }
      if (query.overdue !== undefined) {
        if (query.overdue) q.whereNotNull('overdue_at').whereIn('status', ['open', 'in_progress']);
        else q.where((w) => void w.whereNull('overdue_at').orWhereNotIn('status', ['open', 'in_progress']));
      }
      ctx.body = await paginate(q, query, toTask);
    },
  });

  api.route<{ task_id: string }>({
    method: 'get',
    path: '/tasks/:task_id',
    summary: 'Get a task',
    tags: TAGS,
    auth: 'user',
    permission: 'view_maintenance',
    params: taskParams,
    responses: { 200: { description: 'Task', schema: taskSchema }, 404: { description: 'Not found' } },
    handler: async (ctx, { params }) => {
      ctx.body = toTask(await requireTask(tenantScope(ctx.deps.db, userOf(ctx).tenantId), params.task_id));
    },
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
        const row = await runMutation(ctx, tenantId, actorOf(ctx), async (unit) => {
          const task = await requireTask(unit.scope, params.task_id);
          const [locked]: TaskRow[] = await unit.scope.table('maintenance_tasks').where('id', task.id).forUpdate().select('*');
          if (!t.from.includes(locked.status)) throw invalidState(`the task is ${locked.status}; only a task ${t.from.join(' or ')} can be ${t.to}`);
          if (t.action === 'complete') assertInspectionResult(locked, body.condition);
          const now = new Date();
          const change: Record<string, unknown> = { status: t.to, updated_at: now, ...(body.notes !== undefined ? { notes: body.notes } : {}) };
          if (t.action === 'start') change.started_at = now;
          if (t.action === 'complete') Object.assign(change, { completed_at: now, completed_by: userId });
          if (t.action === 'cancel') change.cancelled_at = now;
          const [updated]: TaskRow[] = await unit.scope.table('maintenance_tasks').where('id', task.id).update(change).returning('*');
          // SPEC.md: the condition is recalculated each time an inspection is completed.
          const inspectionIds: string[] = [];
          if (t.action === 'complete' && locked.kind === 'inspection' && body.condition) {
            for (const assetId of locked.asset_ids) {
              const inspection = await recordInspection(unit, assetId, { performed_at: now, condition: body.condition, notes: body.notes ?? null, recorded_by: userId }, now);
              inspectionIds.push(inspection.id);
            }
          }
          const inspected = inspectionIds.length > 0 ? { inspection_ids: inspectionIds, condition: body.condition } : {};
          unit.audit({
            action: `maintenance_task.${t.to}`,
            resourceType: 'maintenance_task',
            resourceId: task.id,
            details: { from: locked.status, plan_id: task.plan_id, ...inspected },
          });
          if (t.action === 'complete') {
            unit.emit('task.completed', {
              task_id: task.id,
              task_code: task.task_code,
              plan_id: task.plan_id,
              asset_id: task.asset_ids[0] ?? null,
              asset_ids: task.asset_ids,
              due_at: isoTime(task.due_at),
              completed_at: now.toISOString(),
            });
          }
          return updated;
        });
        ctx.body = toTask(row);
      },
    });
  }
}

/** An inspection is completed with its result; any other task has none to give. */
function assertInspectionResult(task: TaskRow, condition: Condition | undefined): void {
  if (task.kind === 'inspection' && condition === undefined) {
    throw validationError('an inspection is completed with its condition (good, fair, poor or critical)', [
      { field: 'body.condition', message: 'is required to complete an inspection', type: 'any.required' },
    ]);
  }
  if (task.kind !== 'inspection' && condition !== undefined) {
    throw validationError(`condition is the result of an inspection; this task is ${task.kind}`, [
      { field: 'body.condition', message: 'applies to inspection tasks only', type: 'any.unknown' },
    ]);
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
      const q = tenantScope(ctx.deps.db, userOf(ctx).tenantId)
        .table('maintenance_tasks')
        .whereNotNull('plan_id')
        .where('due_at', '>=', period.period.start)
        .where('due_at', '<', period.period.end)
        .select('plan_id', 'due_at', 'completed_at', 'status', 'interval_hours');
      if (query.plan_id) {
        if (isUuid(query.plan_id)) q.where('plan_id', query.plan_id);
        else q.whereRaw('false');
      }
      const rows: Array<Pick<TaskRow, 'due_at' | 'completed_at' | 'status' | 'interval_hours'> & { plan_id: string }> = await q;
      const metrics = computePlanCompliance(
        rows.map((r) => ({ plan_id: r.plan_id, due_at: r.due_at, completed_at: r.completed_at, status: r.status, interval_hours: Number(r.interval_hours ?? 0) })),
        new Date(),
      );
      ctx.body = { start_date: query.start_date, end_date: query.end_date, ...metrics, total_tasks: rows.length };
    },
  });
}
