import { Knex } from 'knex';

/**
 * Counter reading sources are free text (SPEC.md: "origin of the reading, for instance a gateway
 * identifier"). The text lives here, once per tenant and distinct text; the plan workflow's history
 * carries only this row's id, so whatever a client writes there never reaches Temporal.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table maintenance_counter_sources (
      id uuid primary key default gen_random_uuid(),
      tenant_id uuid not null references tenants (id),
      text text not null,
      created_at timestamptz not null default now(),
      constraint maintenance_counter_sources_text unique (tenant_id, text)
    )`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('maintenance_counter_sources');
}
