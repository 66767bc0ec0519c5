import { randomBytes } from 'node:crypto';
import { Knex } from 'knex';
import { hashPassword } from '../domain/auth/passwords';
import { PlanName } from '../domain/tenancy/plans';
import { Actor, appendAudit } from './audit';
import { Db, Queryable } from './knex';
import { AppError } from '../domain/errors';
import { isUuid } from '../domain/ids';
import type { MailingTenant } from '../domain/mail/on-behalf';

export interface NewTenant {
  name: string;
  slug?: string;
  plan: PlanName;
  adminEmail: string;
  adminPassword: string;
  adminName?: string;
}

export interface ProvisionedTenant {
  tenant_id: string;
  admin_user_id: string;
  slug: string;
  plan: PlanName;
  created: boolean;
}

export function slugify(name: string): string {
  return (
    name
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|(?<!-)-+$/g, '')
      .slice(0, 60) || 'tenant'
  );
}

/** Who provisions tenants when nobody is named: the demo seed and the tests. */
const PROVISIONING: Actor = { type: 'system', id: 'tenant-provisioning' };

/**
 * Creates a tenant and its first admin in one transaction, audited as `actor`'s action (the
 * system's unless an operator is named). With `resetIfExists`, an existing tenant of the same slug
 * keeps its data and its admin's password is reset (the demo seed uses this so its printed login
 * always works).
 */
export async function provisionTenant(db: Db, input: NewTenant, opts: { resetIfExists?: boolean; actor?: Actor } = {}): Promise<ProvisionedTenant> {
  const slug = input.slug ?? slugify(input.name);
  const passwordHash = await hashPassword(input.adminPassword);
  return db.transaction(async (tx) => {
    const existing = await tx('tenants').where({ slug }).first();
    if (existing) {
      if (!opts.resetIfExists) throw new AppError('CONFLICT', `a tenant with slug "${slug}" already exists`);
      const admin = await upsertAdmin(tx, existing.id, input, passwordHash);
      return { tenant_id: existing.id, admin_user_id: admin, slug, plan: existing.plan, created: false };
    }
    const [tenant] = await tx('tenants')
      .insert({ name: input.name, slug, plan: input.plan, audit_salt: randomBytes(32) })
      .returning('id');
    const adminId = await upsertAdmin(tx, tenant.id, input, passwordHash);
    await appendAudit(tx, {
      tenantId: tenant.id,
      actor: opts.actor ?? PROVISIONING,
      action: 'tenant.created',
      resourceType: 'tenant',
      resourceId: tenant.id,
      requestId: null,
      details: { plan: input.plan, admin_user_id: adminId },
    });
    return { tenant_id: tenant.id, admin_user_id: adminId, slug, plan: input.plan, created: true };
  });
}

async function upsertAdmin(tx: Knex.Transaction, tenantId: string, input: NewTenant, passwordHash: string): Promise<string> {
  const user = await tx('users').whereRaw('lower(email) = lower(?)', [input.adminEmail]).first('id', 'tenant_id');
  if (user && user.tenant_id !== tenantId) throw new AppError('CONFLICT', `email ${input.adminEmail} belongs to another tenant`);
  if (user) {
    await tx('users').where({ id: user.id }).update({ password_hash: passwordHash, status: 'active', role: 'admin' });
    return user.id;
  }
  const [created] = await tx('users')
    .insert({ tenant_id: tenantId, email: input.adminEmail, name: input.adminName ?? 'Administrator', password_hash: passwordHash, role: 'admin' })
    .returning('id');
  return created.id;
}

/** The tenant as the platform's mail names it (domain/mail/on-behalf.ts). */
export async function mailingTenant(db: Queryable, tenantId: string): Promise<MailingTenant> {
  const row = await db('tenants').where({ id: tenantId }).first('id', 'name');
  if (!row) throw new Error(`tenant ${tenantId} not found`);
  return row;
}

/** A tenant as the operator's commands see it. `suspended_at`: null while it is active. */
export interface TenantRow {
  id: string;
  name: string;
  slug: string;
  plan: PlanName;
  created_at: Date;
  suspended_at: Date | null;
}

const TENANT_COLUMNS = ['id', 'name', 'slug', 'plan', 'created_at', 'suspended_at'] as const;

/** The tenant a reference names: its id, or its slug. */
export function findTenant(db: Queryable, ref: string): Promise<TenantRow | undefined> {
  return db('tenants')
    .where(isUuid(ref) ? { id: ref } : { slug: ref })
    .first(...TENANT_COLUMNS);
}

/** Every tenant, oldest first; `status` narrows to the active or the suspended ones. */
export function tenantsQuery(db: Queryable, status?: 'active' | 'suspended'): Knex.QueryBuilder {
  const q = db('tenants')
    .select(...TENANT_COLUMNS)
    .orderBy([{ column: 'created_at' }, { column: 'id' }]);
  if (status === 'active') q.whereNull('suspended_at');
  if (status === 'suspended') q.whereNotNull('suspended_at');
  return q;
}

/** Whether the tenant is suspended (an unknown tenant is not). */
export async function isTenantSuspended(db: Queryable, tenantId: string): Promise<boolean> {
  const row = await db('tenants').where({ id: tenantId }).first('suspended_at');
  return Boolean(row?.suspended_at);
}

export async function updateTenantPlan(tx: Knex.Transaction, tenantId: string, plan: PlanName): Promise<TenantRow> {
  const [row] = await tx('tenants')
    .where({ id: tenantId })
    .update({ plan })
    .returning([...TENANT_COLUMNS]);
  return row;
}

/**
 * Suspends the tenant (from now) or resumes it. A resume wakes the outbox dispatchers at commit
 * (the channel an outbox insert notifies), so the held events leave at once, not at the next poll.
 */
export async function updateTenantSuspension(tx: Knex.Transaction, tenantId: string, suspended: boolean): Promise<TenantRow> {
  const [row] = await tx('tenants')
    .where({ id: tenantId })
    .update({ suspended_at: suspended ? tx.fn.now() : null })
    .returning([...TENANT_COLUMNS]);
  if (!suspended) await tx.raw("select pg_notify('outbox_events', '')");
  return row;
}
