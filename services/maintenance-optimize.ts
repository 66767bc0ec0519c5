/**
 * Plan optimization, without HTTP: a draft of suggestions from the plan's last year
 * (domain/maintenance/optimize.ts), tied to the plan version it saw; approving applies the chosen
 * suggestions' patches through the plan's workflow (an Update, inside the approving unit);
 * rejecting discards the draft. A draft older than the plan's last change cannot be approved.
 * api/routes/maintenance-optimize.ts is the HTTP face.
 */
import type { PlanRow } from '../db/queries/maintenance';
import { lockPlan, policyOf, saveScheduleSnapshot, updatePlanRow } from '../db/queries/maintenance';
import { decideDraft, draftById, DraftRow, insertDraft, lockDraft, optimizeInput } from '../db/queries/maintenance-optimize';
import { tenantScope, type TenantScope } from '../db/tenant-scope';
import { runUnit, type Unit, type UserUnitContext } from '../db/unit-of-work';
import { analyzePlan, calendarPartOf, counterPartOf, sameTrigger, withCalendar, withCounter, type Suggestion, type Trigger } from '../domain/maintenance';
import { applyOptimization } from '../orchestration/maintenance';
import { AppError, dependencyUnavailable, invalidState, notFound } from '../domain/errors';
import { findOr404 } from '../db/find-or-404';
import { callPlanWorkflow, requirePlan, type PlanDeps } from './maintenance';

export const PATCHABLE = ['frequency', 'counter_threshold', 'workload'] as const;
export type PatchableKind = (typeof PATCHABLE)[number];

const requireLockedDraft = (unit: Unit, planId: string, draftId: string) =>
  findOr404('optimization draft', draftId, () => lockDraft(unit.tx, unit.scope.tenantId, planId, draftId));

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
    if (s.kind === 'frequency' && cal) trigger = withCalendar(trigger, cal);
    if (s.kind === 'counter_threshold' && cnt) trigger = withCounter(trigger, cnt);
  }
  return { trigger, assignee_id: assignee };
}

/** Analyses the plan's last year and stores the suggestions as a draft. */
export async function draftOptimization(unit: Unit, userId: string, planId: string): Promise<DraftRow> {
  const plan = await requirePlan(unit.scope, planId);
  const result = analyzePlan(await optimizeInput(unit.tx, plan, new Date()));
  const row = await insertDraft(unit.scope, {
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
  return row;
}

export async function getDraft(scope: TenantScope, planId: string, draftId: string): Promise<DraftRow> {
  const plan = await requirePlan(scope, planId);
  return findOr404('optimization draft', draftId, () => draftById(scope, plan.id, draftId));
}

/**
 * Applies the chosen suggestions (all patchable ones when `kinds` is absent). The approval and the
 * plan's new version commit first; then a changed trigger goes to the workflow (an Update carrying
 * that version, with the call deadline: no row lock waits on Temporal). Temporal down or late: 503
 * saying the approval is saved; the workflow takes the plan's version at the plan's next pause,
 * resume or edit (services/maintenance.ts, withWorkflowState). Answers the decided draft and the
 * plan as it is after the workflow's snapshot.
 */
export async function approveDraft(
  deps: PlanDeps,
  context: UserUnitContext,
  planId: string,
  draftId: string,
  kinds: PatchableKind[] | undefined,
): Promise<{ draft: DraftRow; plan: PlanRow }> {
  const { tenantId, userId } = context;
  await requirePlan(tenantScope(deps.db, tenantId), planId);
  const { draft, updated, triggerChanged } = await runUnit(deps.db, context, async (unit) => {
    const plan = await lockPlan(unit.tx, tenantId, planId);
    if (!plan || plan.deleted_at) throw notFound('maintenance plan');
    const row = await requireLockedDraft(unit, plan.id, draftId);
    if (row.status !== 'draft') throw invalidState(`the draft is already ${row.status}`);
    if (row.plan_version !== plan.version) {
      throw new AppError(
        'STALE_DRAFT',
        `the plan changed after this draft (draft of version ${row.plan_version}, plan at version ${plan.version}); request a new draft`,
        { plan_version: plan.version, draft_plan_version: row.plan_version },
        409,
      );
    }
    const chosen = row.suggestions.filter((s) => s.patch !== null && (!kinds || kinds.includes(s.kind as PatchableKind)));
    const patch = mergePatches(plan, chosen);
    const triggerChanged = !sameTrigger(plan.trigger, patch.trigger);
    const changed = triggerChanged || patch.assignee_id !== plan.assignee_id;
    const updated = changed
      ? await updatePlanRow(unit.scope, plan.id, { trigger: JSON.stringify(patch.trigger), assignee_id: patch.assignee_id, version: plan.version + 1, updated_at: new Date() })
      : plan;
    const decided = await decideDraft(unit.tx, row.id, 'approved', userId);
    unit.audit({
      action: 'maintenance_plan.optimization_approved',
      resourceType: 'maintenance_plan',
      resourceId: plan.id,
      details: { draft_id: row.id, kinds: chosen.map((s) => s.kind), version: updated.version },
    });
    return { draft: decided, updated, triggerChanged };
  });
  if (triggerChanged) {
    const result = await callPlanWorkflow(deps, updated, (c) =>
      applyOptimization(c, tenantId, updated.id, { requestId: `optimize:${draft.id}`, version: updated.version, policy: policyOf(updated) }),
    ).catch((err: AppError) => {
      if (err.code !== 'DEPENDENCY_UNAVAILABLE') throw err;
      throw dependencyUnavailable(
        'temporal',
        `the approval is saved but the plan's schedule has not taken it yet (it will at the plan's next pause, resume or edit): ${err.message}`,
      );
    });
    await saveScheduleSnapshot(deps.db, tenantId, updated.id, result.snapshot);
  }
  return { draft, plan: await requirePlan(tenantScope(deps.db, tenantId), planId) };
}

/** Discards a draft that is not decided yet. */
export async function rejectDraft(unit: Unit, userId: string, planId: string, draftId: string): Promise<DraftRow> {
  const plan = await requirePlan(unit.scope, planId);
  const row = await requireLockedDraft(unit, plan.id, draftId);
  if (row.status !== 'draft') throw invalidState(`the draft is already ${row.status}`);
  const decided = await decideDraft(unit.tx, row.id, 'rejected', userId);
  unit.audit({ action: 'maintenance_plan.optimization_rejected', resourceType: 'maintenance_plan', resourceId: plan.id, details: { draft_id: row.id } });
  return decided;
}
