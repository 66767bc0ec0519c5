/**
 * `/api/v1/maintenance`: preventive maintenance plans, each driven by its long-running workflow
 * `maintenance-plan/<tenant>/<plan>` (workflows/maintenance-plan.ts). The plan row is the
 * definition and a read model of the schedule; the workflow owns the schedule. Pause and resume
 * are signals, execute and counter readings Updates whose results the calls return, preview a
 * query. Tasks, compliance and optimize live in their own modules.
 *
 * Create order (services/maintenance.ts): the row is inserted in a transaction, the workflow is
 * started (within the call deadline), and only then the transaction commits. Pause, resume and
 * delete signal first and then write the row in a short transaction; update commits first and then
 * signals the new version: no row lock waits on Temporal. Temporal down → the start fails → rollback →
 * 503 and no row. A crash after the start and before the commit leaves a workflow without a row:
 * its first activity finds no plan and it ends itself (PlanNotFound). The reverse gap (a row
 * without a workflow: a workflow terminated by hand) is repaired by the worker's reconciler and by
 * any call that finds it missing.
 *
 * Execute and counter readings are audited by the workflow's activity, in the transaction that
 * makes the task (the change happens there, not in the API).
 */
import Joi from '../../domain/joi';
import { temporalUnavailableResponse } from '../../orchestration/temporal-call';
import { actionOnDue } from '../../domain/maintenance';
import type { PlanRow } from '../../db/queries/maintenance';
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
import { tenantScopeOf } from '../context';
import { actorOf, userUnitContextOf } from '../mutation';
import { mapPage, PageRequest } from '../../db/pagination';
import { pageQuery, pageOf } from '../pagination';
import { resourceRoutes } from '../resource-routes';
import { ApiRouter } from '../route';
import {
  createPlanBody,
  evidenceSchema,
  idempotencyKeyOf,
  PlanBody,
  planDeps,
  planParams,
  PlanRoutes,
  planSchema,
  toPlan,
  updatePlanBody,
  updateRequestId,
} from '../resources/maintenance';
import { registerOptimizeRoutes } from './maintenance-optimize';
import { registerComplianceRoute, registerTaskRoutes } from './maintenance-tasks';
import { idRef } from '../validation';
import { isoTime } from '../../domain/time';

// eslint-disable-next-line no-control-regex -- control characters are what this refuses
const ONE_LINE_TEXT = /^[^\u0000-\u001f\u007f]*$/;
const TAGS = ['maintenance'];

/** The plan's routes: its standard ones and the actions on one plan. */

function registerPlanCrud(plans: PlanRoutes): void {
  plans.list<{ status?: string; asset_id?: string }>({
    summary: 'List maintenance plans',
    found: 'A page of plans',
    query: { status: Joi.string().valid('active', 'paused'), asset_id: idRef },
    load: (scope, query) => listPlans(scope, query, query),
  });
  plans.create<PlanBody>(
    {
      summary: 'Create a plan and start its workflow',
      description: 'Starts `maintenance-plan/<tenant>/<plan>` before the row commits: if Temporal is unreachable the answer is 503 and no plan exists.',
      body: createPlanBody,
      created: 'Created plan',
      responses: { 403: { description: 'Plan limit reached' }, 503: temporalUnavailableResponse('no plan was created') },
    },
    (ctx, body) => {
      return createPlan(planDeps(ctx), userUnitContextOf(ctx), body);
    },
  );
  plans.get({ summary: 'Get a plan', found: 'Plan' });
  plans.update<PlanBody>(
    {
      summary: 'Update the fields sent; a changed trigger or policy re-arms the running workflow',
      body: updatePlanBody,
      updated: 'Updated plan',
      responses: { 503: temporalUnavailableResponse('the change is saved but the schedule has not taken it yet: send it again') },
    },
    (ctx, id, body) => updatePlan(planDeps(ctx), userUnitContextOf(ctx), id, body),
  );
  plans.remove({ summary: 'Delete a plan: its workflow ends; its history and tasks are kept', responses: { 503: temporalUnavailableResponse('nothing changed') } }, (ctx, id) =>
    deletePlan(planDeps(ctx), userUnitContextOf(ctx), id),
  );
}

function registerPlanActions(plans: PlanRoutes): void {
  const executeResult = Joi.object({ task_id: Joi.string(), task_code: Joi.string(), next_due_at: Joi.string().isoDate().allow(null) });
  plans.route({
    method: 'post',
    sub: 'execute',
    summary: 'Generate the task now; floating plans move next_due_at, fixed ones do not',
    description:
      "The plan's workflow moves its schedule through a Workflow Update (with a deadline: Temporal unreachable or too slow gives 503 and no task), then the task is written. Allowed on a paused plan (the plan stays paused). Every call without an `Idempotency-Key` header generates a task of its own (two calls, two tasks). A retry with the same `Idempotency-Key` returns the first result and generates nothing, and a retry with that key after a 503 never advances the plan twice: send a key whenever a call may be retried.",
    access: 'manage',
    responses: {
      200: { description: 'The generated task', schema: executeResult },
      503: { description: 'Temporal unreachable or too slow: no task was written; a retry with the same Idempotency-Key is applied once' },
    },
    handler: async (ctx, { params }) => {
      ctx.body = await executePlanNow(planDeps(ctx), userUnitContextOf(ctx), params.plan_id, idempotencyKeyOf(ctx));
    },
  });

  plans.route({
    method: 'get',
    sub: 'preview',
    summary: 'The task the next execution would generate (a workflow query; nothing is executed)',
    access: 'view',
    responses: { 200: { description: 'Preview' } },
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
        // A predictive plan: the forecasts its projected due time comes from (absent in runs of older workers).
        forecasts: preview.forecasts ?? [],
      };
    },
  });

  plans.route({
    method: 'post',
    sub: 'test-notification',
    summary: "Send a test notification to the plan's recipients (notify.recipients and the assignee) now",
    access: 'manage',
    responses: {
      202: { description: 'Queued for delivery; the answer says to whom and how' },
      422: { description: 'The plan has nobody to notify' },
    },
    handler: async (ctx, { params }) => {
      const queued = await sendTestNotification(ctx.deps, userUnitContextOf(ctx), params.plan_id);
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
    plans.route({
      method: 'post',
      sub: kind,
      summary:
        kind === 'pause'
          ? 'Pause the plan (a signal): timers stop, next_due_at is kept; pausing twice is harmless'
          : 'Resume the plan (a signal): a next_due_at in the past is recalculated (fixed: next grid point; floating: now + interval); resuming twice is harmless',
      access: 'manage',
      responses: {
        200: { description: 'The plan as its workflow now sees it', schema: planSchema },
        503: temporalUnavailableResponse('nothing changed'),
      },
      handler: async (ctx, { params }) => {
        ctx.body = toPlan(await setPlanRunning(planDeps(ctx), userUnitContextOf(ctx), params.plan_id, kind));
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
  plans.route<Record<string, string>, unknown, { value: number; source: string; reset: boolean }>({
    method: 'post',
    sub: 'counter',
    summary: 'Record a counter reading (a Workflow Update); reaching the threshold executes the plan',
    description:
      'A value below the last one is refused (422 COUNTER_WENT_BACKWARDS) unless `reset: true` says the meter was reset. One reading that passes several thresholds executes once. `source` is free text (trimmed, at most 200 characters); the workflow history carries only a reference to it.',
    access: 'manage',
    body: Joi.object({
      value: Joi.number().min(-1e15).max(1e15).required(),
      source: Joi.string().trim().min(1).max(200).pattern(ONE_LINE_TEXT).required().messages({ 'string.pattern.base': 'must be one line of text without control characters' }),
      reset: Joi.boolean().default(false),
    }),
    responses: {
      200: { description: 'The recorded reading and what it caused' },
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

  plans.route<Record<string, string>, PageRequest>({
    method: 'get',
    sub: 'counter/history',
    summary: 'Counter readings of the plan, newest first',
    access: 'view',
    query: Joi.object(pageQuery),
    responses: { 200: { description: 'A page of readings', schema: pageOf(readingSchema) } },
    handler: async (ctx, { params, query }) => {
      ctx.body = mapPage(await listCounterReadings(tenantScopeOf(ctx), params.plan_id, query), (r) => ({ ...r, read_at: isoTime(r.read_at) }));
    },
  });

  const executionSchema = Joi.object({
    execution_id: Joi.string(),
    task_id: Joi.string().allow(null),
    task_code: Joi.string().allow(null),
    trigger: Joi.string().valid('calendar', 'counter').description('Calendar or counter executions; left out when `cause` is another trigger (API 1.x keeps these two values)'),
    // No enum: a trigger added later (condition, then predictive) must not break a client generated from 1.0.0.
    cause: Joi.string().description('What made the plan due: `calendar`, `counter`, `condition` or `predictive` (the last two with their `evidence`)'),
    evidence: evidenceSchema,
    executed_at: Joi.string().isoDate(),
    executed_by: Joi.string().description('`system` or the id of the user'),
    outcome: Joi.string().valid('created', 'skipped').description('skipped: the previous task was still open (on_open_task: skip)'),
    due_at: Joi.string().isoDate().allow(null),
    kept_task_id: Joi.string().allow(null),
    thresholds_crossed: Joi.number().allow(null),
  });
  plans.route<Record<string, string>, PageRequest>({
    method: 'get',
    sub: 'history',
    summary: 'Execution history of the plan, newest first',
    access: 'view',
    query: Joi.object(pageQuery),
    responses: { 200: { description: 'A page of executions', schema: pageOf(executionSchema) } },
    handler: async (ctx, { params, query }) => {
      ctx.body = mapPage(await listExecutions(tenantScopeOf(ctx), params.plan_id, query), (r) => ({
        execution_id: r.execution_id,
        task_id: r.task_id,
        task_code: r.task_code,
        ...(r.trigger === 'calendar' || r.trigger === 'counter' ? { trigger: r.trigger } : {}),
        cause: r.trigger,
        evidence: r.evidence,
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
  const plans = resourceRoutes<PlanRow>(api, {
    path: '/plans/:plan_id',
    params: planParams,
    tags: TAGS,
    view: 'view_maintenance',
    manage: 'manage_maintenance',
    schema: planSchema,
    find: requirePlan,
    present: toPlan,
  });
  registerComplianceRoute(api);
  registerTaskRoutes(api);
  registerPlanCrud(plans);
  registerPlanActions(plans);
  registerOptimizeRoutes(plans);
  return api;
}
