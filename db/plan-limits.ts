import { Knex } from 'knex';
import type { Queryable } from './knex';
import { LimitedResource, planAllowsModel, PlanModels, PlanName, RESOURCE_LIMITS } from '../domain/tenancy/plans';
import { AppError } from '../domain/errors';

/** The tenant's plan. */
export async function tenantPlan(db: Queryable, tenantId: string): Promise<PlanName> {
  const tenant = await db('tenants').where({ id: tenantId }).first('plan');
  return tenant.plan as PlanName;
}

/** Whether the tenant's plan includes the model (read at each call: a plan may have gone down since the agent was saved). */
export async function tenantAllowsModel(db: Queryable, tenantId: string, models: PlanModels, model: string): Promise<boolean> {
  return planAllowsModel(models, await tenantPlan(db, tenantId), model);
}

/** The one 403 PLAN_LIMIT_REACHED: `allowance` says what the plan allows ("3 scheduled reports"). */
export function planLimitReached(plan: PlanName, allowance: string, resource: string, limit: number): AppError {
  return new AppError('PLAN_LIMIT_REACHED', `the ${plan} plan allows ${allowance}`, { resource, limit });
}

/**
 * The one check of a plan's resource limits, inside the creating transaction. The advisory lock
 * makes concurrent creates count one after the other, so a limit cannot be overshot by a race.
 */
export async function assertWithinPlanLimit(tx: Knex.Transaction, tenantId: string, resource: LimitedResource, count: (tx: Knex.Transaction) => Promise<number>): Promise<void> {
  const plan = await tenantPlan(tx, tenantId);
  const limit = RESOURCE_LIMITS[plan][resource];
  if (limit === null) return;
  await tx.raw('select pg_advisory_xact_lock(hashtextextended(?, 7))', [`limit:${tenantId}:${resource}`]);
  const current = await count(tx);
  if (current >= limit) throw planLimitReached(plan, `${limit} ${resource.replaceAll('_', ' ')}`, resource, limit);
}

/** Counts a tenant's rows of a table: the usual `count` for assertWithinPlanLimit. */
export const countRows = (table: string, tenantId: string) => async (tx: Knex.Transaction) => {
  const [{ count }] = await tx(table).where({ tenant_id: tenantId }).count({ count: '*' });
  return Number(count);
};
