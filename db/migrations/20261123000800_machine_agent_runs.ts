import { Knex } from 'knex';

/**
 * What machine agents did (issue 7): one row per run, i.e. per triggering event outside the
 * cooldown of its (agent, asset). Runs outlive their agent and their outbox event (no foreign
 * keys), like conversations.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('machine_agent_runs', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('tenant_id').notNullable().references('tenants.id');
    t.uuid('agent_id').notNullable();
    // Null for events that name no asset: those share one cooldown per agent.
    t.uuid('asset_id');
    t.uuid('event_id').notNullable();
    t.text('event_type').notNullable();
    t.text('action').notNullable();
    t.uuid('notification_id');
    t.text('engine').notNullable();
    t.text('reply_text').notNullable();
    // Events of the same (agent, asset) that arrived during this run's cooldown and were not run.
    t.integer('suppressed_events').notNullable().defaultTo(0);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // A redispatched event never runs an agent twice.
    t.unique(['tenant_id', 'agent_id', 'event_id']);
    t.check(`action in ('notified','recorded')`, [], 'machine_agent_runs_action_check');
    t.index(['tenant_id', 'agent_id', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('machine_agent_runs');
}
