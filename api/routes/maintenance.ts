/**
 * `/api/v1/maintenance`: preventive maintenance plans, each driven by its long-running workflow
 * `maintenance-plan/<tenant>/<plan>` (workflows/maintenance-plan.ts). The plan row is the
 * definition and a read model of the schedule; the workflow owns the schedule. Pause and resume
 * are signals, execute and counter readings Updates whose results the calls return, preview a
 * query. Tasks, compliance and optimize live in their own modules.
 *
 * Create order: the row is inserted in a transaction, the workflow is started, and only then the
 * transaction commits. Temporal down → the start fails → rollback → 503 and no row. A crash after
 * the start and before the commit leaves a workflow without a row: its first activity finds no
 * plan and it ends itself (PlanNotFound). The reverse gap (a row without a workflow: a workflow
 * terminated by hand) is repaired by the worker's reconciler and by any call that finds it missing.
 *
 * Execute and counter readings are audited by the workflow's activity, in the transaction that
 * makes the task (the change happens there, not in the API).
 */
import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import Joi from '../../domain/joi';
import { Knex } from 'knex';
import { insertNotification } from '../../db/notifications';
import { countOpenTasks, lockPlan, peekTaskCode, planNotificationText, planRecipients, PlanRow, policyOf, saveScheduleSnapshot } from '../../db/queries/maintenance';
import { isUuid, tenantScope } from '../../db/tenant-scope';
import { actionOnDue, counterPartOf, sameTrigger } from '../../domain/maintenance';
import { startNotificationDelivery } from '../../orchestration/notifications';
import {
  executePlan,
  implicitExecuteRequestId,
  lockPlanForManualExecution,
  recentManualExecution,
  recordManualExecution,
  planHandle,
  queryPlanPreview,
  queryPlanState,
  recordCounter,
  signalPlan,
  startPlanWorkflow,
  workflowStateOf,
  type PlanSignal,
} from '../../orchestration/maintenance';
import { snapshotOf } from '../../workflows/maintenance-plan-state';
import { AppContext, userOf } from '../context';
import { AppError, dependencyUnavailable, notFound, errorSummary } from '../errors';
import { actorOf, runMutation } from '../mutation';
import { pageQuery, paginate, PageRequest, pageOf } from '../pagination';
import { assertWithinPlanLimit } from '../plan-limits';
import { ApiRouter } from '../route';
import {
  callPlanWorkflow,
  checkReferences,
  createPlanBody,
  PlanBody,
  planColumns,
  planParams,
  planSchema,
  requirePlan,
  saveView,
  temporalClient,
  toPlan,
  updatePlanBody,
  idempotencyKeyOf,
  updateRequestId,
} from '../resources/maintenance';
import { registerOptimizeRoutes } from './maintenance-optimize';
import { registerComplianceRoute, registerTaskRoutes } from './maintenance-tasks';
import { idRef } from '../validation';
import { counterSourceRef } from '../../db/queries/counter-sources';
import { isoTime } from '../../domain/time';

// eslint-disable-next-line no-control-regex -- control characters are what this refuses
const ONE_LINE_TEXT = /^[^\u0000-\u001f\u007f]*$/;
const TAGS = ['maintenance'];

const countLivePlans = (tenantId: string) => async (tx: Knex.Transaction) => {
  const [{ count }] = await tx('maintenance_plans').where({ tenant_id: tenantId }).whereNull('deleted_at').count({ count: '*' });
  return Number(count);
};

/** Sends a signal inside the caller's transaction: Temporal down → 503 and the change rolls back. */
async function signalOrFail(client: Client, plan: PlanRow, signal: PlanSignal): Promise<void> {
  try {
    await signalPlan(client, plan.tenant_id, plan.id, signal);
  } catch (err) {
    // An archive of a workflow that is already gone has nothing left to do.
    if (signal.kind === 'archive' && (err as Error).name === 'WorkflowNotFoundError') return;
    throw dependencyUnavailable('temporal', `could not signal the plan's workflow: ${errorSummary(err)}`);
  }
}

/** After a signal: the workflow's state (a query sees the signal) written to the row, and the row answered. */
async function answerWithState(ctx: AppContext, plan: PlanRow) {
  const view = await callPlanWorkflow(ctx, plan, (c) => queryPlanState(c, plan.tenant_id, plan.id));
  await saveView(ctx.deps.db, plan, view);
  const row = await requirePlan(tenantScope(ctx.deps.db, plan.tenant_id), plan.id);
  return toPlan(row);
}

async function lockLivePlan(tx: Knex.Transaction, tenantId: string, planId: string): Promise<PlanRow> {
  const row = await lockPlan(tx, tenantId, planId);
  if (!row || row.deleted_at !== null) throw notFound('maintenance plan');
  return row;
}

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
      const q = tenantScope(ctx.deps.db, userOf(ctx).tenantId)
        .table('maintenance_plans')
        .whereNull('deleted_at')
        .orderBy([{ column: 'created_at' }, { column: 'id' }]);
      if (query.status) q.where('status', query.status);
      if (query.asset_id) {
        if (isUuid(query.asset_id)) q.whereRaw('asset_ids @> array[?]::uuid[]', [query.asset_id]);
        else q.whereRaw('false');
      }
      ctx.body = await paginate(q, query, toPlan);
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
      const client = await temporalClient(ctx);
      let started: { planId: string } | null = null;
      try {
        const row = await runMutation(ctx, tenantId, actorOf(ctx), async (unit) => {
          await checkReferences(unit.scope, body);
          await assertWithinPlanLimit(unit.tx, tenantId, 'maintenance_plans', countLivePlans(tenantId));
          const id = randomUUID();
          const [inserted] = await unit.scope.insert('maintenance_plans', { ...planColumns(body), id, created_by: userId });
          const state = workflowStateOf(inserted, new Date());
          const snapshot = snapshotOf(state, new Date());
          await saveScheduleSnapshot(unit.tx, tenantId, id, snapshot);
          unit.audit({ action: 'maintenance_plan.created', resourceType: 'maintenance_plan', resourceId: id, details: { fields: Object.keys(body) } });
          try {
            await startPlanWorkflow(client, state);
          } catch (err) {
            throw dependencyUnavailable('temporal', `could not start the plan's workflow: ${errorSummary(err)}`);
          }
          started = { planId: id };
          return (await unit.scope.table('maintenance_plans').where('id', id).first()) as PlanRow;
        });
        ctx.status = 201;
        ctx.body = toPlan(row);
      } catch (err) {
        // The workflow runs but its row did not commit: stop it rather than leave it to time out.
        const orphan = started as { planId: string } | null;
        if (orphan)
          await planHandle(client, tenantId, orphan.planId)
            .terminate('plan creation rolled back')
            .catch(() => undefined);
        throw err;
      }
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
      ctx.body = toPlan(await requirePlan(tenantScope(ctx.deps.db, userOf(ctx).tenantId), params.plan_id));
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
      const { tenantId } = userOf(ctx);
      const client = await temporalClient(ctx);
      const { row, signalled } = await runMutation(ctx, tenantId, actorOf(ctx), async (unit) => {
        const plan = await lockLivePlan(unit.tx, tenantId, params.plan_id);
        await checkReferences(unit.scope, body);
        const [updated]: PlanRow[] = await unit.scope
          .table('maintenance_plans')
          .where('id', plan.id)
          .update({ ...planColumns(body), version: plan.version + 1, updated_at: new Date() })
          .returning('*');
        unit.audit({ action: 'maintenance_plan.updated', resourceType: 'maintenance_plan', resourceId: plan.id, details: { fields: Object.keys(body), version: updated.version } });
        const before = policyOf(plan);
        const after = policyOf(updated);
        const policyChanged =
          !sameTrigger(before.trigger, after.trigger) ||
          before.on_open_task !== after.on_open_task ||
          before.generate_ahead !== after.generate_ahead ||
          JSON.stringify(before.notify) !== JSON.stringify(after.notify);
        // Before the commit: if the workflow cannot hear of it, the edit does not happen.
        if (policyChanged) await signalOrFail(client, updated, { kind: 'planChanged', change: { version: updated.version, policy: after } });
        return { row: updated, signalled: policyChanged };
      });
      ctx.body = signalled ? await answerWithState(ctx, row) : toPlan(row);
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
      const { tenantId } = userOf(ctx);
      const client = await temporalClient(ctx);
      await runMutation(ctx, tenantId, actorOf(ctx), async (unit) => {
        const plan = await lockLivePlan(unit.tx, tenantId, params.plan_id);
        const now = new Date();
        await unit.scope
          .table('maintenance_plans')
          .where('id', plan.id)
          .update({ status: 'archived', deleted_at: now, updated_at: now, next_due_at: null, version: plan.version + 1 });
        unit.audit({ action: 'maintenance_plan.deleted', resourceType: 'maintenance_plan', resourceId: plan.id });
        await signalOrFail(client, plan, { kind: 'archive' });
      });
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
      const plan = await requirePlan(tenantScope(ctx.deps.db, tenantId), params.plan_id);
      const explicitKey = idempotencyKeyOf(ctx);
      if (!explicitKey) {
        const earlier = await recentManualExecution(ctx.deps.db, plan, userId);
        if (earlier) {
          await runMutation(ctx, tenantId, actorOf(ctx), async (unit) => {
            unit.audit({
              action: 'maintenance_plan.execute_repeated',
              resourceType: 'maintenance_plan',
              resourceId: plan.id,
              details: { task_id: earlier.task_id, execution_id: earlier.execution_id },
            });
          });
          ctx.body = { task_id: earlier.task_id, task_code: earlier.task_code, next_due_at: earlier.next_due_at };
          return;
        }
      }
      const request = { requestId: explicitKey ?? implicitExecuteRequestId(plan, userId), userId, taskId: randomUUID(), at: new Date() };
      // The Update first, with no transaction open: no row lock waits on Temporal.
      const answered = await callPlanWorkflow(ctx, plan, (c) =>
        executePlan(c, tenantId, plan.id, { requestId: request.requestId, executedBy: userId, taskId: request.taskId, dueAt: request.at.toISOString() }),
      );
      const result = await runMutation(ctx, tenantId, actorOf(ctx), async (unit) => {
        // The lock reads the request's earlier execution too, and the writes are one statement:
        // this transaction was 12 sequential round trips, now 7 (3 of them the audit's).
        const locked = await lockPlanForManualExecution(unit.tx, tenantId, plan.id, request.requestId);
        if (!locked || locked.plan.deleted_at !== null) throw notFound('maintenance plan');
        const done = await recordManualExecution(unit.tx, locked.plan, request, answered, locked.earlier);
        const action = done.repeated ? 'maintenance_plan.execute_repeated' : 'maintenance_plan.executed';
        unit.audit({ action, resourceType: 'maintenance_plan', resourceId: plan.id, details: { task_id: done.task_id, execution_id: done.execution_id } });
        return done;
      });
      ctx.body = { task_id: result.task_id, task_code: result.task_code, next_due_at: result.next_due_at };
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
      const { tenantId } = userOf(ctx);
      const plan = await requirePlan(tenantScope(ctx.deps.db, tenantId), params.plan_id);
      const [preview, open, code] = await Promise.all([
        callPlanWorkflow(ctx, plan, (c) => queryPlanPreview(c, tenantId, plan.id)),
        countOpenTasks(ctx.deps.db, tenantId, plan.id),
        peekTaskCode(ctx.deps.db, tenantId, plan.task_prefix),
      ]);
      ctx.body = {
        plan_id: plan.id,
        status: preview.status,
        // What the due time would do given the open tasks now (a user's execute always creates).
        action_on_due: actionOnDue(plan.on_open_task, open.count),
        open_tasks: open.count,
        task: {
          task_code: code,
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
      const { tenantId } = userOf(ctx);
      const plan = await requirePlan(tenantScope(ctx.deps.db, tenantId), params.plan_id);
      const recipients = await planRecipients(ctx.deps.db, plan);
      if (recipients.length === 0) {
        throw new AppError('PLAN_HAS_NO_RECIPIENTS', 'the plan has no active recipient: set notify.recipients or assignee_id', {}, 422);
      }
      const queued = await runMutation(ctx, tenantId, actorOf(ctx), async (unit) => {
        const row = await insertNotification(unit.tx, {
          tenantId,
          category: 'maintenance.test',
          recipients: recipients.map((r) => r.email),
          ...planNotificationText(plan, 'test', isoTime(plan.next_due_at)),
        });
        unit.audit({
          action: 'maintenance_plan.test_notification',
          resourceType: 'maintenance_plan',
          resourceId: plan.id,
          details: { notification_id: row.id, recipients: recipients.map((r) => r.user_id) },
        });
        return row;
      });
      // The row is committed: if the start fails now, the worker's reconciler delivers it later.
      const started = await startNotificationDelivery(ctx.deps.temporal, tenantId, queued.id).then(
        () => true,
        () => false,
      );
      ctx.status = 202;
      ctx.body = {
        notification_id: queued.id,
        channel: 'email',
        via: ctx.deps.config.smtp.url ? 'smtp' : 'record',
        recipients: recipients.map((r) => ({ user_id: r.user_id, email: r.email })),
        status: 'queued',
        delivery_started: started,
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
        const { tenantId } = userOf(ctx);
        const client = await temporalClient(ctx);
        const target = kind === 'pause' ? 'paused' : 'active';
        const plan = await runMutation(ctx, tenantId, actorOf(ctx), async (unit) => {
          const row = await lockLivePlan(unit.tx, tenantId, params.plan_id);
          const changed = row.status !== target;
          if (changed) {
            await unit.scope.table('maintenance_plans').where('id', row.id).update({ status: target, updated_at: new Date() });
            unit.emit(kind === 'pause' ? 'maintenance.plan.paused' : 'maintenance.plan.resumed', { plan_id: row.id });
          }
          unit.audit({ action: `maintenance_plan.${kind}d`, resourceType: 'maintenance_plan', resourceId: row.id, details: { changed } });
          // Signalled even when unchanged: it costs nothing and heals a workflow that drifted.
          await signalOrFail(client, row, { kind });
          return row;
        });
        ctx.body = await answerWithState(ctx, plan);
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
      const { tenantId } = userOf(ctx);
      const plan = await requirePlan(tenantScope(ctx.deps.db, tenantId), params.plan_id);
      const part = counterPartOf(plan.trigger);
      if (!part) throw new AppError('PLAN_HAS_NO_COUNTER', 'the plan has no counter trigger', {}, 422);
      // Free text stays in PostgreSQL; the Update (and so the history) carries its reference.
      const sourceRef = await counterSourceRef(ctx.deps.db, tenantId, body.source);
      const r = await callPlanWorkflow(ctx, plan, (c) =>
        recordCounter(c, tenantId, plan.id, {
          requestId: updateRequestId(ctx),
          value: body.value,
          source: sourceRef,
          reset: body.reset,
          origin: { requestId: ctx.state.requestId, actor: actorOf(ctx) },
        }),
      );
      ctx.body = {
        reading: { id: r.reading_id, counter: part.counter, value: r.reading.value, source: body.source, reset: r.reading.reset, total: r.reading.total, read_at: r.reading.at },
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
      const scope = tenantScope(ctx.deps.db, userOf(ctx).tenantId);
      const plan = await requirePlan(scope, params.plan_id);
      const q = scope
        .table('maintenance_counter_readings')
        .where('plan_id', plan.id)
        .orderBy([
          { column: 'read_at', order: 'desc' },
          { column: 'created_at', order: 'desc' },
        ])
        .select('id', 'counter', 'value', 'source', 'reset', 'total', 'thresholds_crossed', 'task_id', 'read_at');
      ctx.body = await paginate(q, query, (r: any) => ({ ...r, read_at: isoTime(r.read_at) }));
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
      const scope = tenantScope(ctx.deps.db, userOf(ctx).tenantId);
      const plan = await requirePlan(scope, params.plan_id);
      const q = scope
        .table('maintenance_executions')
        .leftJoin('maintenance_tasks as t', 't.id', 'maintenance_executions.task_id')
        .where('maintenance_executions.plan_id', plan.id)
        .orderBy([
          { column: 'maintenance_executions.executed_at', order: 'desc' },
          { column: 'maintenance_executions.execution_id', order: 'desc' },
        ])
        .select('maintenance_executions.*', 't.task_code');
      ctx.body = await paginate(q, query, (r: any) => ({
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
