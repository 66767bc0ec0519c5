import { Knex } from 'knex';

/**
 * Baselines (one active per asset parameter, superseded ones kept as history) and the alerts their
 * excursions raise. At most one unresolved alert per asset parameter: the deduplication rule is
 * also a constraint.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table asset_baselines (
      id uuid primary key default gen_random_uuid(),
      tenant_id uuid not null references tenants (id),
      asset_id uuid not null,
      parameter text not null,
      baseline_value double precision not null,
      tolerance_percent double precision not null,
      measurement_unit text,
      active boolean not null default true,
      created_by uuid,
      created_at timestamptz not null default now(),
      superseded_at timestamptz,
      constraint asset_baselines_asset_fk foreign key (tenant_id, asset_id) references assets (tenant_id, id) on delete cascade,
      constraint asset_baselines_tolerance_check check (tolerance_percent >= 0)
    )`);
  await knex.raw('create unique index asset_baselines_one_active on asset_baselines (tenant_id, asset_id, parameter) where active');
  await knex.raw('create index asset_baselines_history on asset_baselines (tenant_id, asset_id, parameter, created_at)');

  await knex.raw(`
    create table asset_alerts (
      id uuid primary key default gen_random_uuid(),
      tenant_id uuid not null references tenants (id),
      asset_id uuid not null,
      baseline_id uuid not null references asset_baselines (id) on delete cascade,
      parameter text not null,
      status text not null default 'open',
      direction text not null,
      severity text not null,
      baseline_value double precision not null,
      lower_bound double precision not null,
      upper_bound double precision not null,
      value double precision not null,
      peak_value double precision not null,
      last_value double precision not null,
      raised_at timestamptz not null,
      last_reading_at timestamptz not null,
      resolved_at timestamptz,
      resolved_value double precision,
      acknowledged_at timestamptz,
      acknowledged_by uuid,
      acknowledge_note text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      constraint asset_alerts_asset_fk foreign key (tenant_id, asset_id) references assets (tenant_id, id) on delete cascade,
      constraint asset_alerts_status_check check (status in ('open', 'acknowledged', 'resolved')),
      constraint asset_alerts_direction_check check (direction in ('above', 'below')),
      constraint asset_alerts_severity_check check (severity in ('warning', 'critical'))
    )`);
  await knex.raw(`create unique index asset_alerts_one_unresolved on asset_alerts (tenant_id, asset_id, parameter) where status <> 'resolved'`);
  await knex.raw('create index asset_alerts_tenant_status on asset_alerts (tenant_id, status, raised_at)');
  await knex.raw('create index asset_alerts_asset on asset_alerts (tenant_id, asset_id, raised_at)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('asset_alerts');
  await knex.schema.dropTable('asset_baselines');
}
