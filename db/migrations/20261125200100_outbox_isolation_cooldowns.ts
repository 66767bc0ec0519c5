import { Knex } from 'knex';

/**
 * No tenant or machine can stall another (issue 23).
 *
 * Outbox: each event is dispatched on its own. One whose start or signal fails is retried alone
 * (`attempts`, `next_attempt_at`, `last_error`) and, after too many failures, parked
 * (`parked_at`, with `dispatched_at` set so the dispatcher and the partial index leave it and
 * retention expires it like any finished row). Candidates are taken per tenant, oldest first
 * within each, from the index below.
 *
 * Machine agent runs: `cooldown_until` is set while the run's cooldown lasts, so the dispatcher
 * counts the events of that (agent, asset) into `suppressed_unsignalled` instead of signalling
 * each one to the workflow; the workflow clears it when its cooldown timer fires. The database
 * time is only a safety net for a workflow that never comes back.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('outbox_events', (t) => {
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('next_attempt_at', { useTz: true });
    t.text('last_error');
    t.timestamp('parked_at', { useTz: true });
  });
  await knex.raw(`create index outbox_events_undispatched_by_tenant on outbox_events (tenant_id, created_at) where dispatched_at is null`);
  await knex.raw(`create index outbox_events_parked on outbox_events (parked_at) where parked_at is not null`);

  await knex.schema.alterTable('machine_agent_runs', (t) => {
    t.timestamp('cooldown_until', { useTz: true });
    t.integer('suppressed_unsignalled').notNullable().defaultTo(0);
  });
  await knex.raw(`create index machine_agent_runs_cooling on machine_agent_runs (tenant_id, agent_id, cooldown_until) where cooldown_until is not null`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists machine_agent_runs_cooling');
  await knex.schema.alterTable('machine_agent_runs', (t) => {
    t.dropColumn('suppressed_unsignalled');
    t.dropColumn('cooldown_until');
  });
  await knex.raw('drop index if exists outbox_events_parked');
  await knex.raw('drop index if exists outbox_events_undispatched_by_tenant');
  await knex.schema.alterTable('outbox_events', (t) => {
    t.dropColumn('parked_at');
    t.dropColumn('last_error');
    t.dropColumn('next_attempt_at');
    t.dropColumn('attempts');
  });
}
