import { Knex } from 'knex';

/**
 * The machine gateway's storage. sensor_readings is shaped for time series: no surrogate key, one
 * index per series (tenant, asset, parameter, device time) and the sender's event id as the
 * idempotency key, so batch inserts use ON CONFLICT DO NOTHING. asset_parameter_latest keeps the
 * newest reading of each series (device time) and a short window of the ones before it, which
 * alerting, health, condition and the twin read without scanning the series. machine_events are raw events, kept apart for retention sweeps.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table sensor_readings (
      tenant_id uuid not null references tenants (id),
      asset_id uuid not null,
      parameter text not null,
      ts timestamptz not null,
      value double precision not null,
      unit text,
      source text,
      sender_event_id text not null,
      received_at timestamptz not null default now(),
      constraint sensor_readings_sender_event_unique unique (tenant_id, sender_event_id),
      constraint sensor_readings_asset_fk foreign key (tenant_id, asset_id) references assets (tenant_id, id) on delete cascade
    )`);
  await knex.raw('create index sensor_readings_series on sensor_readings (tenant_id, asset_id, parameter, ts)');

  await knex.raw(`
    create table asset_parameter_latest (
      tenant_id uuid not null references tenants (id),
      asset_id uuid not null,
      parameter text not null,
      ts timestamptz not null,
      value double precision not null,
      unit text,
      source text,
      -- The series' newest readings in device-time order, [[epoch ms, value], ...] (health trends).
      recent jsonb not null default '[]',
      updated_at timestamptz not null default now(),
      primary key (tenant_id, asset_id, parameter),
      constraint asset_parameter_latest_asset_fk foreign key (tenant_id, asset_id) references assets (tenant_id, id) on delete cascade
    )`);

  await knex.raw(`
    create table machine_events (
      id uuid primary key default gen_random_uuid(),
      tenant_id uuid not null references tenants (id),
      asset_id uuid not null,
      event_type text not null,
      severity text,
      ts timestamptz not null,
      data jsonb not null default '{}',
      source text,
      sender_event_id text not null,
      received_at timestamptz not null default now(),
      constraint machine_events_sender_event_unique unique (tenant_id, sender_event_id),
      constraint machine_events_asset_fk foreign key (tenant_id, asset_id) references assets (tenant_id, id) on delete cascade,
      constraint machine_events_severity_check check (severity in ('info', 'warning', 'critical'))
    )`);
  await knex.raw('create index machine_events_asset_ts on machine_events (tenant_id, asset_id, ts)');
  // The retention sweep deletes by age of arrival.
  await knex.raw('create index machine_events_received on machine_events (tenant_id, received_at)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('machine_events');
  await knex.schema.dropTable('asset_parameter_latest');
  await knex.schema.dropTable('sensor_readings');
}
