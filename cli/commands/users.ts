/** `users`: list, create, reset-password, unlock, revoke-sessions (services/users.ts). */
import { Argument, Command, Option } from 'commander';
import { ROLES, type Role } from '../../domain/auth/permissions';
import { requireTenant } from '../../services/tenants';
import { createUser, listUsers, resetPassword, revokeSessions, tenantOfUser, unlockLogin, type UserRow } from '../../services/users';
import { runUnit, type Unit } from '../../db/unit-of-work';
import { fields, pageText, table } from '../output';
import { pageOf, secretSource, withPage, withPassword } from '../options';
import type { Perform } from '../perform';
import type { Runtime } from '../runtime';
import { readSecret } from '../secrets';

export function userJson(row: UserRow) {
  return { id: row.id, tenant_id: row.tenant_id, email: row.email, name: row.name, role: row.role, status: row.status, created_at: row.created_at };
}

const userFields = (row: UserRow) =>
  fields([
    ['id', row.id],
    ['tenant', row.tenant_id],
    ['email', row.email],
    ['name', row.name],
    ['role', row.role],
    ['status', row.status],
    ['created at', row.created_at],
  ]);

const userArgument = () => new Argument('<user>', "the user's e-mail address or id");

/** A unit of work in the tenant of the user `ref` names, as the operator. */
async function inUsersTenant<T>(rt: Runtime, ref: string, work: (unit: Unit) => Promise<T>): Promise<T> {
  const tenantId = await tenantOfUser(rt.db(), ref);
  return rt.inTenant(tenantId, ({ context }) => runUnit(rt.db(), context, work));
}

export function registerUsers(program: Command, perform: Perform): void {
  const users = program.command('users').description('list and create users, reset a password, clear a login lock, revoke sessions');

  withPage(users.command('list').description("a tenant's users, oldest first").argument('<tenant>', "the tenant's id or slug")).action(
    (ref: string, options: { limit: number; skip: number }, command: Command) =>
      perform(command, async (rt) => {
        const tenant = await requireTenant(rt.db(), ref);
        const page = await rt.inTenant(tenant.id, ({ scope }) => listUsers(scope, pageOf(options)));
        const rows = table(page.items, [
          ['id', (u) => u.id],
          ['email', (u) => u.email],
          ['role', (u) => u.role],
          ['status', (u) => u.status],
        ]);
        return { json: { ...page, items: page.items.map(userJson) }, text: pageText(page, rows) };
      }),
  );

  withPassword(
    users
      .command('create')
      .description("a user of a tenant, within its plan's user limit (the password: asked, or --password-stdin / --password-file)")
      .argument('<tenant>', "the tenant's id or slug")
      .requiredOption('--email <email>', 'their e-mail address (their login)')
      .addOption(new Option('--role <role>', 'their role').choices(ROLES).makeOptionMandatory())
      .option('--name <name>', 'their name'),
  ).action((ref: string, options: { email: string; role: Role; name?: string; passwordStdin?: boolean; passwordFile?: string }, command: Command) =>
    perform(command, async (rt) => {
      const tenant = await requireTenant(rt.db(), ref);
      const password = await readSecret("user's password", secretSource(options), { confirm: true });
      const user = await rt.inTenant(tenant.id, ({ context }) =>
        runUnit(rt.db(), context, (unit) => createUser(unit, { email: options.email, role: options.role, name: options.name, password })),
      );
      return { json: userJson(user), text: `created ${user.role} ${user.email} (${user.id}) in ${tenant.slug}` };
    }),
  );

  withPassword(
    users
      .command('reset-password')
      .description("set a user's password: their sessions end, every device signs in again (the password: asked, or --password-stdin / --password-file)")
      .addArgument(userArgument()),
  ).action((ref: string, options: { passwordStdin?: boolean; passwordFile?: string }, command: Command) =>
    perform(command, async (rt) => {
      const password = await readSecret('new password', secretSource(options), { confirm: true });
      const user = await inUsersTenant(rt, ref, (unit) => resetPassword(unit, ref, password));
      return { json: { user: userJson(user) }, text: `${user.email}: password set; their sessions are revoked\n${userFields(user)}` };
    }),
  );

  users
    .command('unlock')
    .description("clear the login limiter's count of failed logins of a user's account (an address that was guessing stays limited)")
    .addArgument(userArgument())
    .action((ref: string, _options: unknown, command: Command) =>
      perform(command, async (rt) => {
        const user = await inUsersTenant(rt, ref, (unit) => unlockLogin(unit, rt.loginLimits(), ref));
        return { json: { user: userJson(user) }, text: `${user.email}: failed logins cleared` };
      }),
    );

  users
    .command('revoke-sessions')
    .description("end a user's sessions (refresh-token families): refresh refused at once, access tokens within seconds")
    .addArgument(userArgument())
    .option('--session <id>', 'only this session (the access token\'s "sid")')
    .action((ref: string, options: { session?: string }, command: Command) =>
      perform(command, async (rt) => {
        const { user, revoked } = await inUsersTenant(rt, ref, (unit) => revokeSessions(unit, ref, options.session));
        return {
          json: { user: userJson(user), revoked_sessions: revoked },
          text: `${user.email}: ${revoked.length} session(s) revoked${revoked.length ? `\n${revoked.join('\n')}` : ''}`,
        };
      }),
    );
}
