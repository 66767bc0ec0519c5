import { Knex } from 'knex';

/**
 * When a condition or predictive plan last read its readings: the worker's catch-up sweep tells
 * the plans whose assets received readings since (their `readings` signal was lost).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table maintenance_plans add column readings_seen_at timestamptz');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table maintenance_plans drop column readings_seen_at');
}
