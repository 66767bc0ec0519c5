import { Knex } from 'knex';

/**
 * Privacy (issue 9): per-tenant retention settings, the link from maintenance tasks to the data
 * subject they concern, subject exports (ZIP objects in MinIO) and erasure records.
 */
export async function up(knex: Knex): Promise<void> {
  // {<key>: {days, grandfathered?}}: a missing key has its SPEC.md default (domain/privacy/settings.ts).
  await knex.raw(`alter table tenant_settings add column retention jsonb not null default '{}'`);

  // Tasks raised for a person (e.g. from a conversation): exported with the subject, unlinked on erasure.
  await knex.raw(`alter table maintenance_tasks add column contact_id uuid references contacts (id)`);
  await knex.raw(`create index maintenance_tasks_contact on maintenance_tasks (tenant_id, contact_id) where contact_id is not null`);

  await knex.raw(`
    create table privacy_exports (
      id uuid primary key default gen_random_uuid(),
      tenant_id uuid not null references tenants (id),
      subject_id uuid not null,
      format text not null default 'json',
      status text not null default 'pending',
      object_key text,
      -- Presigned for the public endpoint when the ZIP is ready; lives here, never in workflow history.
      url text,
      size_bytes bigint,
      manifest jsonb,
      error text,
      created_at timestamptz not null default now(),
      ready_at timestamptz,
      expires_at timestamptz,
      constraint privacy_exports_status_check check (status in ('pending', 'running', 'ready', 'failed')),
      constraint privacy_exports_format_check check (format in ('json'))
    )`);
  await knex.raw('create index privacy_exports_subject on privacy_exports (tenant_id, subject_id, created_at)');

  await knex.raw(`
    create table privacy_erasures (
      id uuid primary key default gen_random_uuid(),
      tenant_id uuid not null references tenants (id),
      -- sha256(tenant salt || subject id): recognises a repeated erasure without keeping the id.
      subject_hash text not null,
      reason text not null,
      preserve_audit boolean not null,
      status text not null default 'running',
      counts jsonb not null default '{}',
      created_at timestamptz not null default now(),
      completed_at timestamptz,
      constraint privacy_erasures_status_check check (status in ('running', 'completed', 'failed'))
    )`);
  await knex.raw('create index privacy_erasures_subject on privacy_erasures (tenant_id, subject_hash, created_at)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table privacy_erasures');
  await knex.raw('drop table privacy_exports');
  await knex.raw('drop index if exists maintenance_tasks_contact');
  await knex.raw('alter table maintenance_tasks drop column contact_id');
  await knex.raw('alter table tenant_settings drop column retention');
}
