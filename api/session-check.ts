/**
 * Whether a verified access token still speaks for its user (issue 17): the user is active, in the
 * token's tenant, and their token_version (bumped by a trigger on any change of status, role or
 * password) is the one the token carries. Read from PostgreSQL, cached per process for a few
 * seconds, so a disabled user or a changed role is refused within that time on every replica.
 */
import { LRUCache } from 'lru-cache';
import { Db } from '../db/knex';
import type { AccessClaims } from '../domain/auth/tokens';

export interface SessionCheck {
  isCurrent(claims: AccessClaims): Promise<boolean>;
}

interface UserState {
  tenantId: string;
  active: boolean;
  version: number;
}

/** Entries kept per process; the least recently used go first beyond it. */
const MAX_CACHED_USERS = 10_000;

export function createSessionCheck(db: Db, cacheMs: number): SessionCheck {
  // cacheMs 0: every request reads the row (lru-cache would take a ttl of 0 as "forever").
  const cache = cacheMs > 0 ? new LRUCache<string, UserState>({ max: MAX_CACHED_USERS, ttl: cacheMs }) : null;

  async function stateOf(userId: string): Promise<UserState | null> {
    const cached = cache?.get(userId);
    if (cached) return cached;
    const row = await db('users').where({ id: userId }).first('tenant_id', 'status', 'token_version');
    if (!row) return null;
    const state = { tenantId: row.tenant_id, active: row.status === 'active', version: row.token_version };
    cache?.set(userId, state);
    return state;
  }

  return {
    async isCurrent(claims) {
      const state = await stateOf(claims.sub);
      return state !== null && state.active && state.tenantId === claims.tenant_id && state.version === claims.ver;
    },
  };
}
