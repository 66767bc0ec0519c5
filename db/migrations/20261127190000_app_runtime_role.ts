import { Knex } from 'knex';
import { APP_RUNTIME_ROLE } from '../roles';
import { AUDIT_PURGER_ROLE } from './20261125200000_audit_purge_role';

/**
 * The role the API and the worker run as. Migrations run as the owner of the tables; the
 * processes connect as a login role that owns nothing and is a member of `app_runtime`, a
 * NOLOGIN role holding DML on the tables (select, insert, update, delete: no truncate, trigger or
 * references), usage of the sequences and execute on the audit purge. Not the owner, it cannot
 * disable the audit trail's trigger or drop a policy; without superuser or membership of
 * `audit_purger` it cannot become that role nor set `session_replication_role`.
 *
 * Default privileges grant the same on what later migrations create (when the same role runs
 * them). db/roles.ts admitAppRole makes the app's login role a member after migrating. The migrating role
 * needs CREATEROLE, or an administrator runs `create role app_runtime nologin` first.
 */
const MIGRATION_TABLES = ['knex_migrations', 'knex_migrations_lock'];
const PURGE_FUNCTION = 'audit_log_purge_expired(uuid, timestamptz, timestamptz, integer)';

export async function up(knex: Knex): Promise<void> {
  const { rows } = await knex.raw('select current_schema() as schema');
  const schema = (rows[0] as { schema: string }).schema;
  await knex.raw(`
    do $$ begin
      if not exists (select 1 from pg_roles where rolname = '${APP_RUNTIME_ROLE}') then
        create role ${APP_RUNTIME_ROLE} nologin nosuperuser nocreatedb nocreaterole noreplication nobypassrls;
      end if;
    exception
      when duplicate_object or unique_violation then null;
      when insufficient_privilege then
      raise exception 'creating role ${APP_RUNTIME_ROLE} needs CREATEROLE: run "create role ${APP_RUNTIME_ROLE} nologin" as an administrator, then migrate again';
    end $$`);
  await knex.raw(`grant usage on schema ?? to ${APP_RUNTIME_ROLE}`, [schema]);
  const { rows: tables } = await knex.raw(`select tablename from pg_tables where schemaname = ? and not (tablename = any(?))`, [schema, MIGRATION_TABLES]);
  for (const { tablename } of tables as { tablename: string }[]) {
    await knex.raw(`grant select, insert, update, delete on ?? to ${APP_RUNTIME_ROLE}`, [tablename]);
  }
  await knex.raw(`grant usage, select on all sequences in schema ?? to ${APP_RUNTIME_ROLE}`, [schema]);
  await asPurger(knex, `grant execute on function ${PURGE_FUNCTION} to ${APP_RUNTIME_ROLE}`);
  // An administrator who prepared audit_purger for a migrator without superuser gave it CREATE
  // on the schema (the ownership change needs it); once it owns its function it needs USAGE only.
  await knex.raw(`revoke create on schema ?? from ${AUDIT_PURGER_ROLE}`, [schema]);
  await knex.raw(`alter default privileges in schema ?? grant select, insert, update, delete on tables to ${APP_RUNTIME_ROLE}`, [schema]);
  await knex.raw(`alter default privileges in schema ?? grant usage, select on sequences to ${APP_RUNTIME_ROLE}`, [schema]);
}

/**
 * Runs `sql` as audit_purger, the purge function's owner (only it may grant EXECUTE on it). A
 * migrator without superuser that is not a member (PostgreSQL 15 and older, after the purge role's
 * migration left it) joins for the statement and leaves again.
 */
async function asPurger(knex: Knex, sql: string): Promise<void> {
  const { rows } = await knex.raw(`select rolsuper as superuser, pg_has_role(current_user, '${AUDIT_PURGER_ROLE}', 'MEMBER') as member from pg_roles where rolname = current_user`);
  const { superuser, member } = rows[0] as { superuser: boolean; member: boolean };
  const join = !superuser && !member;
  if (join) await knex.raw(`grant ${AUDIT_PURGER_ROLE} to current_user`);
  await knex.raw(`set local role ${AUDIT_PURGER_ROLE}`);
  await knex.raw(sql);
  await knex.raw('reset role');
  if (join) await knex.raw(`revoke ${AUDIT_PURGER_ROLE} from current_user`);
}

export async function down(knex: Knex): Promise<void> {
  const { rows } = await knex.raw('select current_schema() as schema');
  const schema = (rows[0] as { schema: string }).schema;
  await knex.raw(`alter default privileges in schema ?? revoke all on tables from ${APP_RUNTIME_ROLE}`, [schema]);
  await knex.raw(`alter default privileges in schema ?? revoke all on sequences from ${APP_RUNTIME_ROLE}`, [schema]);
  await knex.raw(`revoke all on all tables in schema ?? from ${APP_RUNTIME_ROLE}`, [schema]);
  await knex.raw(`revoke all on all sequences in schema ?? from ${APP_RUNTIME_ROLE}`, [schema]);
  await asPurger(knex, `revoke execute on function ${PURGE_FUNCTION} from ${APP_RUNTIME_ROLE}`);
  await knex.raw(`revoke usage on schema ?? from ${APP_RUNTIME_ROLE}`, [schema]);
}
