import { Knex } from 'knex';
import { LimitedResource, RESOURCE_LIMITS } from '../domain/tenancy/plans';
import { AppError } from '../domain/errors';

/**
 * The one check of a plan's resource limits, inside the creating transaction. The advisory lock
 * makes concurrent creates count one after the other, so a limit cannot be overshot by a race.
 */
export async function assertWithinPlanLimit(tx: Knex.Transaction, tenantId: string, resource: LimitedResource, count: (tx: Knex.Transaction) => Promise<number>): Promise<void> {
  const tenant = await tx('tenants').where({ id: tenantId }).first('plan');
  const limit = RESOURCE_LIMITS[tenant.plan as keyof typeof RESOURCE_LIMITS][resource];
  if (limit === null) return;
  await tx.raw('select pg_advisory_xact_lock(hashtextextended(?, 7))', [`limit:${tenantId}:${resource}`]);
  const current = await count(tx);
  if (current >= limit) {
    throw new AppError('PLAN_LIMIT_REACHED', `the ${tenant.plan} plan allows ${limit} ${resource.replace('_', ' ')}`, {
      resource,
      limit,
    });
  }
}

/** Counts a tenant's rows of a table: the usual `count` for assertWithinPlanLimit. */
export const countRows = (table: string, tenantId: string) => async (tx: Knex.Transaction) => {
  const [{ count }] = await tx(table).where({ tenant_id: tenantId }).count({ count: '*' });
  return Number(count);
};
