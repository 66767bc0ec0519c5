import { Knex } from 'knex';

/**
 * Disabling a user, changing a role or a password takes effect at once (issue 17): access tokens
 * carry the user's `token_version`, which this trigger bumps on any of those changes, whatever
 * changes them (API, CLI, an operator's SQL); the API refuses a token whose version is behind.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    t.integer('token_version').notNullable().defaultTo(0);
  });
  await knex.raw(`
    create function users_bump_token_version() returns trigger language plpgsql as $$
    begin
      new.token_version := old.token_version + 1;
      return new;
    end $$`);
  await knex.raw(`
    create trigger users_token_version before update on users for each row
    when (old.status is distinct from new.status or old.role is distinct from new.role
          or old.password_hash is distinct from new.password_hash or old.tenant_id is distinct from new.tenant_id)
    execute function users_bump_token_version()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop trigger if exists users_token_version on users');
  await knex.raw('drop function if exists users_bump_token_version()');
  await knex.schema.alterTable('users', (t) => t.dropColumn('token_version'));
}
