import { randomBytes } from 'node:crypto';
import { Knex } from 'knex';
import { hashPassword } from '../domain/auth/passwords';
import { PlanName } from '../domain/tenancy/plans';
import { appendAudit } from './audit';
import { Db, Queryable } from './knex';
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

/**
 * Creates a tenant and its first admin in one transaction, audited as a system action. With
 * `resetIfExists`, an existing tenant of the same slug keeps its data and its admin's password is
 * reset (the demo seed uses this so its printed login always works).
 */
export async function provisionTenant(db: Db, input: NewTenant, opts: { resetIfExists?: boolean } = {}): Promise<ProvisionedTenant> {
  const slug = input.slug ?? slugify(input.name);
  const passwordHash = await hashPassword(input.adminPassword);
  return db.transaction(async (tx) => {
    const existing = await tx('tenants').where({ slug }).first();
    if (existing) {
      if (!opts.resetIfExists) throw new Error(`a tenant with slug "${slug}" already exists`);
      const admin = await upsertAdmin(tx, existing.id, input, passwordHash);
      return { tenant_id: existing.id, admin_user_id: admin, slug, plan: existing.plan, created: false };
    }
    const [tenant] = await tx('tenants')
      .insert({ name: input.name, slug, plan: input.plan, audit_salt: randomBytes(32) })
      .returning('id');
    const adminId = await upsertAdmin(tx, tenant.id, input, passwordHash);
    await appendAudit(tx, {
      tenantId: tenant.id,
      actor: { type: 'system', id: 'tenant-provisioning' },
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
  if (user && user.tenant_id !== tenantId) throw new Error(`email ${input.adminEmail} belongs to another tenant`);
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
