import { Knex } from 'knex';
import { enableTenantRowSecurity } from '../row-security';

/**
 * The logo a file makes, decided once per file in the content sandbox (infra/reports/logo.ts):
 * the PNG the service re-encoded from it (at most 256 px a side), or why the file is no logo.
 * Report renderers embed only `png`, never the uploaded bytes. Gone with its file.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table logo_images (
      file_id uuid primary key references files (id) on delete cascade,
      tenant_id uuid not null references tenants (id),
      png bytea,
      width integer,
      height integer,
      refused text,
      created_at timestamptz not null default now(),
      constraint logo_images_outcome_check check ((png is null) <> (refused is null))
    )`);
  await knex.raw('create index logo_images_by_tenant on logo_images (tenant_id, file_id)');
  await enableTenantRowSecurity(knex, 'logo_images');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table logo_images');
}
