import { Queryable } from './knex';

/** The NOLOGIN role holding the app's privileges (created by a migration); the app's login role is a member. */
export const APP_RUNTIME_ROLE = 'app_runtime';

/**
 * Makes `appUser` (the login role of DATABASE_URL) a member of app_runtime, run as the migrating
 * role after the migrations. Nothing to do when the app logs in as the migrating role itself.
 */
export async function admitAppRole(db: Queryable, appUser: string): Promise<void> {
  const { rows } = await db.raw('select current_user as me');
  if ((rows[0] as { me: string }).me === appUser) return;
  await db.raw(`grant ${APP_RUNTIME_ROLE} to ??`, [appUser]);
}

/**
 * What the connected role may do that the app should not: empty for a role that owns nothing, is
 * not superuser and has neither CREATEROLE nor BYPASSRLS. The API and the worker check it at start
 * (infra/app-role.ts): a production process refuses to start with any of them.
 */
export async function appRoleProblems(db: Queryable): Promise<string[]> {
  const { rows } = await db.raw(
    `select r.rolname as name, r.rolsuper as superuser, r.rolcreaterole as createrole, r.rolbypassrls as bypassrls,
            (select count(*) from pg_class c where c.relowner = r.oid and c.relnamespace = current_schema()::regnamespace)::int as owned
     from pg_roles r where r.rolname = current_user`,
  );
  const role = rows[0] as { name: string; superuser: boolean; createrole: boolean; bypassrls: boolean; owned: number };
  const problems: string[] = [];
  if (role.superuser) problems.push(`${role.name} is a superuser`);
  if (role.createrole) problems.push(`${role.name} has CREATEROLE`);
  if (role.bypassrls) problems.push(`${role.name} has BYPASSRLS`);
  if (role.owned > 0) problems.push(`${role.name} owns ${role.owned} relations of the schema`);
  return problems;
}

/** The user name of a postgres:// URL. */
export function databaseUser(url: string): string {
  return decodeURIComponent(new URL(url).username);
}
