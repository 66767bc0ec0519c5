/**
 * Users as the service's operator manages them (cli/): create, reset a password, clear the login
 * limiter's count of an account, revoke sessions. Each change is a unit of work in the user's
 * tenant, audited with the user as resource; passwords appear in no row but the hash, and in no
 * audit detail.
 */
import { revokeUserSessions } from '../db/auth';
import type { Knex } from 'knex';
import type { Queryable } from '../db/knex';
import { isUuid } from '../domain/ids';
import { assertWithinPlanLimit, countRows } from '../db/plan-limits';
import { paginate, type Page, type PageRequest } from '../db/pagination';
import type { TenantScope } from '../db/tenant-scope';
import type { Unit } from '../db/unit-of-work';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, hashPassword } from '../domain/auth/passwords';
import type { Role } from '../domain/auth/permissions';
import { normalizeEmail } from '../domain/email';
import { AppError, notFound, validationError } from '../domain/errors';

export interface UserRow {
  id: string;
  tenant_id: string;
  email: string;
  name: string | null;
  role: Role;
  status: 'active' | 'disabled';
  created_at: Date;
}

const USER_COLUMNS = ['id', 'tenant_id', 'email', 'name', 'role', 'status', 'created_at'] as const;

/** The login limiter, as far as an unlock needs it (api/login-limits.ts). */
export interface AccountLimits {
  clearAccount(email: string): Promise<void>;
}

const invalid = (field: string, message: string) => validationError(`${field} ${message}`, [{ field, message, type: 'any.invalid' }]);

/** The address login accepts for this text (the rule of POST /auth/login), or 422. */
export function loginEmail(text: string): string {
  const email = normalizeEmail(text);
  if (!email) throw invalid('email', 'is not an email address');
  return email;
}

/** A password login will accept, or 422 (without the password in the message). */
export function assertPassword(password: string): void {
  if (password.length < PASSWORD_MIN_LENGTH) throw invalid('password', `needs at least ${PASSWORD_MIN_LENGTH} characters`);
  if (password.length > PASSWORD_MAX_LENGTH) throw invalid('password', `has at most ${PASSWORD_MAX_LENGTH} characters`);
}

/**
 * Which tenant holds the user an id or e-mail names (one user per address across tenants), or 404:
 * a read across tenants, the operator's lookup before it acts in that tenant.
 */
export async function tenantOfUser(db: Queryable, ref: string): Promise<string> {
  const row: { tenant_id: string } | undefined = await namedUser(db('users'), ref).first('tenant_id');
  if (!row) throw notFound('user');
  return row.tenant_id;
}

/** Narrows a users query to the user an id or an e-mail address (any case) names. */
function namedUser(query: Knex.QueryBuilder, ref: string): Knex.QueryBuilder {
  const email = ref.trim();
  return isUuid(ref) ? query.where({ id: ref }) : query.whereRaw('lower(email) = lower(?)', [email]);
}

/** The tenant's user named by id or e-mail, or 404. */
export async function requireUser(scope: TenantScope, ref: string): Promise<UserRow> {
  const row: UserRow | undefined = await namedUser(scope.table('users'), ref).first(...USER_COLUMNS);
  if (!row) throw notFound('user');
  return row;
}

export function listUsers(scope: TenantScope, page: PageRequest): Promise<Page<UserRow>> {
  return paginate<UserRow>(
    scope
      .table('users')
      .select(...USER_COLUMNS)
      .orderBy([{ column: 'created_at' }, { column: 'id' }]),
    page,
  );
}

export interface NewUser {
  email: string;
  name?: string | null;
  role: Role;
  password: string;
}

/**
 * A user of the unit's tenant, within its plan's user limit (403 PLAN_LIMIT_REACHED), audited
 * `user.created`. An e-mail is one user across tenants: one in use is 409 CONFLICT.
 */
export async function createUser(unit: Unit, fields: NewUser): Promise<UserRow> {
  const email = loginEmail(fields.email);
  assertPassword(fields.password);
  const { tenantId } = unit.scope;
  await assertWithinPlanLimit(unit.tx, tenantId, 'users', countRows('users', tenantId));
  const passwordHash = await hashPassword(fields.password);
  // The address may belong to another tenant's user, whom row-level security hides: the unique
  // index answers, inside a savepoint so the unit's transaction survives to report it.
  const row = await unit.tx
    .transaction(async (sp) => {
      const inserted = (await unit.scope
        .within(sp)
        .insert('users', { email, name: fields.name ?? null, role: fields.role, password_hash: passwordHash }, [...USER_COLUMNS])) as UserRow[];
      return inserted[0];
    })
    .catch((err: { code?: string }) => {
      if (err.code === '23505') throw new AppError('CONFLICT', 'a user with this e-mail address already exists');
      throw err;
    });
  unit.audit({ action: 'user.created', resourceType: 'user', resourceId: row.id, details: { role: row.role } });
  return row;
}

/**
 * Sets the user's password (audited `user.password_reset`). The users triggers bump its token
 * version and revoke its sessions, as for any password change: every device signs in again.
 */
export async function resetPassword(unit: Unit, ref: string, password: string): Promise<UserRow> {
  assertPassword(password);
  const user = await requireUser(unit.scope, ref);
  await unit.scope
    .table('users')
    .where({ id: user.id })
    .update({ password_hash: await hashPassword(password) });
  unit.audit({ action: 'user.password_reset', resourceType: 'user', resourceId: user.id });
  return user;
}

/** Clears the login limiter's count of the user's account (audited `user.login_unlocked`). */
export async function unlockLogin(unit: Unit, limits: AccountLimits, ref: string): Promise<UserRow> {
  const user = await requireUser(unit.scope, ref);
  await limits.clearAccount(user.email);
  unit.audit({ action: 'user.login_unlocked', resourceType: 'user', resourceId: user.id });
  return user;
}

/**
 * Revokes the user's open sessions, or the one `sessionId` names (audited `user.sessions_revoked`
 * with their count): their refresh tokens at once, their access tokens within the API's session
 * check (seconds). Answers the revoked session ids.
 */
export async function revokeSessions(unit: Unit, ref: string, sessionId?: string): Promise<{ user: UserRow; revoked: string[] }> {
  const user = await requireUser(unit.scope, ref);
  if (sessionId !== undefined && !isUuid(sessionId)) throw notFound('session');
  const revoked = await revokeUserSessions(unit.tx, user.id, 'operator', sessionId);
  if (sessionId !== undefined && revoked.length === 0) throw notFound('open session');
  unit.audit({ action: 'user.sessions_revoked', resourceType: 'user', resourceId: user.id, details: { sessions: revoked.length } });
  return { user, revoked };
}
