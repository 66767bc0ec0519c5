import { Knex } from 'knex';

/** Predictive configuration per tenant and asset type, and the digital twin's simulated scenarios. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table predictive_configs (
      id uuid primary key default gen_random_uuid(),
      tenant_id uuid not null references tenants (id),
      asset_type text not null,
      model_inputs jsonb not null,
      cycle_length_days double precision not null,
      action_thresholds jsonb not null,
      alert_sensitivity double precision not null,
      operational_parameters jsonb not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      constraint predictive_configs_type_unique unique (tenant_id, asset_type),
      constraint predictive_configs_cycle_check check (cycle_length_days > 0),
      constraint predictive_configs_sensitivity_check check (alert_sensitivity > 0)
    )`);

  await knex.raw(`
    create table asset_simulations (
      id uuid primary key default gen_random_uuid(),
      tenant_id uuid not null references tenants (id),
      asset_id uuid not null,
      scenario jsonb not null,
      result jsonb not null,
      model_version text,
      created_by uuid,
      created_at timestamptz not null default now(),
      constraint asset_simulations_asset_fk foreign key (tenant_id, asset_id) references assets (tenant_id, id) on delete cascade
    )`);
  await knex.raw('create index asset_simulations_asset on asset_simulations (tenant_id, asset_id, created_at)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('asset_simulations');
  await knex.schema.dropTable('predictive_configs');
}
