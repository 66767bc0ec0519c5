import { Knex } from 'knex';

/**
 * Each stored credential records the destination it was given for (domain/credentials/
 * destination-binding.ts): an e-mail password its SMTP host, port and TLS mode, a WhatsApp access
 * token its phone number id, a webhook signing secret its URL. The send paths refuse a credential
 * whose recorded destination differs from the row's, so a destination changed behind the API's
 * back (SQL, older code) never receives it. Existing rows are bound to where they point now.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('email_accounts', (t) => t.jsonb('password_destination'));
  await knex.schema.alterTable('whatsapp_numbers', (t) => t.jsonb('access_token_destination'));
  await knex.schema.alterTable('webhooks', (t) => t.jsonb('secret_destination'));
  await knex.raw(`update email_accounts set password_destination = jsonb_build_object('smtp_host', smtp_host, 'smtp_port', smtp_port, 'smtp_secure', smtp_secure)
                   where password_encrypted is not null`);
  await knex.raw(`update whatsapp_numbers set access_token_destination = jsonb_build_object('phone_number_id', phone_number_id)`);
  await knex.raw(`update webhooks set secret_destination = jsonb_build_object('url', url)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhooks', (t) => t.dropColumn('secret_destination'));
  await knex.schema.alterTable('whatsapp_numbers', (t) => t.dropColumn('access_token_destination'));
  await knex.schema.alterTable('email_accounts', (t) => t.dropColumn('password_destination'));
}
