import { randomUUID } from 'node:crypto';
import { Knex } from 'knex';
import { Role } from '../domain/auth/permissions';
import { hashRefreshToken, newRefreshToken, REFRESH_TOKEN_TTL_DAYS } from '../domain/auth/tokens';
import { Queryable } from './knex';

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

/** Starts a new refresh-token family (a login) or continues one (a rotation). */
export async function issueRefreshToken(
  tx: Knex.Transaction,
  user: Pick<UserRecord, 'id' | 'tenant_id'>,
  familyId: string = randomUUID(),
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
  | { kind: 'refused'; reason: 'unknown' | 'expired' | 'revoked' | 'user_disabled' }
  | { kind: 'reuse_detected'; familyId: string; tenantId: string; userId: string };

/**
 * Exchanges a refresh token for a new one of the same family. Presenting a token that was already
 * rotated means it leaked (or a client raced itself): the whole family is revoked.
 * The row lock makes two concurrent uses of one token resolve as one rotation and one reuse.
 */
export async function rotateRefreshToken(tx: Knex.Transaction, presented: string, now = new Date()): Promise<RotationResult> {
  const row = await tx('refresh_tokens')
    .where({ token_hash: hashRefreshToken(presented) })
    .forUpdate()
    .first();
  if (!row) return { kind: 'refused', reason: 'unknown' };
  if (row.rotated_at) {
    await revokeFamily(tx, row.family_id, 'reuse_detected', now);
    return { kind: 'reuse_detected', familyId: row.family_id, tenantId: row.tenant_id, userId: row.user_id };
  }
  if (row.revoked_at) return { kind: 'refused', reason: 'revoked' };
  if (new Date(row.expires_at) <= now) return { kind: 'refused', reason: 'expired' };
  const user = await findUserById(tx, row.user_id);
  if (!user || user.status !== 'active') return { kind: 'refused', reason: 'user_disabled' };
  await tx('refresh_tokens').where({ id: row.id }).update({ rotated_at: now });
  const next = await issueRefreshToken(tx, user, row.family_id, now);
  return { kind: 'rotated', user, token: next.token, familyId: row.family_id };
}

export async function revokeFamily(db: Queryable, familyId: string, reason: string, now = new Date()): Promise<void> {
  await db('refresh_tokens').where({ family_id: familyId }).whereNull('revoked_at').update({ revoked_at: now, revoke_reason: reason });
}

/** Logout: revokes the family of the presented token, if it belongs to the caller. */
export async function revokeByToken(db: Queryable, presented: string, userId: string): Promise<string | null> {
  const row = await db('refresh_tokens')
    .where({ token_hash: hashRefreshToken(presented), user_id: userId })
    .first('family_id');
  if (!row) return null;
  await revokeFamily(db, row.family_id, 'logout');
  return row.family_id;
}
