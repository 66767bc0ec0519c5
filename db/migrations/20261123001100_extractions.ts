import { Knex } from 'knex';

/**
 * AI extraction (issue 8): templates (named, typed fields), extraction jobs, the records they store,
 * and the history of corrections people make to a record.
 *
 * Personal data: a record's fields (values and source-span text) are about its subject; they are in
 * the privacy registry (extracted_records, extracted_record_corrections). The input text is
 * transient: `extractions.input_text` (text sources) until the job splits it into
 * `extraction_chunks`, whose rows are deleted in the transaction that stores the record or marks
 * the job failed.
 * file_id has no foreign key: files belong to the files feature and may be deleted after extraction;
 * the record keeps what was extracted.
 * The tables carry `tenant_id`; extraction_chunks is keyed by its job (itself tenant-scoped).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table extraction_templates (
      id uuid primary key default gen_random_uuid(),
      tenant_id uuid not null references tenants (id),
      name text not null,
      description text,
      fields jsonb not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`);
  await knex.raw('create unique index extraction_templates_tenant_name on extraction_templates (tenant_id, lower(name))');
  await knex.raw('create index extraction_templates_tenant_created on extraction_templates (tenant_id, created_at, id)');

  await knex.raw(`
    create table extractions (
      id uuid primary key default gen_random_uuid(),
      tenant_id uuid not null references tenants (id),
      template_id uuid not null references extraction_templates (id),
      -- The template's fields when the job was created: an edit of the template meanwhile does not
      -- change what this job extracts.
      template_fields jsonb not null,
      source_kind text not null,
      file_id uuid,
      -- Transient (see above): the text of a 'text' source until the job splits it into chunks.
      input_text text,
      chunk_count integer,
      status text not null default 'queued',
      -- A safe, fixed description of the failure; never text from the document.
      error text,
      created_by uuid references users (id) on delete set null,
      created_at timestamptz not null default now(),
      started_at timestamptz,
      completed_at timestamptz,
      constraint extractions_source_check check (
        (source_kind = 'file' and file_id is not null) or (source_kind = 'text' and file_id is null)),
      constraint extractions_status_check check (status in ('queued', 'running', 'completed', 'failed'))
    )`);
  await knex.raw('create index extractions_tenant_created on extractions (tenant_id, created_at, id)');
  await knex.raw('create index extractions_template on extractions (tenant_id, template_id)');

  // Transient, one row per (job, chunk): the chunk's text, then the chunk activity's result (written
  // once, so a retried activity is idempotent). Deleted when the job completes or fails.
  await knex.raw(`
    create table extraction_chunks (
      tenant_id uuid not null references tenants (id),
      extraction_id uuid not null references extractions (id) on delete cascade,
      chunk_index integer not null,
      start_offset integer not null,
      text text not null,
      result jsonb,
      primary key (extraction_id, chunk_index)
    )`);

  await knex.raw(`
    create table extracted_records (
      id uuid primary key default gen_random_uuid(),
      tenant_id uuid not null references tenants (id),
      extraction_id uuid unique references extractions (id) on delete set null,
      template_id uuid not null references extraction_templates (id),
      -- The template's field definitions when the record was extracted: corrections validate against
      -- these, so editing the template later never reinterprets an existing record.
      template_fields jsonb not null,
      file_id uuid,
      subject_contact_id uuid references contacts (id),
      -- {<field name>: {value, confidence, source: {start, end, text} | null, engine}}
      fields jsonb not null,
      engine text not null,
      model text not null,
      notice text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      constraint extracted_records_engine_check check (engine in ('built-in', 'openai-compatible', 'mixed'))
    )`);
  await knex.raw('create index extracted_records_tenant_created on extracted_records (tenant_id, created_at, id)');
  await knex.raw('create index extracted_records_template on extracted_records (tenant_id, template_id)');
  await knex.raw('create index extracted_records_subject on extracted_records (tenant_id, subject_contact_id) where subject_contact_id is not null');

  await knex.raw(`
    create table extracted_record_corrections (
      id bigserial primary key,
      tenant_id uuid not null references tenants (id),
      record_id uuid not null references extracted_records (id) on delete cascade,
      field text not null,
      original_value jsonb,
      corrected_value jsonb,
      corrected_by uuid references users (id) on delete set null,
      corrected_at timestamptz not null default now(),
      reason text
    )`);
  await knex.raw('create index extracted_record_corrections_record on extracted_record_corrections (tenant_id, record_id, id)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table extracted_record_corrections');
  await knex.raw('drop table extracted_records');
  await knex.raw('drop table extraction_chunks');
  await knex.raw('drop table extractions');
  await knex.raw('drop table extraction_templates');
}
