import { Knex } from 'knex';
import { enableTenantRowSecurity } from '../row-security';

/**
 * Deliveries parked while their endpoint's circuit is open (domain/webhooks/parking.ts): one row
 * per waiting delivery, whose workflow waits for a release signal carrying `ticket` and costs
 * nothing meanwhile. The releaser (orchestration/webhook-release.ts) sends them in event order
 * once a probe has succeeded. `webhook_parking_counts` holds each tenant's number of rows, so the
 * bound on a tenant's parked deliveries is checked in O(1).
 *
 * No foreign key to the webhook: a deleted webhook's rows are released so their workflows end
 * (skipped), and each row goes when its workflow attempts or ends.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhook_parked_deliveries', (t) => {
    t.uuid('delivery_id').primary();
    t.uuid('tenant_id').notNullable().references('tenants.id');
    t.uuid('webhook_id').notNullable();
    t.uuid('event_id').notNullable();
    // The attempt that waits (1-5): a parked delivery has not made it yet.
    t.integer('attempt').notNullable();
    // Release order: the event's time, then the delivery id.
    t.timestamp('event_at', { useTz: true }).notNullable();
    t.timestamp('parked_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // New for each parking: the workflow waits for a release naming it, so a late signal of an earlier parking releases nothing.
    t.uuid('ticket').notNullable();
    t.timestamp('released_at', { useTz: true });
    t.check('attempt between 1 and 5', [], 'webhook_parked_deliveries_attempt_check');
  });
  await knex.raw(`create index webhook_parked_deliveries_queue on webhook_parked_deliveries (tenant_id, webhook_id, event_at, delivery_id)`);
  await knex.raw(`create index webhook_parked_deliveries_released on webhook_parked_deliveries (tenant_id, webhook_id) where released_at is not null`);
  await knex.raw(`create index webhook_parked_deliveries_oldest on webhook_parked_deliveries (parked_at)`);
  await enableTenantRowSecurity(knex, 'webhook_parked_deliveries');

  await knex.schema.createTable('webhook_parking_counts', (t) => {
    t.uuid('tenant_id').primary().references('tenants.id');
    t.integer('parked').notNullable().defaultTo(0);
  });
  await enableTenantRowSecurity(knex, 'webhook_parking_counts');
  // A parking takes its place in the count in the statement that inserts its row (db/queries/webhook-parking.ts,
  // where the bound is checked); any delete of a row gives the place back.
  await knex.raw(`
    create function webhook_parking_release_place() returns trigger language plpgsql as $$
    begin
      update webhook_parking_counts set parked = parked - 1 where tenant_id = old.tenant_id;
      return old;
    end $$`);
  await knex.raw(`
    create trigger webhook_parked_deliveries_count after delete on webhook_parked_deliveries
      for each row execute function webhook_parking_release_place()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('webhook_parked_deliveries');
  await knex.raw(`drop function webhook_parking_release_place()`);
  await knex.schema.dropTable('webhook_parking_counts');
}
