/**
 * `/api/v1/maintenance`: preventive maintenance plans, each driven by its long-running workflow
 * `maintenance-plan/<tenant>/<plan>` (workflows/maintenance-plan.ts). The plan row is the
 * definition and a read model of the schedule; the workflow owns the schedule. Pause and resume
 * are signals, execute and counter readings Updates whose results the calls return, preview a
 * query. Tasks, compliance and optimize live in their own modules.
 *
 * Create order (services/maintenance.ts): the row is inserted in a transaction, the workflow is
 * started, and only then the transaction commits. Temporal down → the start fails → rollback →
 * 503 and no row. A crash after the start and before the commit leaves a workflow without a row:
 * its first activity finds no plan and it ends itself (PlanNotFound). The reverse gap (a row
 * without a workflow: a workflow terminated by hand) is repaired by the worker's reconciler and by
 * any call that finds it missing.
 *
 * Execute and counter readings are audited by the workflow's activity, in the transaction that
 * makes the task (the change happens there, not in the API).
 */
import Joi from '../../domain/joi';
import { actionOnDue } from '../../domain/maintenance';
import {
  createPlan,
  deletePlan,
  executePlanNow,
  listCounterReadings,
  listExecutions,
  listPlans,
  previewPlan,
  recordCounterReading,
  requirePlan,
  sendTestNotification,
  setPlanRunning,
  updatePlan,
} from '../../services/maintenance';
import { tenantScopeOf, userOf } from '../context';
import { actorOf, unitContextOf } from '../mutation';
import { mapPage, PageRequest } from '../../db/pagination';
import { pageQuery, pageOf } from '../pagination';
import { ApiRouter } from '../route';
import { createPlanBody, idempotencyKeyOf, PlanBody, planDeps, planParams, planSchema, toPlan, updatePlanBody, updateRequestId } from '../resources/maintenance';
import { registerOptimizeRoutes } from './maintenance-optimize';
import { registerComplianceRoute, registerTaskRoutes } from './maintenance-tasks';
import { idRef } from '../validation';
import { isoTime } from '../../domain/time';

// eslint-disable-next-line no-control-regex -- control characters are what this refuses
const ONE_LINE_TEXT = /^[^\u0000-\u001f\u007f]*$/;
const TAGS = ['maintenance'];

/** Where a request's reads happen: its tenant's scope. */

function registerPlanCrud(api: ApiRouter): void {
  api.route<unknown, PageRequest & { status?: string; asset_id?: string }>({
    method: 'get',
    path: '/plans',
    summary: 'List maintenance plans',
    tags: TAGS,
    auth: 'user',
    permission: 'view_maintenance',
    query: Joi.object({ ...pageQuery, status: Joi.string().valid('active', 'paused'), asset_id: idRef }),
    responses: { 200: { description: 'A page of plans', schema: pageOf(planSchema) } },
    handler: async (ctx, { query }) => {
      ctx.body = mapPage(await listPlans(tenantScopeOf(ctx), query, query), toPlan);
    },
  });

  api.route<unknown, unknown, PlanBody>({
    method: 'post',
    path: '/plans',
    summary: 'Create a plan and start its workflow',
    description: 'Starts `maintenance-plan/<tenant>/<plan>` before the row commits: if Temporal is unreachable the answer is 503 and no plan exists.',
    tags: TAGS,
    auth: 'user',
    permission: 'manage_maintenance',
    body: createPlanBody,
    responses: { 201: { description: 'Created plan', schema: planSchema }, 403: { description: 'Plan limit reached' }, 503: { description: 'Temporal unreachable' } },
    handler: async (ctx, { body }) => {
      const { tenantId, userId } = userOf(ctx);
      const row = await createPlan(planDeps(ctx), { ...unitContextOf(ctx, tenantId), userId }, body);
      ctx.status = 201;
      ctx.body = toPlan(row);
    },
  });

  api.route<{ plan_id: string }>({
    method: 'get',
    path: '/plans/:plan_id',
    summary: 'Get a plan',
    tags: TAGS,
    auth: 'user',
    permission: 'view_maintenance',
    params: planParams,
    responses: { 200: { description: 'Plan', schema: planSchema }, 404: { description: 'Not found' } },
    handler: async (ctx, { params }) => {
      ctx.body = toPlan(await requirePlan(tenantScopeOf(ctx), params.plan_id));
    },
  });

  api.route<{ plan_id: string }, unknown, PlanBody>({
    method: 'put',
    path: '/plans/:plan_id',
    summary: 'Update the fields sent; a changed trigger or policy re-arms the running workflow',
    tags: TAGS,
    auth: 'user',
    permission: 'manage_maintenance',
    params: planParams,
    body: updatePlanBody,
    responses: { 200: { description: 'Updated plan', schema: planSchema }, 404: { description: 'Not found' }, 503: { description: 'Temporal unreachable (nothing changed)' } },
    handler: async (ctx, { params, body }) => {
      ctx.body = toPlan(await updatePlan(planDeps(ctx), unitContextOf(ctx, userOf(ctx).tenantId), params.plan_id, body));
    },
  });

  api.route<{ plan_id: string }>({
    method: 'delete',
    path: '/plans/:plan_id',
    summary: 'Delete a plan: its workflow ends; its history and tasks are kept',
    tags: TAGS,
    auth: 'user',
    permission: 'manage_maintenance',
    params: planParams,
    responses: { 204: { description: 'Deleted' }, 404: { description: 'Not found' }, 503: { description: 'Temporal unreachable (nothing changed)' } },
    handler: async (ctx, { params }) => {
      await deletePlan(planDeps(ctx), unitContextOf(ctx, userOf(ctx).tenantId), params.plan_id);
      ctx.status = 204;
    },
  });
}

function registerPlanActions(api: ApiRouter): void {
  const executeResult = Joi.object({ task_id: Joi.string(), task_code: Joi.string(), next_due_at: Joi.string().isoDate().allow(null) });
  api.route<{ plan_id: string }>({
    method: 'post',
    path: '/plans/:plan_id/execute',
    summary: 'Generate the task now; floating plans move next_due_at, fixed ones do not',
    description:
      "The plan's workflow moves its schedule through a Workflow Update (with a deadline: Temporal unreachable or too slow gives 503 and no task), then the task is written. Allowed on a paused plan (the plan stays paused). A retry with the same `Idempotency-Key` header returns the first result; without the header, the same user's second execute of the plan within 60 seconds is taken as a retry and returns the first result too (send a new key to execute again at once). A retry after a 503 never advances the plan twice.",
    tags: TAGS,
    auth: 'user',
    permission: 'manage_maintenance',
    params: planParams,
    responses: {
      200: { description: 'The generated task', schema: executeResult },
      404: { description: 'Not found' },
      503: { description: 'Temporal unreachable or too slow: retry with the same Idempotency-Key' },
    },
    handler: async (ctx, { params }) => {
      const { tenantId, userId } = userOf(ctx);
      ctx.body = await executePlanNow(planDeps(ctx), { ...unitContextOf(ctx, tenantId), userId }, params.plan_id, idempotencyKeyOf(ctx));
    },
  });

  api.route<{ plan_id: string }>({
    method: 'get',
    path: '/plans/:plan_id/preview',
    summary: 'The task the next execution would generate (a workflow query; nothing is executed)',
    tags: TAGS,
    auth: 'user',
    permission: 'view_maintenance',
    params: planParams,
    responses: { 200: { description: 'Preview' }, 404: { description: 'Not found' } },
    handler: async (ctx, { params }) => {
      const { plan, preview, openTasks, nextTaskCode } = await previewPlan(planDeps(ctx), tenantScopeOf(ctx), params.plan_id);
      ctx.body = {
        plan_id: plan.id,
        status: preview.status,
        // What the due time would do given the open tasks now (a user's execute always creates).
        action_on_due: actionOnDue(plan.on_open_task, openTasks),
        open_tasks: openTasks,
        task: {
          task_code: nextTaskCode,
          task_code_reserved: false,
          title: plan.name,
          kind: plan.task_kind,
          asset_ids: plan.asset_ids,
          checklist: plan.checklist,
          assignee_id: plan.assignee_id,
          priority: plan.priority,
          estimated_minutes: plan.estimated_minutes,
          due_at: preview.due_at,
          trigger: preview.trigger,
        },
        due_projected: preview.projected,
        generate_at: preview.generate_at,
        notify_at: preview.notify_at,
        next_threshold: preview.next_threshold,
        counter_value: preview.counter_value,
      };
    },
  });

  api.route<{ plan_id: string }>({
    method: 'post',
    path: '/plans/:plan_id/test-notification',
    summary: "Send a test notification to the plan's recipients (notify.recipients and the assignee) now",
    tags: TAGS,
    auth: 'user',
    permission: 'manage_maintenance',
    params: planParams,
    responses: {
      202: { description: 'Queued for delivery; the answer says to whom and how' },
      404: { description: 'Not found' },
      422: { description: 'The plan has nobody to notify' },
    },
    handler: async (ctx, { params }) => {
      const queued = await sendTestNotification(ctx.deps, unitContextOf(ctx, userOf(ctx).tenantId), params.plan_id);
      ctx.status = 202;
      ctx.body = {
        notification_id: queued.notificationId,
        channel: 'email',
        via: ctx.deps.config.smtp.url ? 'smtp' : 'record',
        recipients: queued.recipients.map((r) => ({ user_id: r.user_id, email: r.email })),
        status: 'queued',
        delivery_started: queued.deliveryStarted,
      };
    },
  });

  for (const kind of ['pause', 'resume'] as const) {
    api.route<{ plan_id: string }>({
      method: 'post',
      path: `/plans/:plan_id/${kind}`,
      summary:
        kind === 'pause'
          ? 'Pause the plan (a signal): timers stop, next_due_at is kept; pausing twice is harmless'
          : 'Resume the plan (a signal): a next_due_at in the past is recalculated (fixed: next grid point; floating: now + interval); resuming twice is harmless',
      tags: TAGS,
      auth: 'user',
      permission: 'manage_maintenance',
      params: planParams,
      responses: {
        200: { description: 'The plan as its workflow now sees it', schema: planSchema },
        404: { description: 'Not found' },
        503: { description: 'Temporal unreachable (nothing changed)' },
      },
      handler: async (ctx, { params }) => {
        ctx.body = toPlan(await setPlanRunning(planDeps(ctx), unitContextOf(ctx, userOf(ctx).tenantId), params.plan_id, kind));
      },
    });
  }

  const readingSchema = Joi.object({
    id: Joi.string(),
    counter: Joi.string(),
    value: Joi.number(),
    source: Joi.string(),
    reset: Joi.boolean(),
    total: Joi.number(),
    thresholds_crossed: Joi.number(),
    task_id: Joi.string().allow(null),
    read_at: Joi.string().isoDate(),
  });
  api.route<{ plan_id: string }, unknown, { value: number; source: string; reset: boolean }>({
    method: 'post',
    path: '/plans/:plan_id/counter',
    summary: 'Record a counter reading (a Workflow Update); reaching the threshold executes the plan',
    description:
      'A value below the last one is refused (422 COUNTER_WENT_BACKWARDS) unless `reset: true` says the meter was reset. One reading that passes several thresholds executes once. `source` is free text (trimmed, at most 200 characters); the workflow history carries only a reference to it.',
    tags: TAGS,
    auth: 'user',
    permission: 'manage_maintenance',
    params: planParams,
    body: Joi.object({
      value: Joi.number().min(-1e15).max(1e15).required(),
      source: Joi.string().trim().min(1).max(200).pattern(ONE_LINE_TEXT).required().messages({ 'string.pattern.base': 'must be one line of text without control characters' }),
      reset: Joi.boolean().default(false),
    }),
    responses: {
      200: { description: 'The recorded reading and what it caused' },
      404: { description: 'Not found' },
      422: { description: 'Refused reading, or the plan has no counter' },
    },
    handler: async (ctx, { params, body }) => {
      const { counter, result: r } = await recordCounterReading(planDeps(ctx), tenantScopeOf(ctx), params.plan_id, {
        ...body,
        requestId: updateRequestId(ctx),
        origin: { requestId: ctx.state.requestId, actor: actorOf(ctx) },
      });
      ctx.body = {
        reading: { id: r.reading_id, counter, value: r.reading.value, source: body.source, reset: r.reading.reset, total: r.reading.total, read_at: r.reading.at },
        thresholds_crossed: r.thresholds_crossed,
        executed: r.execution?.outcome === 'created',
        execution: r.execution,
        next_threshold: r.next_threshold,
        next_due_at: r.next_due_at,
      };
    },
  });

  api.route<{ plan_id: string }, PageRequest>({
    method: 'get',
    path: '/plans/:plan_id/counter/history',
    summary: 'Counter readings of the plan, newest first',
    tags: TAGS,
    auth: 'user',
    permission: 'view_maintenance',
    params: planParams,
    query: Joi.object(pageQuery),
    responses: { 200: { description: 'A page of readings', schema: pageOf(readingSchema) }, 404: { description: 'Not found' } },
    handler: async (ctx, { params, query }) => {
      ctx.body = mapPage(await listCounterReadings(tenantScopeOf(ctx), params.plan_id, query), (r) => ({ ...r, read_at: isoTime(r.read_at) }));
    },
  });

  const executionSchema = Joi.object({
    execution_id: Joi.string(),
    task_id: Joi.string().allow(null),
    task_code: Joi.string().allow(null),
    trigger: Joi.string().valid('calendar', 'counter'),
    executed_at: Joi.string().isoDate(),
    executed_by: Joi.string().description('`system` or the id of the user'),
    outcome: Joi.string().valid('created', 'skipped').description('skipped: the previous task was still open (on_open_task: skip)'),
    due_at: Joi.string().isoDate().allow(null),
    kept_task_id: Joi.string().allow(null),
    thresholds_crossed: Joi.number().allow(null),
  });
  api.route<{ plan_id: string }, PageRequest>({
    method: 'get',
    path: '/plans/:plan_id/history',
    summary: 'Execution history of the plan, newest first',
    tags: TAGS,
    auth: 'user',
    permission: 'view_maintenance',
    params: planParams,
    query: Joi.object(pageQuery),
    responses: { 200: { description: 'A page of executions', schema: pageOf(executionSchema) }, 404: { description: 'Not found' } },
    handler: async (ctx, { params, query }) => {
      ctx.body = mapPage(await listExecutions(tenantScopeOf(ctx), params.plan_id, query), (r) => ({
        execution_id: r.execution_id,
        task_id: r.task_id,
        task_code: r.task_code,
        trigger: r.trigger,
        executed_at: isoTime(r.executed_at),
        executed_by: r.executed_by,
        outcome: r.outcome,
        due_at: isoTime(r.due_at),
        kept_task_id: r.kept_task_id,
        thresholds_crossed: r.thresholds_crossed,
      }));
    },
  });
}

export function maintenanceRoutes(): ApiRouter {
  const api = new ApiRouter('/api/v1/maintenance');
  registerComplianceRoute(api);
  registerTaskRoutes(api);
  registerPlanCrud(api);
  registerPlanActions(api);
  registerOptimizeRoutes(api);
  return api;
}
