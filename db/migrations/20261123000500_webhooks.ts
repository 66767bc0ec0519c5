import { Knex } from 'knex';

/**
 * Outbound webhooks: subscriptions, one record per delivery attempt, the per-webhook in-flight
 * leases that bound concurrency, and a NOTIFY on outbox inserts that wakes the dispatcher.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhooks', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('tenant_id').notNullable().references('tenants.id');
    t.text('url').notNullable();
    t.specificType('events', 'text[]').notNullable();
    t.jsonb('filters').notNullable().defaultTo('{}');
    t.text('description');
    t.text('status').notNullable().defaultTo('active');
    // AES-256-GCM under DATA_ENCRYPTION_KEY (infra/crypto.ts), bound to the webhook id.
    t.text('secret_encrypted').notNullable();
    // The secret before the last rotation keeps signing until this time (24 h).
    t.text('previous_secret_encrypted');
    t.timestamp('previous_secret_expires_at', { useTz: true });
    // Start of the current failing episode: one notification per episode.
    t.timestamp('failing_since', { useTz: true });
    // Start of the current low-success-rate episode: one alert per episode.
    t.timestamp('low_success_alerted_at', { useTz: true });
    t.text('disabled_reason');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.check(`status in ('active','paused','failing','disabled')`, [], 'webhooks_status_check');
    t.index(['tenant_id', 'created_at']);
  });
  // The dispatcher's lookup: the receiving webhooks of one tenant.
  await knex.raw(`create index webhooks_receiving on webhooks (tenant_id) where status in ('active','failing')`);

  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('tenant_id').notNullable().references('tenants.id');
    t.uuid('webhook_id').notNullable().references('webhooks.id').onDelete('CASCADE');
    // The delivery (same for its attempts, sent as webhook-id); one record per attempt.
    t.uuid('delivery_id').notNullable();
    // Redeliveries name the delivery they repeat.
    t.uuid('redelivery_of');
    // No foreign key: the outbox may be purged before the delivery log.
    t.uuid('event_id').notNullable();
    t.text('event_type').notNullable();
    t.smallint('attempt').notNullable();
    t.text('status').notNullable();
    t.integer('status_code');
    t.integer('latency_ms');
    t.text('response_body');
    // Why the attempt failed: http_status, redirect, timeout, connection_error, refused_destination, gone.
    t.text('failure_cause');
    t.text('error');
    // When the workflow plans the next attempt; null when this attempt was the last one.
    t.timestamp('next_attempt_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['delivery_id', 'attempt']);
    t.check('attempt between 1 and 5', [], 'webhook_deliveries_attempt_check');
    t.check(`status in ('succeeded','failed')`, [], 'webhook_deliveries_status_check');
  });
  // Listing and analytics per webhook over time; the retention sweep and the success-rate check by time.
  await knex.raw(`create index webhook_deliveries_by_webhook on webhook_deliveries (tenant_id, webhook_id, created_at desc)`);
  await knex.raw(`create index webhook_deliveries_by_time on webhook_deliveries (created_at)`);
  // Recover skips deliveries that were already redelivered.
  await knex.raw(`create index webhook_deliveries_redeliveries on webhook_deliveries (tenant_id, redelivery_of) where redelivery_of is not null`);

  // At most N attempts in flight per webhook: an attempt holds a lease while its POST runs. A
  // lease expires on its own, so a killed worker cannot leak a slot for longer than its TTL.
  // Infrastructure rather than tenant data: keyed by the delivery, whose workflow id names the tenant.
  await knex.schema.createTable('webhook_delivery_leases', (t) => {
    t.uuid('delivery_id').primary();
    t.uuid('webhook_id').notNullable().references('webhooks.id').onDelete('CASCADE');
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.index(['webhook_id']);
  });
  // One round trip: serialise per webhook (transaction advisory lock), drop expired leases,
  // then take one if fewer than max_in_flight are held. A retried attempt renews its own lease.
  await knex.raw(`
    create function webhook_acquire_lease(p_webhook uuid, p_delivery uuid, p_max integer, p_ttl interval)
    returns boolean language plpgsql as $$
    begin
      perform pg_advisory_xact_lock(hashtextextended('webhook-lease:' || p_webhook::text, 0));
      delete from webhook_delivery_leases where webhook_id = p_webhook and expires_at < now();
      update webhook_delivery_leases set expires_at = now() + p_ttl where delivery_id = p_delivery;
      if found then return true; end if;
      if (select count(*) from webhook_delivery_leases where webhook_id = p_webhook) >= p_max then
        return false;
      end if;
      insert into webhook_delivery_leases (delivery_id, webhook_id, expires_at) values (p_delivery, p_webhook, now() + p_ttl);
      return true;
    end $$;
  `);

  // Wakes the dispatcher as soon as an event commits (NOTIFY is delivered at commit); once per
  // statement, and PostgreSQL folds identical notifications of one transaction into one.
  await knex.raw(`
    create function outbox_events_notify() returns trigger language plpgsql as $$
    begin
      perform pg_notify('outbox_events', '');
      return null;
    end $$;
  `);
  await knex.raw(`create trigger outbox_events_notify after insert on outbox_events
                  for each statement execute function outbox_events_notify()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop trigger if exists outbox_events_notify on outbox_events');
  await knex.raw('drop function if exists outbox_events_notify()');
  await knex.raw('drop function if exists webhook_acquire_lease(uuid, uuid, integer, interval)');
  await knex.schema.dropTable('webhook_delivery_leases');
  await knex.schema.dropTable('webhook_deliveries');
  await knex.schema.dropTable('webhooks');
}
