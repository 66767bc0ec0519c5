import { Knex } from 'knex';

/**
 * SPEC.md's delivery rules are the default: every failure (410 included) is retried on the fixed
 * schedule and a webhook is never deactivated automatically. Two per-webhook opt-ins offer what
 * Stripe- and Svix-style receivers expect: disable on 410 Gone, honour Retry-After on 429/503.
 * The owner (the user who created the webhook, changeable) receives its low-success alert;
 * `low_success_since` is when a check first saw the rate below 50 %, so the alert waits until the
 * rate has stayed there for 24 hours.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhooks', (t) => {
    t.boolean('disable_on_gone').notNullable().defaultTo(false);
    t.boolean('honour_retry_after').notNullable().defaultTo(false);
    t.uuid('owner_user_id').nullable().references('id').inTable('users').onDelete('SET NULL');
    t.timestamp('low_success_since', { useTz: true }).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhooks', (t) => {
    t.dropColumn('low_success_since');
    t.dropColumn('owner_user_id');
    t.dropColumn('honour_retry_after');
    t.dropColumn('disable_on_gone');
  });
}
