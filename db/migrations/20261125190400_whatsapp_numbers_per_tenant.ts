import { Knex } from 'knex';

/**
 * A WhatsApp phone_number_id and a verify token are unique within a tenant, not across tenants
 * (issue 17): a global constraint let one tenant squat another company's number and told it the
 * number existed. Inbound messages go to the registration whose app secret verifies the
 * provider's signature, which only the number's real owner holds.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('whatsapp_numbers', (t) => {
    t.dropUnique(['phone_number_id']);
    t.dropUnique(['verify_token_hash']);
    t.unique(['tenant_id', 'phone_number_id']);
    t.unique(['tenant_id', 'verify_token_hash']);
    t.index(['phone_number_id']);
    t.index(['verify_token_hash']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('whatsapp_numbers', (t) => {
    t.dropIndex(['verify_token_hash']);
    t.dropIndex(['phone_number_id']);
    t.dropUnique(['tenant_id', 'verify_token_hash']);
    t.dropUnique(['tenant_id', 'phone_number_id']);
    t.unique(['verify_token_hash']);
    t.unique(['phone_number_id']);
  });
}
