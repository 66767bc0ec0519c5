import { Knex } from 'knex';

/**
 * A tenant's default country (ISO 3166-1 alpha-2), set in its privacy settings: a phone number
 * written in national form (`0612 345 678`) names a subject of that country.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table tenant_settings add column default_country text constraint tenant_settings_default_country_check check (default_country ~ '^[A-Z]{2}$')`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table tenant_settings drop column default_country');
}
