/**
 * Tenants as the service's operator manages them (cli/): create, list, show with the plan's usage,
 * change the plan, suspend and resume. A change is a unit of work in the tenant, audited as the
 * operator's action. What a suspension stops: docs/decisions/tenant-suspension.md.
 */
import type { Actor } from '../db/audit';
import type { Db, Queryable } from '../db/knex';
import { paginate, type Page, type PageRequest } from '../db/pagination';
import { findTenant, provisionTenant, tenantsQuery, updateTenantPlan, updateTenantSuspension, type NewTenant, type ProvisionedTenant, type TenantRow } from '../db/tenants';
import { runUnit, type UnitContext } from '../db/unit-of-work';
import { notFound } from '../domain/errors';
import { RESOURCE_LIMITS, type LimitedResource, type PlanName } from '../domain/tenancy/plans';

export type { TenantRow };

/** The table each limited resource is counted in (db/plan-limits.ts counts the same rows on create). */
const RESOURCE_TABLES: Readonly<Record<LimitedResource, string>> = {
  agents: 'agents',
  assets: 'assets',
  maintenance_plans: 'maintenance_plans',
  webhooks: 'webhooks',
  users: 'users',
  scheduled_reports: 'scheduled_reports',
};

export interface ResourceUsage {
  resource: LimitedResource;
  count: number;
  /** null: unlimited on the plan. */
  limit: number | null;
}

/** The tenant a reference (id or slug) names, or 404. */
export async function requireTenant(db: Queryable, ref: string): Promise<TenantRow> {
  const tenant = await findTenant(db, ref);
  if (!tenant) throw notFound('tenant');
  return tenant;
}

/** A new tenant and its first admin, audited `tenant.created` as `actor`'s action. */
export function createTenant(db: Db, actor: Actor, input: NewTenant): Promise<ProvisionedTenant> {
  return provisionTenant(db, input, { actor });
}

export function listTenants(db: Queryable, status: 'active' | 'suspended' | undefined, page: PageRequest): Promise<Page<TenantRow>> {
  return paginate<TenantRow>(tenantsQuery(db, status), page);
}

/** What the tenant holds of each resource its plan limits, against `plan`'s limits. */
export async function resourceUsage(db: Queryable, tenantId: string, plan: PlanName): Promise<ResourceUsage[]> {
  const resources = Object.keys(RESOURCE_TABLES) as LimitedResource[];
  const counts = await Promise.all(
    resources.map(async (resource) => {
      const [{ count }] = await db(RESOURCE_TABLES[resource]).where({ tenant_id: tenantId }).count({ count: '*' });
      return Number(count);
    }),
  );
  return resources.map((resource, i) => ({ resource, count: counts[i], limit: RESOURCE_LIMITS[plan][resource] }));
}

export interface PlanChange {
  tenant: TenantRow;
  previous: PlanName;
  /** Resources the tenant holds beyond the new plan's limits: kept, but no more can be created. */
  overLimit: ResourceUsage[];
}

/**
 * Moves the tenant to `plan` (audited `tenant.plan_changed`). A smaller plan keeps what the tenant
 * already has; its limits apply to what is created next, and its rate limit within a minute (the
 * API's plan cache).
 */
export async function changePlan(db: Db, context: UnitContext, plan: PlanName): Promise<PlanChange> {
  const current = await requireTenant(db, context.tenantId);
  const tenant = await runUnit(db, context, async (unit) => {
    const row = await updateTenantPlan(unit.tx, context.tenantId, plan);
    unit.audit({ action: 'tenant.plan_changed', resourceType: 'tenant', resourceId: context.tenantId, details: { from: current.plan, to: plan } });
    return row;
  });
  const usage = await resourceUsage(db, context.tenantId, plan);
  return { tenant, previous: current.plan, overLimit: usage.filter((u) => u.limit !== null && u.count > u.limit) };
}

export interface SuspensionChange {
  tenant: TenantRow;
  /** false: it already was in that state, and nothing was written. */
  changed: boolean;
}

/**
 * Suspends (`suspended: true`) or resumes the tenant, audited `tenant.suspended` or
 * `tenant.resumed`; asking for the state it is in changes nothing (safe to repeat).
 */
export async function setSuspended(db: Db, context: UnitContext, suspended: boolean): Promise<SuspensionChange> {
  const current = await requireTenant(db, context.tenantId);
  if (Boolean(current.suspended_at) === suspended) return { tenant: current, changed: false };
  const tenant = await runUnit(db, context, async (unit) => {
    const row = await updateTenantSuspension(unit.tx, context.tenantId, suspended);
    unit.audit({ action: suspended ? 'tenant.suspended' : 'tenant.resumed', resourceType: 'tenant', resourceId: context.tenantId });
    return row;
  });
  return { tenant, changed: true };
}
