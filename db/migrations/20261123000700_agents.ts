import { Knex } from 'knex';

/**
 * Agents and their channels (issue 7): email accounts, WhatsApp numbers, tools, agents, the
 * contacts (data subjects) they talk to, conversations and messages, and the per-tenant settings
 * row that holds `pii.auto_redact`.
 */
export async function up(knex: Knex): Promise<void> {
  // One row per tenant at most; a missing row means every setting has its default.
  await knex.schema.createTable('tenant_settings', (t) => {
    t.uuid('tenant_id').primary().references('tenants.id').onDelete('CASCADE');
    t.boolean('pii_auto_redact').notNullable().defaultTo(false);
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('email_accounts', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('tenant_id').notNullable().references('tenants.id');
    t.text('name').notNullable();
    t.text('email_address').notNullable();
    t.text('smtp_host').notNullable();
    t.integer('smtp_port').notNullable();
    t.boolean('smtp_secure').notNullable();
    t.text('username');
    // AES-256-GCM under DATA_ENCRYPTION_KEY (infra/crypto.ts), bound to the account id.
    t.text('password_encrypted');
    t.text('status').notNullable().defaultTo('active');
    t.timestamp('verified_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.check(`status in ('active','inactive')`, [], 'email_accounts_status_check');
    t.index(['tenant_id', 'created_at']);
  });

  await knex.schema.createTable('whatsapp_numbers', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('tenant_id').notNullable().references('tenants.id');
    t.text('display_phone_number').notNullable();
    // The provider's phone number id: the inbound webhook resolves the tenant from it, so it is
    // unique across tenants.
    t.text('phone_number_id').notNullable().unique();
    t.text('business_account_id');
    // AES-256-GCM under DATA_ENCRYPTION_KEY, bound to the number's id.
    t.text('access_token_encrypted').notNullable();
    // Inbound webhook (WhatsApp Cloud API): the app secret that signs POSTs (X-Hub-Signature-256),
    // encrypted like the token; the verify token of the GET challenge, kept as its SHA-256 only.
    t.text('app_secret_encrypted');
    t.text('verify_token_hash').unique();
    t.text('status').notNullable().defaultTo('active');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.check(`status in ('active','inactive')`, [], 'whatsapp_numbers_status_check');
    t.index(['tenant_id', 'created_at']);
  });

  await knex.schema.createTable('tools', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('tenant_id').notNullable().references('tenants.id');
    t.text('name').notNullable();
    t.text('description').notNullable();
    t.text('kind').notNullable();
    t.text('builtin');
    t.text('url');
    t.jsonb('parameters').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['tenant_id', 'name']);
    t.check(`(kind = 'built_in' and builtin is not null and url is null) or (kind = 'http' and url is not null and builtin is null)`, [], 'tools_kind_check');
  });

  await knex.schema.createTable('agents', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('tenant_id').notNullable().references('tenants.id');
    t.text('name').notNullable();
    t.text('type').notNullable();
    t.text('system_prompt').notNullable();
    t.text('model').notNullable();
    t.double('temperature').notNullable();
    // Tool ids; a deleted tool is removed from every agent in the same transaction.
    t.specificType('tools', 'uuid[]').notNullable().defaultTo('{}');
    // A channel in use cannot be deleted (restrict): the API answers 409.
    t.uuid('whatsapp_number_id').references('whatsapp_numbers.id').onDelete('RESTRICT');
    t.uuid('email_account_id').references('email_accounts.id').onDelete('RESTRICT');
    t.jsonb('trigger_config');
    t.text('status').notNullable().defaultTo('active');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.check(`type in ('whatsapp','email','machine')`, [], 'agents_type_check');
    t.check(`status in ('active','inactive','error')`, [], 'agents_status_check');
    t.check(`temperature >= 0 and temperature <= 2`, [], 'agents_temperature_check');
    // The channel fields of each type, and only those.
    t.check(
      `(type = 'whatsapp' and whatsapp_number_id is not null and email_account_id is null and trigger_config is null)
       or (type = 'email' and email_account_id is not null and whatsapp_number_id is null and trigger_config is null)
       or (type = 'machine' and trigger_config is not null and whatsapp_number_id is null and email_account_id is null)`,
      [],
      'agents_channel_check',
    );
    t.index(['tenant_id', 'created_at']);
    t.index(['tenant_id', 'email_account_id']);
    t.index(['tenant_id', 'whatsapp_number_id']);
  });

  // The data subject (DESIGN.md, Privacy): matched by phone or by e-mail within a tenant.
  await knex.schema.createTable('contacts', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('tenant_id').notNullable().references('tenants.id');
    t.text('name');
    t.text('phone');
    t.text('email');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.check(`phone is not null or email is not null`, [], 'contacts_reachable_check');
  });
  await knex.raw(`create unique index contacts_tenant_phone on contacts (tenant_id, phone) where phone is not null`);
  await knex.raw(`create unique index contacts_tenant_email on contacts (tenant_id, lower(email)) where email is not null`);

  await knex.schema.createTable('conversations', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('tenant_id').notNullable().references('tenants.id');
    // No foreign key: deleting an agent keeps its conversation history (SPEC.md, Agents rule 3),
    // still findable by the agent's id.
    t.uuid('agent_id').notNullable();
    t.uuid('contact_id').notNullable().references('contacts.id');
    t.text('channel').notNullable();
    t.text('status').notNullable().defaultTo('open');
    t.timestamp('started_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('closed_at', { useTz: true });
    t.check(`channel in ('whatsapp','email','machine')`, [], 'conversations_channel_check');
    t.check(`status in ('open','closed')`, [], 'conversations_status_check');
    t.index(['tenant_id', 'agent_id', 'started_at']);
    t.index(['tenant_id', 'contact_id', 'started_at']);
  });

  await knex.schema.createTable('messages', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('tenant_id').notNullable().references('tenants.id');
    t.uuid('conversation_id').notNullable().references('conversations.id').onDelete('CASCADE');
    t.text('direction').notNullable();
    // Written only through storeMessageBody (db/queries/conversations.ts): redacted when the
    // tenant's pii_auto_redact is on.
    t.text('body').notNullable();
    // The provider's message id (WhatsApp `wamid...`): a redelivered webhook stores it once.
    t.text('provider_message_id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['tenant_id', 'provider_message_id']);
    t.check(`direction in ('inbound','outbound')`, [], 'messages_direction_check');
    t.index(['tenant_id', 'conversation_id', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('messages');
  await knex.schema.dropTable('conversations');
  await knex.schema.dropTable('contacts');
  await knex.schema.dropTable('agents');
  await knex.schema.dropTable('tools');
  await knex.schema.dropTable('whatsapp_numbers');
  await knex.schema.dropTable('email_accounts');
  await knex.schema.dropTable('tenant_settings');
}
