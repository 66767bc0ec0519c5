/**
 * What a condition or predictive plan needs besides its workflow: on create and update, a limit the readings can
 * be judged by on every one of its assets; after a readings batch committed, the plans of the
 * batch's assets and parameters told once each (the `readings` signal carries nothing: the plan
 * reads the readings after its own cursor, so a signal lost to a Temporal outage only delays the
 * evaluation until the next batch's signal or the worker's catch-up sweep, workers/reconcile.ts).
 */
import type { Logger } from 'pino';
import type { TaskRow } from '../db/queries/maintenance';
import type { TenantScope } from '../db/tenant-scope';
import { validationError } from '../domain/errors';
import type { Trigger } from '../domain/maintenance';
import { errorSummary } from '../infra/error-chain';
import type { TemporalGateway } from '../infra/temporal';
import { signalPlan } from '../orchestration/maintenance';
import { callTemporal } from '../orchestration/temporal-call';

/**
 * A condition or predictive trigger watches a parameter that each of the plan's assets has an
 * active baseline or a failure limit (its type's predictive config) for (the limit the prognosis
 * projects to); otherwise 422 naming the parameter and the assets. Such a plan without assets
 * could never be due: 422 too.
 */
export async function checkConditionTrigger(scope: TenantScope, trigger: Trigger, assetIds: readonly string[]): Promise<void> {
  if (trigger.type !== 'condition' && trigger.type !== 'predictive') return;
  if (assetIds.length === 0) {
    const message = `a ${trigger.type} plan needs at least one asset`;
    throw validationError(`asset_ids: ${message}`, [{ field: 'body.asset_ids', message, type: 'any.required' }]);
  }
  const missing = (await scope
    .table('assets')
    .whereIn('assets.id', assetIds)
    .whereNotExists((q) => {
      q.from('asset_baselines as b').whereRaw('b.tenant_id = assets.tenant_id and b.asset_id = assets.id and b.active and b.parameter = ?', [trigger.parameter]);
    })
    .whereNotExists((q) => {
      q.from('predictive_configs as c').whereRaw('c.tenant_id = assets.tenant_id and c.asset_type = assets.type and jsonb_exists(c.failure_limits, ?)', [trigger.parameter]);
    })
    .orderBy('assets.id')
    .pluck('assets.id')) as string[];
  if (missing.length === 0) return;
  const message = `no baseline or failure limit for parameter "${trigger.parameter}" on asset(s) ${missing.join(', ')}`;
  throw validationError(`trigger.parameter: ${message}`, [{ field: 'body.trigger.parameter', message, type: 'any.no_limit' }]);
}

/**
 * The live condition and predictive plans watching any of these (asset, parameter) series: what
 * a readings batch's series are resolved to when their coalesced signals are sent
 * (orchestration/plan-readings-signals.ts, one lookup per tenant and flush).
 */
export async function conditionPlansOf(scope: TenantScope, series: readonly { asset_id: string; parameter: string }[]): Promise<string[]> {
  if (series.length === 0) return [];
  const assets = [...new Set(series.map((s) => s.asset_id))];
  const parameters = [...new Set(series.map((s) => s.parameter))];
  return (await scope
    .table('maintenance_plans')
    .whereNull('deleted_at')
    .whereRaw(`trigger ->> 'type' in ('condition', 'predictive') and trigger ->> 'parameter' = any(?::text[]) and asset_ids && ?::uuid[]`, [parameters, assets])
    .orderBy('id')
    .pluck('id')) as string[];
}

/**
 * After a condition or predictive work order was completed (committed): its plan re-arms the
 * asset of its evidence. Never fails the request; a plan not reached stays quiet until the readings come back
 * inside for the window (the recovery re-arms it too).
 */
export async function tellPlanOfCompletion(deps: { temporal: TemporalGateway; log: Pick<Logger, 'warn'> }, task: TaskRow): Promise<void> {
  if ((task.trigger !== 'condition' && task.trigger !== 'predictive') || task.plan_id === null || task.status !== 'done') return;
  const assetId = typeof task.evidence?.asset_id === 'string' ? task.evidence.asset_id : null;
  const planId = task.plan_id;
  await callTemporal(deps.temporal, "could not tell the plan's workflow of the completed work order", (client) =>
    signalPlan(client, task.tenant_id, planId, { kind: 'workOrderCompleted', assetId }),
  ).catch((err: unknown) => deps.log.warn({ plan_id: planId, task_id: task.id, err: errorSummary(err) }, 'plan not told of a completed work order'));
}
