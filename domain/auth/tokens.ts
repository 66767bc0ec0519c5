import { createHash, createSecretKey, KeyObject, randomBytes, randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { LRUCache } from 'lru-cache';
import { isUuid } from '../ids';
import { isRole, Permission, Role } from './permissions';

export const ACCESS_TOKEN_TTL_SECONDS = 15 * 60;
export const REFRESH_TOKEN_TTL_DAYS = 30;
const ALGORITHM = 'HS256' as const;
const USER_AUDIENCE = 'api';
const INTERNAL_AUDIENCE = 'internal';
const ISSUER = 'industrial-ops';

/** jsonwebtoken turns a string secret into a KeyObject on every call; doing it once per secret saves that work per request. */
const keyCache = new Map<string, KeyObject>();
function keyOf(secret: string): KeyObject {
  let key = keyCache.get(secret);
  if (!key) {
    key = createSecretKey(Buffer.from(secret, 'utf8'));
    keyCache.set(secret, key);
  }
  return key;
}

export interface AccessClaims {
  sub: string;
  tenant_id: string;
  role: Role;
  permissions: Permission[];
  /** The user's token_version when the token was issued; behind the current one, the token is void. */
  ver: number;
  /** The session (refresh-token family) the token belongs to: revoking the session voids the token. */
  sid: string;
}

export function signAccessToken(claims: AccessClaims, secret: string, ttlSeconds = ACCESS_TOKEN_TTL_SECONDS): string {
  return jwt.sign({ tenant_id: claims.tenant_id, role: claims.role, permissions: claims.permissions, ver: claims.ver, sid: claims.sid }, keyOf(secret), {
    algorithm: ALGORITHM,
    expiresIn: ttlSeconds,
    subject: claims.sub,
    audience: USER_AUDIENCE,
    issuer: ISSUER,
  });
}

/** `unbounded`: a service token without an expiry, an id, or with a lifetime beyond 90 days. */
export type TokenCheck<T> = { ok: true; claims: T } | { ok: false; reason: 'expired' | 'invalid' | 'unbounded' };

/**
 * Tokens this process verified, by their text: a client sends the same access token with every
 * request of its 15 minutes, and checking its signature again cost about 0.06 ms of each request
 * (a CPU profile of the list, docs/decisions/verified-access-tokens-cached.md). Only a token that passed is kept, with the
 * secret it passed under; its expiry is still read on every use. A different text (a forged or
 * altered token) is never found here, and a refused one is checked in full every time.
 */
const VERIFIED_TOKENS_KEPT = 10_000;
interface VerifiedToken {
  secret: string;
  claims: Readonly<AccessClaims>;
  /** The token's `exp`, in seconds since the epoch, as jsonwebtoken compares it. */
  exp: number;
}
const verifiedTokens = new LRUCache<string, VerifiedToken>({ max: VERIFIED_TOKENS_KEPT });

/** The algorithm is pinned: `alg: none` and tokens signed with anything but HS256 are refused. */
export function verifyAccessToken(token: string, secret: string): TokenCheck<AccessClaims> {
  const known = verifiedTokens.get(token);
  if (known && known.secret === secret) {
    // jsonwebtoken's own rule: expired once the current second reaches `exp`.
    if (Math.floor(Date.now() / 1000) < known.exp) return { ok: true, claims: known.claims };
    verifiedTokens.delete(token);
    return { ok: false, reason: 'expired' };
  }
  const { check, exp } = verifyAccessTokenInFull(token, secret);
  // Ours always carry an expiry; one without is checked in full each time, not kept for ever.
  if (check.ok && exp !== undefined) verifiedTokens.set(token, { secret, claims: check.claims, exp }, { ttl: Math.max(1, exp * 1000 - Date.now()) });
  return check;
}

/** The full check, and the verified payload's `exp` for the cache (read from the payload jsonwebtoken already decoded). */
function verifyAccessTokenInFull(token: string, secret: string): { check: TokenCheck<AccessClaims>; exp?: number } {
  const refused = (reason: 'expired' | 'invalid') => ({ check: { ok: false, reason } as const });
  try {
    const payload = jwt.verify(token, keyOf(secret), { algorithms: [ALGORITHM], audience: USER_AUDIENCE, issuer: ISSUER });
    if (typeof payload === 'string') return refused('invalid');
    const { sub, tenant_id, role, permissions, ver = 0, sid, exp } = payload as Record<string, unknown>;
    // A token without a session cannot be revoked: refused (tokens from before sessions existed refresh into one).
    if (typeof sub !== 'string' || typeof tenant_id !== 'string' || !isRole(role) || !Array.isArray(permissions) || !Number.isInteger(ver) || !isUuid(sid)) {
      return refused('invalid');
    }
    // Frozen: the same claims answer every later request that carries this token.
    const claims = { sub, tenant_id, role, permissions: Object.freeze([...(permissions as Permission[])]) as Permission[], ver: ver as number, sid };
    return { check: { ok: true, claims: Object.freeze(claims) }, exp: typeof exp === 'number' ? exp : undefined };
  } catch (err) {
    return refused((err as Error).name === 'TokenExpiredError' ? 'expired' : 'invalid');
  }
}

/** What a service token may do (issue 17): each internal route requires one. */
export const SERVICE_SCOPES = ['health:read', 'events:write', 'notifications:send', 'outbox:read', 'outbox:write', 'tokens:revoke'] as const;
export type ServiceScope = (typeof SERVICE_SCOPES)[number];

export interface ServiceGrant {
  scopes: readonly ServiceScope[];
  /** Tenant ids the token may act for, or '*' for every tenant (an operator's own tooling). */
  tenants: readonly string[] | '*';
}

/** Every scope for every tenant: an operator's own tooling (and the tests), never a partner. */
export const FULL_SERVICE_GRANT: ServiceGrant = { scopes: SERVICE_SCOPES, tenants: '*' };

/** The longest a service token may live: a leaked one expires on its own within this. */
export const SERVICE_TOKEN_MAX_TTL_SECONDS = 90 * 86_400;

export interface ServiceClaims extends ServiceGrant {
  sub: string;
  /** The token's id: what a revocation names. */
  jti: string;
}

/** A signed service token with what identifies it: its id (`jti`, what a revocation names) and its expiry. */
export interface IssuedServiceToken {
  token: string;
  jti: string;
  expiresAt: Date;
}

/**
 * Service-to-service token: a JWT with `aud: internal`, signed with a secret separate from user
 * tokens, with an id (`jti`, for revocation) and an expiry of at most 90 days (refused beyond).
 */
export function issueInternalToken(serviceId: string, secret: string, grant: ServiceGrant, ttlSeconds = 300, now = new Date()): IssuedServiceToken {
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1 || ttlSeconds > SERVICE_TOKEN_MAX_TTL_SECONDS) {
    throw new RangeError(`a service token lives 1 s to ${SERVICE_TOKEN_MAX_TTL_SECONDS / 86_400} days (asked: ${ttlSeconds} s)`);
  }
  const jti = randomUUID();
  const iat = Math.floor(now.getTime() / 1000);
  const token = jwt.sign({ scope: grant.scopes.join(' '), tenants: grant.tenants, iat }, keyOf(secret), {
    algorithm: ALGORITHM,
    expiresIn: ttlSeconds,
    subject: serviceId,
    audience: INTERNAL_AUDIENCE,
    issuer: ISSUER,
    jwtid: jti,
  });
  return { token, jti, expiresAt: new Date((iat + ttlSeconds) * 1000) };
}

/** The token of `issueInternalToken` alone (the tests' and tools' way). */
export function signInternalToken(serviceId: string, secret: string, grant: ServiceGrant, ttlSeconds = 300): string {
  return issueInternalToken(serviceId, secret, grant, ttlSeconds).token;
}

/**
 * A service token is refused without `exp`, without a `jti`, or with an expiry more than 90 days
 * after it was issued (or from now, when it names no issue time): hand-signed tokens included.
 */
export function verifyInternalToken(token: string, secret: string): TokenCheck<ServiceClaims> {
  try {
    const payload = jwt.verify(token, keyOf(secret), { algorithms: [ALGORITHM], audience: INTERNAL_AUDIENCE, issuer: ISSUER });
    if (typeof payload === 'string' || typeof payload.sub !== 'string') return { ok: false, reason: 'invalid' };
    const issuedAt = Math.min(payload.iat ?? Infinity, Date.now() / 1000);
    if (!isUuid(payload.jti) || typeof payload.exp !== 'number' || payload.exp - issuedAt > SERVICE_TOKEN_MAX_TTL_SECONDS) return { ok: false, reason: 'unbounded' };
    // A token without a grant may do nothing (tokens from before scopes existed included).
    const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ').filter((s): s is ServiceScope => (SERVICE_SCOPES as readonly string[]).includes(s)) : [];
    const tenants = payload.tenants === '*' ? '*' : Array.isArray(payload.tenants) ? payload.tenants.filter((t): t is string => typeof t === 'string') : [];
    return { ok: true, claims: { sub: payload.sub, jti: payload.jti, scopes, tenants } };
  } catch (err) {
    return { ok: false, reason: (err as Error).name === 'TokenExpiredError' ? 'expired' : 'invalid' };
  }
}

/** Refresh tokens are opaque; only their SHA-256 is stored. */
export function newRefreshToken(): { token: string; hash: string } {
  const token = `rt_${randomBytes(32).toString('base64url')}`;
  return { token, hash: hashRefreshToken(token) };
}

export function hashRefreshToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
