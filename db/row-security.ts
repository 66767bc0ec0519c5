import { Knex } from 'knex';
import { Queryable } from './knex';

/**
 * Row-level security on tenant tables: the database's own wall behind the tenant filter that
 * db/tenant-scope.ts puts on every query. A transaction that declares its tenant
 * (`declareTenant`, which every unit of work does) sees and writes only that tenant's rows,
 * whatever its SQL says. A connection that declared nothing is not walled (the cross-tenant
 * jobs, the login by e-mail, reads on the pool): docs/DECISIONS.md lists them.
 */
export const TENANT_POLICY = 'tenant_isolation';

/** The transaction-local setting the policy reads. */
export const TENANT_SETTING = 'app.tenant_id';

/** From here to the end of the transaction `tx` sees and writes `tenantId`'s rows only. */
export async function declareTenant(tx: Knex.Transaction, tenantId: string): Promise<void> {
  await tx.raw(`select set_config('${TENANT_SETTING}', ?, true)`, [tenantId]);
}

/**
 * Enables and forces row-level security on `table` (forced: the owner too, so a deployment whose
 * app connects as the owner keeps the wall) with the tenant policy. Idempotent. A migration that
 * creates a tenant table calls it once the table exists.
 */
export async function enableTenantRowSecurity(knex: Knex, table: string): Promise<void> {
  const { rows } = await knex.raw(
    `select format_type(a.atttypid, a.atttypmod) as type from pg_attribute a
     where a.attrelid = to_regclass(?) and a.attname = 'tenant_id' and not a.attisdropped`,
    [table],
  );
  const type = (rows[0] as { type: string } | undefined)?.type;
  if (!type) throw new Error(`enableTenantRowSecurity: ${table} has no tenant_id column`);
  // Unset (or cleared: '' after a transaction that set it ended) = nothing declared.
  const declared = `nullif(current_setting('${TENANT_SETTING}', true), '')`;
  const visible = `${declared} is null or tenant_id = ${declared}::${type}`;
  await knex.raw('alter table ?? enable row level security', [table]);
  await knex.raw('alter table ?? force row level security', [table]);
  await knex.raw(`drop policy if exists ${TENANT_POLICY} on ??`, [table]);
  await knex.raw(`create policy ${TENANT_POLICY} on ?? using (${visible}) with check (${visible})`, [table]);
}

/** Every table of the current schema with a tenant_id column. */
export async function tenantTables(db: Queryable): Promise<string[]> {
  const { rows } = await db.raw(
    `select c.relname as name from pg_class c
     join pg_namespace n on n.oid = c.relnamespace and n.nspname = current_schema()
     join pg_attribute a on a.attrelid = c.oid and a.attname = 'tenant_id' and not a.attisdropped
     where c.relkind in ('r', 'p') order by 1`,
  );
  return (rows as { name: string }[]).map((r) => r.name);
}

/** Tenant tables without row-level security enabled, forced, and the tenant policy: empty when all is well. */
export async function tenantTablesWithoutRowSecurity(db: Queryable): Promise<string[]> {
  const { rows } = await db.raw(
    `select c.relname as name from pg_class c
     join pg_namespace n on n.oid = c.relnamespace and n.nspname = current_schema()
     join pg_attribute a on a.attrelid = c.oid and a.attname = 'tenant_id' and not a.attisdropped
     where c.relkind in ('r', 'p')
       and not (c.relrowsecurity and c.relforcerowsecurity
                and exists (select 1 from pg_policy p where p.polrelid = c.oid and p.polname = ?))
     order by 1`,
    [TENANT_POLICY],
  );
  return (rows as { name: string }[]).map((r) => r.name);
}
