/**
 * Sign-in sessions, without HTTP: credentials checked, refresh tokens issued, rotated and revoked,
 * each session change audited as an action of the user on their own account, in the transaction
 * of the change. The login limits and the access token stay with api/routes/auth.ts, the HTTP face.
 */
import { Knex } from 'knex';
import { appendAudit } from '../db/audit';
import { findUserByEmail, issueRefreshToken, replacePasswordHash, revokeOnLogout, rotateRefreshToken, startSessionRecord, UserRecord } from '../db/auth';
import type { Db } from '../db/knex';
import { isTenantSuspended } from '../db/tenants';
import { dummyHash, hashPassword, needsRehash, verifyPassword } from '../domain/auth/passwords';
import { AppError, tenantSuspended, unauthenticated } from '../domain/errors';

export type { UserRecord };

/** The request a session change comes from: its id goes into the audit row. */
export interface SessionRequest {
  requestId: string | null;
  /** Told the sessions a change revoked, once committed (the caller's session check forgets them). */
  revoked?(sessionIds: string[]): void;
}

function auditAuth(tx: Knex.Transaction, request: SessionRequest, who: { tenantId: string; userId: string }, action: string, family: string | null) {
  return appendAudit(tx, {
    tenantId: who.tenantId,
    actor: { type: 'user', id: who.userId },
    action,
    resourceType: 'user',
    resourceId: who.userId,
    requestId: request.requestId,
    details: { token_family: family },
  });
}

/**
 * The active user these credentials name, or 401 (wrong email or password, or a disabled user).
 * `check` runs the password check under the caller's concurrency limit and answers null when
 * the limit refused it; this answers null then. A right password stored with weaker parameters
 * than new hashes get is rehashed (under the same limit; skipped when it is full, for next time).
 */
export async function authenticate(db: Db, credentials: { email: string; password: string }, check: <T>(work: () => Promise<T>) => Promise<T | null>): Promise<UserRecord | null> {
  const user = await findUserByEmail(db, credentials.email);
  // Same work whether or not the user exists: the answer time does not reveal accounts.
  const hash = user?.password_hash ?? (await dummyHash());
  const valid = await check(() => verifyPassword(credentials.password, hash));
  if (valid === null) return null;
  if (!user || !valid || user.status !== 'active') throw unauthenticated('wrong email or password');
  if (needsRehash(hash)) {
    const rehashed = await check(() => hashPassword(credentials.password));
    if (rehashed !== null) await replacePasswordHash(db, user.id, hash, rehashed);
  }
  return user;
}

/** A session's refresh token and its id (the access token's `sid`). */
export interface IssuedSession {
  token: string;
  sessionId: string;
}

/**
 * A new session (refresh-token family) for the user; audited `auth.login`. Refused (403
 * TENANT_SUSPENDED) while the user's tenant is suspended: called once the password was checked,
 * so the answer tells nothing to someone who does not know it.
 */
export async function startSession(db: Db, request: SessionRequest, user: UserRecord): Promise<IssuedSession> {
  if (await isTenantSuspended(db, user.tenant_id)) throw tenantSuspended();
  return db.transaction(async (tx) => {
    const sessionId = await startSessionRecord(tx, user);
    const { token } = await issueRefreshToken(tx, user, sessionId);
    await auditAuth(tx, request, { tenantId: user.tenant_id, userId: user.id }, 'auth.login', sessionId);
    return { token, sessionId };
  });
}

/**
 * Rotates a refresh token (audited `auth.refresh`); reusing a rotated one revokes its whole
 * family (audited `auth.refresh_reuse_detected`) and is 401, as is any other refusal.
 */
export async function refreshSession(db: Db, request: SessionRequest, refreshToken: string): Promise<{ user: UserRecord } & IssuedSession> {
  const result = await db.transaction(async (tx) => {
    const rotation = await rotateRefreshToken(tx, refreshToken);
    if (rotation.kind === 'reuse_detected' || rotation.kind === 'rotated') {
      const tenantId = rotation.kind === 'rotated' ? rotation.user.tenant_id : rotation.tenantId;
      const userId = rotation.kind === 'rotated' ? rotation.user.id : rotation.userId;
      const action = rotation.kind === 'rotated' ? 'auth.refresh' : 'auth.refresh_reuse_detected';
      await auditAuth(tx, request, { tenantId, userId }, action, rotation.familyId);
    }
    return rotation;
  });
  if (result.kind === 'rotated') return { user: result.user, token: result.token, sessionId: result.familyId };
  if (result.kind === 'refused' && result.reason === 'tenant_suspended') throw new AppError('TENANT_SUSPENDED', tenantSuspended().message, { reason: result.reason });
  if (result.kind === 'reuse_detected') {
    request.revoked?.([result.familyId]);
    throw new AppError('UNAUTHENTICATED', 'refresh token was already used; all sessions of this login are revoked', { reason: 'reuse_detected' });
  }
  throw new AppError('UNAUTHENTICATED', `refresh token ${result.reason === 'unknown' ? 'is not valid' : result.reason}`, { reason: result.reason });
}

/**
 * Revokes the caller's session (that of the access token: its access tokens stop working) and the
 * family of the presented refresh token if it is another of the caller's; audited `auth.logout`.
 */
export async function endSession(db: Db, request: SessionRequest, who: { tenantId: string; userId: string; sessionId: string }, refreshToken: string): Promise<void> {
  const revoked = await db.transaction(async (tx) => {
    const families = await revokeOnLogout(tx, who.sessionId, refreshToken, who.userId);
    await auditAuth(tx, request, who, 'auth.logout', who.sessionId);
    return families;
  });
  request.revoked?.(revoked);
}
