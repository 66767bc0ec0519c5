import { Knex } from 'knex';

/**
 * One counter reading can cross more thresholds than an integer holds (found by the fuzzer: a
 * reading of 1e15 on a plan counting every 1e-6 hours crosses 1e21 of them); the insert failed and
 * the plan's Update retried it for ever. The count is kept as a double, like the readings.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table maintenance_counter_readings alter column thresholds_crossed type double precision');
  await knex.raw('alter table maintenance_executions alter column thresholds_crossed type double precision');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table maintenance_counter_readings alter column thresholds_crossed type integer using least(thresholds_crossed, 2147483647)::integer');
  await knex.raw('alter table maintenance_executions alter column thresholds_crossed type integer using least(thresholds_crossed, 2147483647)::integer');
}
