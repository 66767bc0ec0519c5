import type { Knex } from 'knex';

/**
 * Revocable sessions and service tokens.
 *
 * - `auth_sessions`: one row per login (the refresh-token family, same id). Its `revoked_at` is the
 *   one revocation state of the family: refresh refuses its tokens, and access tokens carry the
 *   session id (`sid`) so the session check refuses them too. It replaces the per-token
 *   `revoked_at`/`revoke_reason` of `refresh_tokens` (folded in here, then dropped).
 * - A trigger revokes every session of a user whose password changes, who stops being active or
 *   moves tenant, whatever writes the row (API, CLI, an operator's SQL): the user's token_version
 *   already voids their access tokens; this closes the refresh tokens.
 * - A rehash at login (stronger scrypt parameters, same password) is no password change: it sets
 *   the transaction-local `app.password_rehash`, and both users triggers (this one and the
 *   token_version bump, replaced here) leave a row alone whose only change is its hash then.
 * - `service_token_revocations`: revoked service tokens by `jti`, checked on every internal call.
 *   A row can go 90 days after `revoked_at` (the longest a service token lives).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('auth_sessions', (t) => {
    t.uuid('id').primary();
    t.uuid('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('revoked_at', { useTz: true });
    t.text('revoke_reason');
    t.index(['tenant_id']);
    t.index(['user_id']);
  });
  await knex.raw(`
    insert into auth_sessions (id, tenant_id, user_id, created_at, revoked_at, revoke_reason)
    select family_id, (array_agg(tenant_id))[1], (array_agg(user_id))[1], min(created_at), max(revoked_at),
           (array_agg(revoke_reason order by revoked_at) filter (where revoked_at is not null))[1]
    from refresh_tokens group by family_id`);
  await knex.schema.alterTable('refresh_tokens', (t) => {
    t.foreign('family_id').references('auth_sessions.id').onDelete('CASCADE');
    t.dropColumn('revoked_at');
    t.dropColumn('revoke_reason');
  });

  await knex.raw(`
    create function users_password_rehash_only(p_old users, p_new users) returns boolean language sql stable as $$
      select coalesce(current_setting('app.password_rehash', true), '') = 'on'
        and p_old.status is not distinct from p_new.status and p_old.role is not distinct from p_new.role
        and p_old.tenant_id is not distinct from p_new.tenant_id
    $$`);
  await knex.raw(`
    create or replace function users_bump_token_version() returns trigger language plpgsql as $$
    begin
      if users_password_rehash_only(old, new) then return new; end if;
      new.token_version := old.token_version + 1;
      return new;
    end $$`);
  await knex.raw(`
    create function users_revoke_sessions() returns trigger language plpgsql as $$
    begin
      if users_password_rehash_only(old, new) then return null; end if;
      update auth_sessions set revoked_at = now(),
        revoke_reason = case when old.password_hash is distinct from new.password_hash then 'password_changed'
                             when old.tenant_id is distinct from new.tenant_id then 'tenant_changed'
                             else 'user_disabled' end
      where user_id = new.id and revoked_at is null;
      return null;
    end $$`);
  await knex.raw(`
    create trigger users_revoke_sessions after update on users for each row
    when (old.password_hash is distinct from new.password_hash or old.tenant_id is distinct from new.tenant_id
          or (old.status = 'active' and new.status is distinct from 'active'))
    execute function users_revoke_sessions()`);

  await knex.schema.createTable('service_token_revocations', (t) => {
    t.uuid('jti').primary();
    t.timestamp('revoked_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.text('revoked_by').notNullable();
    t.index(['revoked_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('service_token_revocations');
  await knex.raw('drop trigger if exists users_revoke_sessions on users');
  await knex.raw('drop function if exists users_revoke_sessions()');
  await knex.raw(`
    create or replace function users_bump_token_version() returns trigger language plpgsql as $$
    begin
      new.token_version := old.token_version + 1;
      return new;
    end $$`);
  await knex.raw('drop function if exists users_password_rehash_only(users, users)');
  await knex.schema.alterTable('refresh_tokens', (t) => {
    t.dropForeign(['family_id']);
    t.timestamp('revoked_at', { useTz: true });
    t.text('revoke_reason');
  });
  await knex.raw(`
    update refresh_tokens r set revoked_at = s.revoked_at, revoke_reason = s.revoke_reason
    from auth_sessions s where s.id = r.family_id and s.revoked_at is not null`);
  await knex.schema.dropTable('auth_sessions');
}
