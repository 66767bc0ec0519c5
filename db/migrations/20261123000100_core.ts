import { Knex } from 'knex';

/**
 * Foundation tables: tenants and their users, refresh-token families, the audit trail,
 * the event outbox, queued notifications and the shared rate-limit counters.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('tenants', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('name').notNullable();
    t.text('slug').notNullable().unique();
    t.text('plan').notNullable();
    // Salt for hashing data-subject ids in the audit trail; never leaves the database.
    t.binary('audit_salt').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.check(`plan in ('free','starter','professional','enterprise')`, [], 'tenants_plan_check');
  });

  await knex.schema.createTable('users', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.text('email').notNullable();
    t.text('name');
    t.text('password_hash').notNullable();
    t.text('role').notNullable();
    t.text('status').notNullable().defaultTo('active');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.check(`role in ('admin','manager','technician','viewer')`, [], 'users_role_check');
    t.check(`status in ('active','disabled')`, [], 'users_status_check');
    t.index(['tenant_id']);
  });
  // Login takes an email without a tenant, so an email identifies one user across tenants.
  await knex.raw('create unique index users_email_unique on users (lower(email))');

  await knex.schema.createTable('refresh_tokens', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.uuid('family_id').notNullable();
    t.text('token_hash').notNullable().unique();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('rotated_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
    t.text('revoke_reason');
    t.index(['family_id']);
  });

  await knex.schema.createTable('audit_log', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('tenant_id').notNullable().references('tenants.id');
    t.bigInteger('seq').notNullable();
    t.timestamp('occurred_at', { useTz: true }).notNullable();
    t.text('actor_type').notNullable();
    t.text('actor_id');
    t.text('action').notNullable();
    t.text('resource_type').notNullable();
    t.text('resource_id');
    t.text('request_id');
    t.jsonb('details').notNullable().defaultTo('{}');
    // Data-subject link, erasable without breaking the chain: the chain covers only
    // subject_digest = sha256(subject_nonce || subject_hash). Erasure clears subject_ref
    // (raw id) and, when the audit is not preserved, subject_hash and subject_nonce too.
    t.text('subject_ref');
    t.text('subject_hash');
    t.text('subject_nonce');
    t.text('subject_digest');
    t.text('prev_hash').notNullable();
    t.text('hash').notNullable();
    t.unique(['tenant_id', 'seq']);
    t.index(['tenant_id', 'occurred_at']);
    t.index(['tenant_id', 'resource_type', 'resource_id']);
    t.check(`actor_type in ('user','service','system')`, [], 'audit_actor_type_check');
  });
  await knex.raw(`create index audit_log_subject_hash on audit_log (tenant_id, subject_hash) where subject_hash is not null`);
  await knex.raw(`
    create function audit_log_guard() returns trigger language plpgsql as $$
    begin
      if tg_op = 'UPDATE' then
        -- Only erasure may touch a row, and only by clearing the subject columns.
        if (to_jsonb(new) - array['subject_ref','subject_hash','subject_nonce'])
             = (to_jsonb(old) - array['subject_ref','subject_hash','subject_nonce'])
           and (new.subject_ref is null or new.subject_ref = old.subject_ref)
           and (new.subject_hash is null or new.subject_hash = old.subject_hash)
           and (new.subject_nonce is null or new.subject_nonce = old.subject_nonce) then
          return new;
        end if;
        raise exception 'audit_log is append-only' using errcode = 'insufficient_privilege';
      elsif tg_op = 'DELETE' then
        -- Retention may delete rows past the minimum audit retention of 365 days, and only
        -- when the purge job says so for its transaction.
        if coalesce(current_setting('app.audit_retention_purge', true), '') = 'on'
           and old.occurred_at < now() - interval '365 days' then
          return old;
        end if;
        raise exception 'audit_log is append-only' using errcode = 'insufficient_privilege';
      end if;
      raise exception 'audit_log is append-only' using errcode = 'insufficient_privilege';
    end $$;
  `);
  await knex.raw(`create trigger audit_log_append_only before update or delete on audit_log
                  for each row execute function audit_log_guard()`);
  await knex.raw(`create trigger audit_log_no_truncate before truncate on audit_log
                  for each statement execute function audit_log_guard()`);

  await knex.schema.createTable('outbox_events', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('tenant_id').notNullable().references('tenants.id');
    t.text('type').notNullable();
    t.jsonb('data').notNullable();
    t.timestamp('occurred_at', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.text('source').notNullable().defaultTo('api');
    // The sender's own event id, so a retried internal event is stored once.
    t.text('idempotency_key');
    t.timestamp('dispatched_at', { useTz: true });
    t.unique(['tenant_id', 'idempotency_key']);
  });
  await knex.raw(`create index outbox_events_undispatched on outbox_events (created_at) where dispatched_at is null`);

  await knex.schema.createTable('notifications', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('tenant_id').notNullable().references('tenants.id');
    t.text('channel').notNullable();
    t.text('category').notNullable();
    t.jsonb('recipients').notNullable();
    t.text('subject').notNullable();
    t.text('body').notNullable();
    t.text('status').notNullable().defaultTo('queued');
    t.integer('attempts').notNullable().defaultTo(0);
    t.text('last_error');
    t.text('delivered_via');
    t.text('idempotency_key');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('processed_at', { useTz: true });
    t.unique(['tenant_id', 'idempotency_key']);
    t.check(`channel in ('email')`, [], 'notifications_channel_check');
    t.check(`status in ('queued','sent','recorded','failed')`, [], 'notifications_status_check');
  });

  // Counters of rate-limiter-flexible (RateLimiterPostgres layout), shared by all API processes.
  // UNLOGGED: counters live for a minute, so they skip the WAL (no flush per request); a crash
  // empties the table, which only forgives the current window.
  await knex.raw(`create unlogged table rate_limits (
    key varchar(255) primary key,
    points integer not null default 0,
    expire bigint
  )`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('rate_limits');
  await knex.schema.dropTable('notifications');
  await knex.schema.dropTable('outbox_events');
  await knex.raw('drop trigger if exists audit_log_no_truncate on audit_log');
  await knex.raw('drop trigger if exists audit_log_append_only on audit_log');
  await knex.schema.dropTable('audit_log');
  await knex.raw('drop function if exists audit_log_guard()');
  await knex.schema.dropTable('refresh_tokens');
  await knex.schema.dropTable('users');
  await knex.schema.dropTable('tenants');
}
