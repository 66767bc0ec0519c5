import { Knex } from 'knex';

/**
 * Stored derived state of an asset: health and condition are recomputed when readings, inspections
 * or baselines change and read as stored. Inspections are recorded through the API.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table asset_inspections (
      id uuid primary key default gen_random_uuid(),
      tenant_id uuid not null references tenants (id),
      asset_id uuid not null,
      performed_at timestamptz not null,
      condition text not null,
      notes text,
      recorded_by uuid,
      created_at timestamptz not null default now(),
      constraint asset_inspections_asset_fk foreign key (tenant_id, asset_id) references assets (tenant_id, id) on delete cascade,
      constraint asset_inspections_condition_check check (condition in ('good', 'fair', 'poor', 'critical'))
    )`);
  await knex.raw('create index asset_inspections_asset on asset_inspections (tenant_id, asset_id, performed_at)');

  await knex.raw(`
    create table asset_health (
      tenant_id uuid not null references tenants (id),
      asset_id uuid not null,
      health_score integer not null,
      status text not null,
      factors jsonb not null,
      last_updated timestamptz not null,
      primary key (tenant_id, asset_id),
      constraint asset_health_asset_fk foreign key (tenant_id, asset_id) references assets (tenant_id, id) on delete cascade,
      constraint asset_health_score_check check (health_score between 0 and 100),
      constraint asset_health_status_check check (status in ('critical', 'poor', 'fair', 'good', 'excellent'))
    )`);
  await knex.raw('create index asset_health_status on asset_health (tenant_id, status)');

  await knex.raw(`
    create table asset_conditions (
      tenant_id uuid not null references tenants (id),
      asset_id uuid not null,
      overall_condition text not null,
      parameters jsonb not null,
      last_inspection_at timestamptz,
      updated_at timestamptz not null,
      primary key (tenant_id, asset_id),
      constraint asset_conditions_asset_fk foreign key (tenant_id, asset_id) references assets (tenant_id, id) on delete cascade,
      constraint asset_conditions_overall_check check (overall_condition in ('good', 'fair', 'poor', 'critical'))
    )`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('asset_conditions');
  await knex.schema.dropTable('asset_health');
  await knex.schema.dropTable('asset_inspections');
}
