/**
 * Whether a verified token still speaks for whoever it names, read from PostgreSQL and cached per
 * process for a few seconds (SESSION_CHECK_CACHE_MS), so a change is refused within that time on
 * every replica, and at once on the process that made it (it forgets what it cached):
 *
 * - an access token: its session (`sid`) is not revoked (logout, reuse detection, a password
 *   change), and its user is active, in the token's tenant, at the token_version the token carries
 *   (a trigger bumps it on any change of status, role or password); and that tenant is not
 *   suspended (a verdict of its own, so the caller answers why);
 * - a service token: its `jti` has no revocation record.
 */
import { LRUCache } from 'lru-cache';
import { readSessionState, SessionState } from '../db/auth';
import { Db } from '../db/knex';
import { serviceTokenRevoked } from '../db/service-tokens';
import type { AccessClaims } from '../domain/auth/tokens';

/** `ended`: revoked, or its user changed; `tenant_suspended`: valid, but its tenant is suspended. */
export type SessionVerdict = 'current' | 'ended' | 'tenant_suspended';

export interface SessionCheck {
  verdict(claims: AccessClaims): Promise<SessionVerdict>;
  isServiceTokenRevoked(jti: string): Promise<boolean>;
  /** This process revoked these sessions or service tokens: its next check reads them again. */
  forget(ids: readonly string[]): void;
}

/** Entries kept per process; the least recently used go first beyond it. */
const MAX_CACHED = 10_000;

/** `read` per key, cached `cacheMs` (0: no cache; lru-cache would take a ttl of 0 as "forever"). */
function cachedReader<T extends object>(cacheMs: number, read: (key: string) => Promise<T>) {
  const cache = cacheMs > 0 ? new LRUCache<string, T>({ max: MAX_CACHED, ttl: cacheMs }) : null;
  return {
    async get(key: string): Promise<T> {
      const cached = cache?.get(key);
      if (cached) return cached;
      const value = await read(key);
      cache?.set(key, value);
      return value;
    },
    forget: (key: string) => cache?.delete(key),
  };
}

export function createSessionCheck(db: Db, cacheMs: number): SessionCheck {
  const sessions = cachedReader<{ state: SessionState | null }>(cacheMs, async (sid) => ({ state: await readSessionState(db, sid) }));
  const revocations = cachedReader<{ revoked: boolean }>(cacheMs, async (jti) => ({ revoked: await serviceTokenRevoked(db, jti) }));
  return {
    async verdict(claims) {
      const { state } = await sessions.get(claims.sid);
      const current = state !== null && !state.revoked && state.userId === claims.sub && state.active && state.tenantId === claims.tenant_id && state.tokenVersion === claims.ver;
      if (!current) return 'ended';
      return state.tenantSuspended ? 'tenant_suspended' : 'current';
    },
    isServiceTokenRevoked: async (jti) => (await revocations.get(jti)).revoked,
    forget(ids) {
      for (const id of ids) {
        sessions.forget(id);
        revocations.forget(id);
      }
    },
  };
}
