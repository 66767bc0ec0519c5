import { Knex } from 'knex';

/**
 * The circuit breaker of each webhook endpoint (domain/webhooks/circuit-breaker.ts), shared by
 * every worker process. A row exists once an attempt of the webhook has failed; no row reads as
 * closed with no failure, so a healthy webhook's attempts write nothing here.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhook_circuit_breakers', (t) => {
    t.uuid('tenant_id').notNullable().references('tenants.id');
    t.uuid('webhook_id').notNullable().references('webhooks.id').onDelete('CASCADE');
    t.text('state').notNullable().defaultTo('closed');
    t.timestamp('since', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.integer('consecutive_failures').notNullable().defaultTo(0);
    // half_open: the delivery whose attempt is the probe, and when its claim runs out (a dead worker's probe).
    t.uuid('probe_delivery_id');
    t.timestamp('probe_expires_at', { useTz: true });
    t.primary(['tenant_id', 'webhook_id']);
    t.unique(['webhook_id']);
    t.check(`state in ('closed','open','half_open')`, [], 'webhook_circuit_breakers_state_check');
  });
  // The metrics' count per state reads only the circuits that are not closed.
  await knex.raw(`create index webhook_circuit_breakers_not_closed on webhook_circuit_breakers (state) where state <> 'closed'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('webhook_circuit_breakers');
}
