import type { Knex } from 'knex';

/**
 * Failure limits per parameter in the predictive config (issue 20): where set, the general
 * prognostics model projects a parameter's trend to this limit instead of its baseline band edge.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table predictive_configs add column failure_limits jsonb not null default '{}'::jsonb`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table predictive_configs drop column failure_limits');
}
