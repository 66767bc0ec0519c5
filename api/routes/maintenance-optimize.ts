/**
 * `POST /plans/{id}/optimize` analyses the plan's last year (domain/maintenance/optimize.ts) and
 * stores the suggestions as a draft tied to the plan version it saw; `.../approve` applies the
 * suggestions' patches through the workflow (an Update, inside the approving transaction);
 * `.../reject` discards the draft. A draft older than the plan's last change cannot be approved.
 */
import Joi from '../../domain/joi';
import { Knex } from 'knex';
import { Queryable } from '../../db/knex';
import { lockPlan, PlanRow, policyOf, saveScheduleSnapshot } from '../../db/queries/maintenance';
import { pgArray } from '../../db/queries/pg-array';
import { tenantScope } from '../../db/tenant-scope';
import { analyzePlan, calendarPartOf, counterPartOf, estimateRatePerHour, sameTrigger, type OptimizeInput, type Suggestion, type Trigger } from '../../domain/maintenance';
import { applyOptimization } from '../../orchestration/maintenance';
import type { OptimizationResult } from '../../workflows/maintenance-plan';
import { userOf } from '../context';
import { AppError, invalidState, notFound } from '../errors';
import { actorOf, runMutation } from '../mutation';
import { ApiRouter } from '../route';
import { planDeps, planParams, planSchema, toPlan } from '../resources/maintenance';
import { callPlanWorkflow, requirePlan } from '../../services/maintenance';
import { idRef } from '../validation';
import { findOr404 } from '../find-or-404';
import { isoTime } from '../../domain/time';

const TAGS = ['maintenance'];
const DAY_MS = 86_400_000;
const PATCHABLE = ['frequency', 'counter_threshold', 'workload'] as const;
type PatchableKind = (typeof PATCHABLE)[number];

interface DraftRow {
  id: string;
  tenant_id: string;
  plan_id: string;
  plan_version: number;
  status: 'draft' | 'approved' | 'rejected';
  suggestions: Suggestion[];
  basis: Record<string, unknown>;
  created_at: Date;
  decided_at: Date | null;
  decided_by: string | null;
}

const draftSchema = Joi.object({
  id: Joi.string(),
  plan_id: Joi.string(),
  plan_version: Joi.number().integer(),
  status: Joi.string().valid('draft', 'approved', 'rejected'),
  suggestions: Joi.array().items(Joi.object().unknown(true)).description('kind, current, suggested, rationale, confidence, patch'),
  basis: Joi.object().unknown(true),
  created_at: Joi.string().isoDate(),
  decided_at: Joi.string().isoDate().allow(null),
});

function toDraft(row: DraftRow) {
  return {
    id: row.id,
    plan_id: row.plan_id,
    plan_version: row.plan_version,
    status: row.status,
    suggestions: row.suggestions,
    basis: row.basis,
    created_at: isoTime(row.created_at),
    decided_at: isoTime(row.decided_at),
  };
}

/** A location id of an asset: its building/floor/zone, when it has one. */
function locationId(location: { building?: string; floor?: number; zone?: string } | null): string | null {
  if (!location || (location.building === undefined && location.floor === undefined && location.zone === undefined)) return null;
  return [location.building ?? '', location.floor ?? '', location.zone ?? ''].join('/');
}

async function locationsOf(db: Queryable, tenantId: string, assetIds: string[]): Promise<Map<string, string>> {
  if (assetIds.length === 0) return new Map();
  const rows: Array<{ id: string; location: any }> = await db('assets').where({ tenant_id: tenantId }).whereIn('id', assetIds).select('id', 'location');
  const out = new Map<string, string>();
  for (const r of rows) {
    const id = locationId(r.location);
    if (id !== null) out.set(r.id, id);
  }
  return out;
}

/** Everything analyzePlan looks at, read from the tenant's tables. */
async function optimizeInput(db: Queryable, plan: PlanRow, now: Date): Promise<OptimizeInput> {
  const tenantId = plan.tenant_id;
  const since = new Date(now.getTime() - 365 * DAY_MS);
  const [tasks, corrective, failures, technicians, otherPlans, readings] = await Promise.all([
    db('maintenance_tasks').where({ tenant_id: tenantId, plan_id: plan.id }).where('due_at', '>=', since).select('due_at', 'completed_at', 'status'),
    plan.asset_ids.length
      ? db('maintenance_tasks')
          .where({ tenant_id: tenantId, kind: 'corrective' })
          .where('created_at', '>=', since)
          .whereRaw('asset_ids && ?::uuid[]', [pgArray(plan.asset_ids)])
          .select('asset_ids', 'created_at')
      : [],
    plan.asset_ids.length
      ? db('machine_events').where({ tenant_id: tenantId, severity: 'critical' }).where('ts', '>=', since).whereIn('asset_id', plan.asset_ids).select('asset_id', 'ts')
      : [],
    db('users as u')
      .where({ 'u.tenant_id': tenantId, 'u.role': 'technician', 'u.status': 'active' })
      .leftJoin('maintenance_tasks as t', function joinOpen() {
        this.on('t.assignee_id', 'u.id').andOn('t.tenant_id', 'u.tenant_id').andOnIn('t.status', ['open', 'in_progress']);
      })
      .groupBy('u.id')
      .select('u.id')
      .count({ open: 't.id' }),
    db('maintenance_plans').where({ tenant_id: tenantId, status: 'active' }).whereNull('deleted_at').whereNot('id', plan.id).select('id', 'trigger', 'asset_ids'),
    db('maintenance_counter_readings').where({ tenant_id: tenantId, plan_id: plan.id }).orderBy('read_at', 'desc').limit(20).select('read_at', 'total'),
  ]);
  const allAssets = [...new Set([...plan.asset_ids, ...otherPlans.flatMap((p: { asset_ids: string[] }) => p.asset_ids)])];
  const locations = await locationsOf(db, tenantId, allAssets);
  const locationIds = (ids: string[]) => [...new Set(ids.map((id) => locations.get(id)).filter((l): l is string => l !== undefined))];
  const points = readings.reverse().map((r: { read_at: Date; total: number }) => ({ at: isoTime(r.read_at), total: Number(r.total) }));
  return {
    now,
    plan: { id: plan.id, trigger: plan.trigger, assignee_id: plan.assignee_id, asset_ids: plan.asset_ids, location_ids: locationIds(plan.asset_ids) },
    tasks: tasks.map((t: { due_at: Date; completed_at: Date | null; status: any }) => ({ due_at: t.due_at, completed_at: t.completed_at, status: t.status })),
    asset_events: [
      ...corrective.map((c: { asset_ids: string[]; created_at: Date }) => ({ asset_id: c.asset_ids[0], occurred_at: c.created_at, kind: 'corrective' as const })),
      ...failures.map((f: { asset_id: string; ts: Date }) => ({ asset_id: f.asset_id, occurred_at: f.ts, kind: 'failure' as const })),
    ],
    technicians: (technicians as Array<{ id: string; open: string | number }>).map((t) => ({ id: t.id, open_tasks: Number(t.open) })),
    other_plans: otherPlans.map((p: { id: string; trigger: Trigger; asset_ids: string[] }) => ({
      id: p.id,
      trigger: p.trigger,
      asset_ids: p.asset_ids,
      location_ids: locationIds(p.asset_ids),
    })),
    counter_rate_per_hour: counterPartOf(plan.trigger) ? estimateRatePerHour(points, now) : null,
  };
}

/** The plan change of the chosen suggestions: calendar and counter parts merged, not overwritten. */
export function mergePatches(plan: Pick<PlanRow, 'trigger' | 'assignee_id'>, suggestions: Suggestion[]): { trigger: Trigger; assignee_id: string | null } {
  let trigger = plan.trigger;
  let assignee = plan.assignee_id;
  for (const s of suggestions) {
    if (!s.patch) continue;
    if (s.patch.assignee_id) assignee = s.patch.assignee_id;
    if (!s.patch.trigger) continue;
    const cal = calendarPartOf(s.patch.trigger);
    const cnt = counterPartOf(s.patch.trigger);
    if (s.kind === 'frequency' && cal)
      trigger = trigger.type === 'calendar_or_counter' ? { ...trigger, calendar: cal } : trigger.type === 'calendar' ? { type: 'calendar', ...cal } : trigger;
    if (s.kind === 'counter_threshold' && cnt)
      trigger = trigger.type === 'calendar_or_counter' ? { ...trigger, counter: cnt } : trigger.type === 'counter' ? { type: 'counter', ...cnt } : trigger;
  }
  return { trigger, assignee_id: assignee };
}

function lockDraft(tx: Knex.Transaction, tenantId: string, planId: string, draftId: string): Promise<DraftRow> {
  return findOr404('optimization draft', draftId, () => tx('maintenance_optimization_drafts').where({ tenant_id: tenantId, plan_id: planId, id: draftId }).forUpdate().first());
}

export function registerOptimizeRoutes(api: ApiRouter): void {
  const draftParams = Joi.object({ plan_id: idRef.required(), draft_id: idRef.required() });

  api.route<{ plan_id: string }>({
    method: 'post',
    path: '/plans/:plan_id/optimize',
    summary: 'Analyse the plan history and store a draft of suggestions (frequency, workload, route, counter_threshold)',
    tags: TAGS,
    auth: 'user',
    permission: 'manage_maintenance',
    params: planParams,
    responses: { 201: { description: 'The draft', schema: draftSchema }, 404: { description: 'Not found' } },
    handler: async (ctx, { params }) => {
      const { tenantId, userId } = userOf(ctx);
      const plan = await requirePlan(tenantScope(ctx.deps.db, tenantId), params.plan_id);
      const result = analyzePlan(await optimizeInput(ctx.deps.db, plan, new Date()));
      const draft = await runMutation(ctx, tenantId, actorOf(ctx), async (unit) => {
        const [row] = await unit.scope.insert('maintenance_optimization_drafts', {
          plan_id: plan.id,
          plan_version: plan.version,
          suggestions: JSON.stringify(result.suggestions),
          basis: JSON.stringify(result.basis),
          created_by: userId,
        });
        unit.audit({
          action: 'maintenance_plan.optimization_drafted',
          resourceType: 'maintenance_plan',
          resourceId: plan.id,
          details: { draft_id: row.id, kinds: result.suggestions.map((s) => s.kind) },
        });
        return row as DraftRow;
      });
      ctx.status = 201;
      ctx.body = toDraft(draft);
    },
  });

  api.route<{ plan_id: string; draft_id: string }>({
    method: 'get',
    path: '/plans/:plan_id/optimize/:draft_id',
    summary: 'Get an optimization draft',
    tags: TAGS,
    auth: 'user',
    permission: 'view_maintenance',
    params: draftParams,
    responses: { 200: { description: 'The draft', schema: draftSchema }, 404: { description: 'Not found' } },
    handler: async (ctx, { params }) => {
      const scope = tenantScope(ctx.deps.db, userOf(ctx).tenantId);
      const plan = await requirePlan(scope, params.plan_id);
      const row = await findOr404('optimization draft', params.draft_id, () =>
        scope.table('maintenance_optimization_drafts').where({ plan_id: plan.id, id: params.draft_id }).first(),
      );
      ctx.body = toDraft(row);
    },
  });

  api.route<{ plan_id: string; draft_id: string }, unknown, { kinds?: PatchableKind[] }>({
    method: 'post',
    path: '/plans/:plan_id/optimize/:draft_id/approve',
    summary: "Apply the draft's suggestions to the plan (through its workflow); 409 when the plan changed since the draft",
    description: 'Body (optional): `{"kinds": ["frequency", ...]}` applies only those kinds. Route suggestions concern several plans and change none.',
    tags: TAGS,
    auth: 'user',
    permission: 'manage_maintenance',
    params: draftParams,
    body: Joi.object({
      kinds: Joi.array()
        .items(Joi.string().valid(...PATCHABLE))
        .unique(),
    }),
    responses: {
      200: { description: 'The approved draft and the plan', schema: Joi.object({ draft: draftSchema, plan: planSchema }) },
      404: { description: 'Not found' },
      409: { description: 'The draft is older than the last change of the plan (STALE_DRAFT), or already decided' },
    },
    handler: async (ctx, { params, body }) => {
      const { tenantId, userId } = userOf(ctx);
      await requirePlan(tenantScope(ctx.deps.db, tenantId), params.plan_id);
      let applied: { plan: PlanRow; result: OptimizationResult | null } | null = null;
      const draft = await runMutation(ctx, tenantId, actorOf(ctx), async (unit) => {
        const plan = await lockPlan(unit.tx, tenantId, params.plan_id);
        if (!plan || plan.deleted_at) throw notFound('maintenance plan');
        const row = await lockDraft(unit.tx, tenantId, plan.id, params.draft_id);
        if (row.status !== 'draft') throw invalidState(`the draft is already ${row.status}`);
        if (row.plan_version !== plan.version) {
          throw new AppError(
            'STALE_DRAFT',
            `the plan changed after this draft (draft of version ${row.plan_version}, plan at version ${plan.version}); request a new draft`,
            { plan_version: plan.version, draft_plan_version: row.plan_version },
            409,
          );
        }
        const chosen = row.suggestions.filter((s) => s.patch !== null && (!body.kinds || body.kinds.includes(s.kind as PatchableKind)));
        const patch = mergePatches(plan, chosen);
        const triggerChanged = !sameTrigger(plan.trigger, patch.trigger);
        const changed = triggerChanged || patch.assignee_id !== plan.assignee_id;
        let updated = plan;
        if (changed) {
          [updated] = await unit.scope
            .table('maintenance_plans')
            .where('id', plan.id)
            .update({ trigger: JSON.stringify(patch.trigger), assignee_id: patch.assignee_id, version: plan.version + 1, updated_at: new Date() })
            .returning('*');
        }
        const [decided] = await unit
          .tx('maintenance_optimization_drafts')
          .where({ id: row.id })
          .update({ status: 'approved', decided_at: new Date(), decided_by: userId })
          .returning('*');
        unit.audit({
          action: 'maintenance_plan.optimization_approved',
          resourceType: 'maintenance_plan',
          resourceId: plan.id,
          details: { draft_id: row.id, kinds: chosen.map((s) => s.kind), version: updated.version },
        });
        // Inside the transaction: if the workflow cannot take the new trigger, nothing is approved.
        const result = triggerChanged
          ? await callPlanWorkflow(planDeps(ctx), updated, (c) =>
              applyOptimization(c, tenantId, plan.id, { requestId: `optimize:${row.id}`, version: updated.version, policy: policyOf(updated) }),
            )
          : null;
        applied = { plan: updated, result };
        return decided as DraftRow;
      });
      const done = applied as { plan: PlanRow; result: OptimizationResult | null } | null;
      if (done?.result) await saveScheduleSnapshot(ctx.deps.db, tenantId, done.plan.id, done.result.snapshot);
      const plan = await requirePlan(tenantScope(ctx.deps.db, tenantId), params.plan_id);
      ctx.body = { draft: toDraft(draft), plan: toPlan(plan) };
    },
  });

  api.route<{ plan_id: string; draft_id: string }>({
    method: 'post',
    path: '/plans/:plan_id/optimize/:draft_id/reject',
    summary: 'Discard an optimization draft',
    tags: TAGS,
    auth: 'user',
    permission: 'manage_maintenance',
    params: draftParams,
    responses: { 200: { description: 'The rejected draft', schema: draftSchema }, 404: { description: 'Not found' }, 409: { description: 'Already decided' } },
    handler: async (ctx, { params }) => {
      const { tenantId, userId } = userOf(ctx);
      const draft = await runMutation(ctx, tenantId, actorOf(ctx), async (unit) => {
        const plan = await requirePlan(unit.scope, params.plan_id);
        const row = await lockDraft(unit.tx, tenantId, plan.id, params.draft_id);
        if (row.status !== 'draft') throw invalidState(`the draft is already ${row.status}`);
        const [decided] = await unit
          .tx('maintenance_optimization_drafts')
          .where({ id: row.id })
          .update({ status: 'rejected', decided_at: new Date(), decided_by: userId })
          .returning('*');
        unit.audit({ action: 'maintenance_plan.optimization_rejected', resourceType: 'maintenance_plan', resourceId: plan.id, details: { draft_id: row.id } });
        return decided as DraftRow;
      });
      ctx.body = toDraft(draft);
    },
  });
}
