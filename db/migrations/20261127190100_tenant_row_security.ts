import { Knex } from 'knex';
import { enableTenantRowSecurity, TENANT_POLICY, tenantTables } from '../row-security';

/**
 * Row-level security on every table that has a tenant_id column when this runs (db/row-security.ts).
 * A tenant table created by a later migration calls enableTenantRowSecurity itself; a test fails
 * while one lacks it.
 */
export async function up(knex: Knex): Promise<void> {
  for (const table of await tenantTables(knex)) await enableTenantRowSecurity(knex, table);
}

export async function down(knex: Knex): Promise<void> {
  for (const table of await tenantTables(knex)) {
    await knex.raw(`drop policy if exists ${TENANT_POLICY} on ??`, [table]);
    await knex.raw('alter table ?? no force row level security', [table]);
    await knex.raw('alter table ?? disable row level security', [table]);
  }
}
