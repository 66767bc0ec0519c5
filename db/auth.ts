import { randomUUID } from 'node:crypto';
import { Knex } from 'knex';
import { Role } from '../domain/auth/permissions';
import { hashRefreshToken, newRefreshToken, REFRESH_TOKEN_TTL_DAYS } from '../domain/auth/tokens';
import { Queryable } from './knex';
import { isTenantSuspended } from './tenants';

export interface UserRecord {
  id: string;
  tenant_id: string;
  email: string;
  password_hash: string;
  role: Role;
  status: 'active' | 'disabled';
  token_version: number;
}

export function findUserByEmail(db: Queryable, email: string): Promise<UserRecord | undefined> {
  return db('users').whereRaw('lower(email) = lower(?)', [email]).first();
}

export function findUserById(db: Queryable, id: string): Promise<UserRecord | undefined> {
  return db('users').where({ id }).first();
}

/**
 * Replaces a hash by a stronger one of the same password (a rehash at login). The session-local
 * `app.password_rehash` tells the users triggers that this is no password change: the user's
 * token version and sessions stay. Only when the stored hash is still the one that was verified.
 */
export async function replacePasswordHash(db: Knex, userId: string, verified: string, rehashed: string): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.raw("select set_config('app.password_rehash', 'on', true)");
    await tx('users').where({ id: userId, password_hash: verified }).update({ password_hash: rehashed });
  });
}

/** Why a session (refresh-token family) was revoked; the users trigger writes the others. `operator`: the operator's CLI. */
export type RevokeReason = 'logout' | 'reuse_detected' | 'operator';

/** A new session (a login): its id is the refresh-token family and the access tokens' `sid`. */
export async function startSessionRecord(tx: Knex.Transaction, user: Pick<UserRecord, 'id' | 'tenant_id'>, now = new Date()): Promise<string> {
  const id = randomUUID();
  await tx('auth_sessions').insert({ id, tenant_id: user.tenant_id, user_id: user.id, created_at: now });
  return id;
}

/** Issues a refresh token of the session (family): at login, then at each rotation. */
export async function issueRefreshToken(
  tx: Knex.Transaction,
  user: Pick<UserRecord, 'id' | 'tenant_id'>,
  familyId: string,
  now = new Date(),
): Promise<{ token: string; familyId: string; id: string }> {
  const { token, hash } = newRefreshToken();
  const [row] = await tx('refresh_tokens')
    .insert({
      tenant_id: user.tenant_id,
      user_id: user.id,
      family_id: familyId,
      token_hash: hash,
      created_at: now,
      expires_at: new Date(now.getTime() + REFRESH_TOKEN_TTL_DAYS * 86_400_000),
    })
    .returning('id');
  return { token, familyId, id: row.id };
}

export type RotationResult =
  | { kind: 'rotated'; user: UserRecord; token: string; familyId: string }
  | { kind: 'refused'; reason: 'unknown' | 'expired' | 'revoked' | 'user_disabled' | 'tenant_suspended' }
  | { kind: 'reuse_detected'; familyId: string; tenantId: string; userId: string };

/**
 * Exchanges a refresh token for a new one of the same family. Presenting a token that was already
 * rotated means it leaked (or a client raced itself): the whole family is revoked.
 * The row lock makes two concurrent uses of one token resolve as one rotation and one reuse.
 */
export async function rotateRefreshToken(tx: Knex.Transaction, presented: string, now = new Date()): Promise<RotationResult> {
  const row = await tx('refresh_tokens as r')
    .join('auth_sessions as s', 's.id', 'r.family_id')
    .where({ 'r.token_hash': hashRefreshToken(presented) })
    .forUpdate('r')
    .first('r.id', 'r.family_id', 'r.tenant_id', 'r.user_id', 'r.rotated_at', 'r.expires_at', 's.revoked_at');
  if (!row) return { kind: 'refused', reason: 'unknown' };
  if (row.rotated_at) {
    await revokeSessions(tx, [row.family_id], 'reuse_detected', now);
    return { kind: 'reuse_detected', familyId: row.family_id, tenantId: row.tenant_id, userId: row.user_id };
  }
  if (row.revoked_at) return { kind: 'refused', reason: 'revoked' };
  if (new Date(row.expires_at) <= now) return { kind: 'refused', reason: 'expired' };
  const user = await findUserById(tx, row.user_id);
  if (!user || user.status !== 'active') return { kind: 'refused', reason: 'user_disabled' };
  // Not revoked: the session works again once the tenant is resumed.
  if (await isTenantSuspended(tx, user.tenant_id)) return { kind: 'refused', reason: 'tenant_suspended' };
  await tx('refresh_tokens').where({ id: row.id }).update({ rotated_at: now });
  const next = await issueRefreshToken(tx, user, row.family_id, now);
  return { kind: 'rotated', user, token: next.token, familyId: row.family_id };
}

/** Revokes sessions: their refresh tokens and, through the session check, their access tokens. */
export async function revokeSessions(db: Queryable, ids: string[], reason: RevokeReason, now = new Date()): Promise<void> {
  await db('auth_sessions').whereIn('id', ids).whereNull('revoked_at').update({ revoked_at: now, revoke_reason: reason });
}

/** What the session check reads of an access token's session: the session, its user and the user's tenant, in one row. */
export interface SessionState {
  userId: string;
  tenantId: string;
  active: boolean;
  tokenVersion: number;
  revoked: boolean;
  tenantSuspended: boolean;
}

export async function readSessionState(db: Queryable, sessionId: string): Promise<SessionState | null> {
  const row = await db('auth_sessions as s')
    .join('users as u', 'u.id', 's.user_id')
    .join('tenants as t', 't.id', 'u.tenant_id')
    .where('s.id', sessionId)
    .first('s.user_id', 'u.tenant_id', 'u.status', 'u.token_version', 's.revoked_at', 't.suspended_at');
  if (!row) return null;
  return {
    userId: row.user_id,
    tenantId: row.tenant_id,
    active: row.status === 'active',
    tokenVersion: row.token_version,
    revoked: row.revoked_at !== null,
    tenantSuspended: row.suspended_at !== null,
  };
}

/** Revokes the user's sessions still open (one of them when `sessionId` names it); answers the revoked ids. */
export async function revokeUserSessions(db: Queryable, userId: string, reason: RevokeReason, sessionId?: string): Promise<string[]> {
  const rows: Array<{ id: string }> = await db('auth_sessions')
    .where({ user_id: userId })
    .modify((q) => void (sessionId ? q.where({ id: sessionId }) : q))
    .whereNull('revoked_at')
    .update({ revoked_at: new Date(), revoke_reason: reason })
    .returning('id');
  return rows.map((row) => row.id);
}

/**
 * Logout: revokes the caller's session (the one of the access token) and the family of the
 * presented refresh token when it is the caller's and another one. Answers the revoked ids.
 */
export async function revokeOnLogout(db: Queryable, sessionId: string, presented: string, userId: string): Promise<string[]> {
  const row = await db('refresh_tokens')
    .where({ token_hash: hashRefreshToken(presented), user_id: userId })
    .first('family_id');
  const families = [...new Set([sessionId, ...(row ? [row.family_id as string] : [])])];
  await revokeSessions(db, families, 'logout');
  return families;
}
