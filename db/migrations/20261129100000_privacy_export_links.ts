import { Knex } from 'knex';

/**
 * Export links: the API hands out a signed link of its own (domain/privacy/export-link.ts) from the
 * moment an export is requested, valid 24 h from then; the object store's presigned URL is made
 * per download and never stored. So every export has its expiry from creation, and the stored
 * presigned URLs (credentials at rest) go.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`update privacy_exports set expires_at = created_at + interval '24 hours' where expires_at is null`);
  await knex.raw(`alter table privacy_exports alter column expires_at set default now() + interval '24 hours', alter column expires_at set not null`);
  await knex.raw('alter table privacy_exports drop column url');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table privacy_exports add column url text');
  await knex.raw('alter table privacy_exports alter column expires_at drop not null, alter column expires_at drop default');
}
