/**
 * `POST /plans/{id}/optimize` drafts suggestions from the plan's last year, `.../approve` applies
 * them through the plan's workflow, `.../reject` discards them (services/maintenance-optimize.ts).
 */
import Joi from '../../domain/joi';
import { temporalUnavailableResponse } from '../../orchestration/temporal-call';
import type { DraftRow } from '../../db/queries/maintenance-optimize';
import { approveDraft, draftOptimization, getDraft, mergePatches, PATCHABLE, PatchableKind, rejectDraft } from '../../services/maintenance-optimize';
import { tenantScopeOf, userOf } from '../context';
import { userUnitContextOf } from '../mutation';
import { inUserUnit } from '../resource-routes';
import { planDeps, PlanRoutes, planSchema, toPlan } from '../resources/maintenance';
import { idRef } from '../validation';
import { isoTime } from '../../domain/time';

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

// The plan-workflow state test imports the merge from here.
export { mergePatches };

export function registerOptimizeRoutes(plans: PlanRoutes): void {
  const draftParams = Joi.object({ plan_id: idRef.required(), draft_id: idRef.required() });

  plans.route({
    method: 'post',
    sub: 'optimize',
    summary: 'Analyse the plan history and store a draft of suggestions (frequency, workload, route, counter_threshold)',
    access: 'manage',
    responses: { 201: { description: 'The draft', schema: draftSchema } },
    handler: async (ctx, { params }) => {
      const draft = await inUserUnit(ctx, (unit) => draftOptimization(unit, userOf(ctx).userId, params.plan_id));
      ctx.status = 201;
      ctx.body = toDraft(draft);
    },
  });

  plans.route({
    method: 'get',
    sub: 'optimize/:draft_id',
    summary: 'Get an optimization draft',
    access: 'view',
    params: draftParams,
    responses: { 200: { description: 'The draft', schema: draftSchema } },
    handler: async (ctx, { params }) => {
      ctx.body = toDraft(await getDraft(tenantScopeOf(ctx), params.plan_id, params.draft_id));
    },
  });

  plans.route<Record<string, string>, unknown, { kinds?: PatchableKind[] }>({
    method: 'post',
    sub: 'optimize/:draft_id/approve',
    summary: "Apply the draft's suggestions to the plan (through its workflow); 409 when the plan changed since the draft",
    description: 'Body (optional): `{"kinds": ["frequency", ...]}` applies only those kinds. Route suggestions concern several plans and change none.',
    access: 'manage',
    params: draftParams,
    body: Joi.object({
      kinds: Joi.array()
        .items(Joi.string().valid(...PATCHABLE))
        .unique(),
    }),
    responses: {
      200: { description: 'The approved draft and the plan', schema: Joi.object({ draft: draftSchema, plan: planSchema }) },
      409: { description: 'The draft is older than the last change of the plan (STALE_DRAFT), or already decided' },
      503: temporalUnavailableResponse("the approval is saved; the plan's schedule takes it at the plan's next pause, resume or edit"),
    },
    handler: async (ctx, { params, body }) => {
      const { draft, plan } = await approveDraft(planDeps(ctx), userUnitContextOf(ctx), params.plan_id, params.draft_id, body.kinds);
      ctx.body = { draft: toDraft(draft), plan: toPlan(plan) };
    },
  });

  plans.route({
    method: 'post',
    sub: 'optimize/:draft_id/reject',
    summary: 'Discard an optimization draft',
    access: 'manage',
    params: draftParams,
    responses: { 200: { description: 'The rejected draft', schema: draftSchema }, 409: { description: 'Already decided' } },
    handler: async (ctx, { params }) => {
      const draft = await inUserUnit(ctx, (unit) => rejectDraft(unit, userOf(ctx).userId, params.plan_id, params.draft_id));
      ctx.body = toDraft(draft);
    },
  });
}
