import { Knex } from 'knex';

/**
 * Reports: branding presets, report jobs (every generated report: on demand or by a schedule; the
 * file lives in the object store at object_key), scheduled reports (each mirrored by the Temporal
 * Schedule `scheduled-report/<tenant>/<id>`) and the runs those schedules made.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table brandings (
      id uuid primary key default gen_random_uuid(),
      tenant_id uuid not null references tenants (id),
      name text not null,
      company_name text not null,
      -- A PNG/JPEG of the files table; checked by the API (no FK: a deleted file leaves a logo-less branding).
      logo_file_id uuid,
      primary_color text not null default '#1F4E79',
      accent_color text not null default '#F28C28',
      footer_text text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      constraint brandings_tenant_id_id_unique unique (tenant_id, id),
      constraint brandings_primary_color_check check (primary_color ~ '^#[0-9A-Fa-f]{6}$'),
      constraint brandings_accent_color_check check (accent_color ~ '^#[0-9A-Fa-f]{6}$')
    )`);
  await knex.raw('create index brandings_by_tenant on brandings (tenant_id, created_at)');

  await knex.raw(`
    create table scheduled_reports (
      id uuid primary key default gen_random_uuid(),
      tenant_id uuid not null references tenants (id),
      name text not null,
      report_type text not null,
      format text not null,
      branding_id uuid,
      period_rule text,
      -- {"cron": "0 6 1 * *"} or {"interval_minutes": 1440}; the Schedule's spec with time_zone.
      schedule jsonb not null,
      time_zone text not null,
      recipients text[] not null,
      status text not null default 'active',
      created_by uuid,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      constraint scheduled_reports_tenant_id_id_unique unique (tenant_id, id),
      constraint scheduled_reports_branding_fk foreign key (tenant_id, branding_id) references brandings (tenant_id, id),
      constraint scheduled_reports_format_check check (format in ('pdf', 'xlsx')),
      constraint scheduled_reports_status_check check (status in ('active', 'paused'))
    )`);
  await knex.raw('create index scheduled_reports_by_tenant on scheduled_reports (tenant_id, created_at)');

  await knex.raw(`
    create table report_jobs (
      id uuid primary key default gen_random_uuid(),
      tenant_id uuid not null references tenants (id),
      report_type text not null,
      format text not null,
      period_from date,
      period_to date,
      branding_id uuid,
      status text not null default 'queued',
      object_key text,
      size_bytes bigint,
      error text,
      requested_by uuid,
      scheduled_report_id uuid,
      created_at timestamptz not null default now(),
      started_at timestamptz,
      completed_at timestamptz,
      constraint report_jobs_tenant_id_id_unique unique (tenant_id, id),
      constraint report_jobs_branding_fk foreign key (tenant_id, branding_id) references brandings (tenant_id, id) on delete set null (branding_id),
      constraint report_jobs_scheduled_fk foreign key (tenant_id, scheduled_report_id) references scheduled_reports (tenant_id, id) on delete set null (scheduled_report_id),
      constraint report_jobs_format_check check (format in ('pdf', 'xlsx')),
      constraint report_jobs_status_check check (status in ('queued', 'running', 'completed', 'failed')),
      constraint report_jobs_period_check check (period_from is null or period_to >= period_from)
    )`);
  await knex.raw('create index report_jobs_by_tenant on report_jobs (tenant_id, created_at desc)');

  await knex.raw(`
    create table scheduled_report_runs (
      id uuid primary key default gen_random_uuid(),
      tenant_id uuid not null references tenants (id),
      scheduled_report_id uuid not null,
      -- The run's workflow id (the Schedule appends the scheduled time): one row per firing.
      workflow_id text not null,
      report_id uuid,
      status text not null default 'running',
      sent_to integer not null default 0,
      error text,
      started_at timestamptz not null default now(),
      finished_at timestamptz,
      constraint scheduled_report_runs_workflow_unique unique (tenant_id, workflow_id),
      constraint scheduled_report_runs_scheduled_fk foreign key (tenant_id, scheduled_report_id) references scheduled_reports (tenant_id, id) on delete cascade,
      constraint scheduled_report_runs_report_fk foreign key (tenant_id, report_id) references report_jobs (tenant_id, id),
      constraint scheduled_report_runs_status_check check (status in ('running', 'sent', 'recorded', 'failed'))
    )`);
  await knex.raw('create index scheduled_report_runs_by_schedule on scheduled_report_runs (tenant_id, scheduled_report_id, started_at desc)');
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['scheduled_report_runs', 'report_jobs', 'scheduled_reports', 'brandings']) {
    await knex.schema.dropTableIfExists(table);
  }
}
