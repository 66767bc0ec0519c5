import { Knex } from 'knex';

/**
 * A plan generates preventive tasks or inspections (issue 21: completing an inspection records it
 * on the task's assets and recomputes their condition, as SPEC.md says).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table maintenance_plans
      add column task_kind text not null default 'preventive',
      add constraint maintenance_plans_task_kind_check check (task_kind in ('preventive', 'inspection'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table maintenance_plans drop column task_kind');
}
