import { Knex } from 'knex';

// Not db/knex.ts's Queryable: knex.ts installs db/db-scope.ts, which reads the settings named here.
type Queryable = Knex | Knex.Transaction;

/**
 * Row-level security on tenant tables: the database's own wall behind the tenant filter that
 * db/tenant-scope.ts puts on every query. The policy admits a row of the declared tenant, or any
 * row when the system scope is declared, and nothing when neither is (fail closed). Who declares
 * what: db/db-scope.ts (per pooled connection: API requests, the worker, CLIs) and
 * `declareTenant` (per transaction: every unit of work).
 */
export const TENANT_POLICY = 'tenant_isolation';

/** The setting naming the tenant whose rows are visible. */
export const TENANT_SETTING = 'app.tenant_id';
/** The setting that, set to SYSTEM_SCOPE, makes every tenant's rows visible (the cross-tenant paths). */
export const SCOPE_SETTING = 'app.scope';
export const SYSTEM_SCOPE = 'system';

/** From here to the end of the transaction `tx` sees and writes `tenantId`'s rows only, whatever its connection's scope. */
export async function declareTenant(tx: Knex.Transaction, tenantId: string): Promise<void> {
  await tx.raw(`select set_config('${TENANT_SETTING}', ?, true), set_config('${SCOPE_SETTING}', '', true)`, [tenantId]);
}

/**
 * Runs `work` in the tenant transaction `tx` seeing every tenant's rows, then narrows it to
 * `tenantId` again: the one way for a check that must look across tenants from inside a tenant's
 * unit of work (a value unique across tenants). Keep `work` to that read.
 */
export async function acrossTenants<T>(tx: Knex.Transaction, tenantId: string, work: () => Promise<T>): Promise<T> {
  await tx.raw(`select set_config('${SCOPE_SETTING}', '${SYSTEM_SCOPE}', true)`);
  let result: T;
  try {
    result = await work();
  } catch (error) {
    // A failed statement aborted the transaction (nothing more runs in it); any other error leaves it open: narrow it again.
    await declareTenant(tx, tenantId).catch(() => undefined);
    throw error;
  }
  await declareTenant(tx, tenantId);
  return result;
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
  // Unset or '' = not declared: then only the system scope admits the row. The settings are read
  // in sub-selects, evaluated once per statement rather than per row (and `tenant_id = (...)`
  // can then use the tenant indexes).
  const system = `(select current_setting('${SCOPE_SETTING}', true)) = '${SYSTEM_SCOPE}'`;
  const visible = `${system} or tenant_id = (select nullif(current_setting('${TENANT_SETTING}', true), '')::${type})`;
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
