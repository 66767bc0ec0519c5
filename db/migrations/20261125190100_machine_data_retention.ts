import { Knex } from 'knex';

/**
 * machine_events_days also expires sensor readings and dispatched outbox rows (issue 21). The
 * sweep selects them by arrival time per tenant; both tables are append-mostly in arrival order,
 * so a BRIN index finds the old block ranges for a few pages of index and costs the ingest path
 * almost nothing (a B-tree on every reading would).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('create index sensor_readings_received_brin on sensor_readings using brin (received_at)');
  await knex.raw('create index outbox_events_created_brin on outbox_events using brin (created_at)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists outbox_events_created_brin');
  await knex.raw('drop index if exists sensor_readings_received_brin');
}
