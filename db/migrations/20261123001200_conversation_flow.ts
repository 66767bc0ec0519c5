import { Knex } from 'knex';

/**
 * Conversations that answer (issue 7, rest): outbound delivery state on messages, the email
 * subject and an idempotency key per outbound message, the inbound-email signing secret of each
 * email account, the log of tool calls, and the corrective task a machine agent opened.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('messages', (t) => {
    // Outbound only (null for inbound): pending until the provider accepted it, failed when it refused.
    t.text('delivery_status');
    t.text('failure_reason');
    t.timestamp('sent_at', { useTz: true });
    // Email only: the subject (redacted like the body), for the reply's "Re:".
    t.text('subject');
    // Outbound only: what this message answers (`reply:<inbound id>`, `survey:<conversation id>`...):
    // a retried activity finds its message instead of writing a second one.
    t.text('idempotency_key');
    t.unique(['tenant_id', 'idempotency_key']);
    t.check(`delivery_status is null or delivery_status in ('pending','sent','failed')`, [], 'messages_delivery_status_check');
  });

  await knex.schema.alterTable('email_accounts', (t) => {
    // HMAC-SHA256 key of POST /api/v1/email/inbound/{account_id} (X-Inbound-Signature), encrypted
    // with DATA_ENCRYPTION_KEY bound to the account id. Null until generated (create or rotate).
    t.text('inbound_secret_encrypted');
  });

  await knex.schema.createTable('tool_calls', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('tenant_id').notNullable().references('tenants.id');
    t.uuid('conversation_id').notNullable().references('conversations.id').onDelete('CASCADE');
    // The inbound message the call answered.
    t.uuid('message_id').references('messages.id').onDelete('SET NULL');
    // No foreign key: the log outlives a deleted tool.
    t.uuid('tool_id');
    t.text('name').notNullable();
    t.jsonb('arguments').notNullable();
    t.jsonb('result');
    t.text('status').notNullable();
    t.integer('duration_ms').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.check(`status in ('succeeded','failed')`, [], 'tool_calls_status_check');
    t.index(['tenant_id', 'conversation_id', 'created_at']);
  });
  // One call of a tool per answered message: a retried activity reuses the logged result (and a
  // created task is never created twice).
  await knex.raw(`create unique index tool_calls_once_per_message on tool_calls (tenant_id, message_id, name) where message_id is not null`);

  await knex.schema.alterTable('machine_agent_runs', (t) => {
    // The corrective task the run opened (agents with the create_maintenance_task tool).
    t.uuid('task_id');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('machine_agent_runs', (t) => t.dropColumn('task_id'));
  await knex.schema.dropTable('tool_calls');
  await knex.schema.alterTable('email_accounts', (t) => t.dropColumn('inbound_secret_encrypted'));
  await knex.schema.alterTable('messages', (t) => {
    t.dropUnique(['tenant_id', 'idempotency_key']);
    t.dropChecks(['messages_delivery_status_check']);
    t.dropColumns('delivery_status', 'failure_reason', 'sent_at', 'subject', 'idempotency_key');
  });
}
