import { Knex } from 'knex';

/**
 * Condition (and later predictive) triggers: an execution and its task may name them as their
 * trigger, and carry the evidence the decision saw (parameter, limit, readings) as JSON.
 */
const TRIGGERS = `('calendar', 'counter', 'condition', 'predictive')`;

export async function up(knex: Knex): Promise<void> {
  for (const table of ['maintenance_tasks', 'maintenance_executions']) {
    await knex.raw(`alter table ${table} drop constraint ${table}_trigger_check`);
    await knex.raw(`alter table ${table} add constraint ${table}_trigger_check check (trigger in ${TRIGGERS})`);
    await knex.raw(`alter table ${table} add column evidence jsonb`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['maintenance_tasks', 'maintenance_executions']) {
    await knex.raw(`alter table ${table} drop column evidence`);
    await knex.raw(`alter table ${table} drop constraint ${table}_trigger_check`);
    await knex.raw(`alter table ${table} add constraint ${table}_trigger_check check (trigger in ('calendar', 'counter'))`);
  }
}
