import { createHash, createSecretKey, KeyObject, randomBytes } from 'node:crypto';
import jwt from 'jsonwebtoken';
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
}

export function signAccessToken(claims: AccessClaims, secret: string, ttlSeconds = ACCESS_TOKEN_TTL_SECONDS): string {
  return jwt.sign({ tenant_id: claims.tenant_id, role: claims.role, permissions: claims.permissions, ver: claims.ver }, keyOf(secret), {
    algorithm: ALGORITHM,
    expiresIn: ttlSeconds,
    subject: claims.sub,
    audience: USER_AUDIENCE,
    issuer: ISSUER,
  });
}

export type TokenCheck<T> = { ok: true; claims: T } | { ok: false; reason: 'expired' | 'invalid' };

/** The algorithm is pinned: `alg: none` and tokens signed with anything but HS256 are refused. */
export function verifyAccessToken(token: string, secret: string): TokenCheck<AccessClaims> {
  try {
    const payload = jwt.verify(token, keyOf(secret), { algorithms: [ALGORITHM], audience: USER_AUDIENCE, issuer: ISSUER });
    if (typeof payload === 'string') return { ok: false, reason: 'invalid' };
    const { sub, tenant_id, role, permissions, ver = 0 } = payload as Record<string, unknown>;
    if (typeof sub !== 'string' || typeof tenant_id !== 'string' || !isRole(role) || !Array.isArray(permissions) || !Number.isInteger(ver)) {
      return { ok: false, reason: 'invalid' };
    }
    return { ok: true, claims: { sub, tenant_id, role, permissions: permissions as Permission[], ver: ver as number } };
  } catch (err) {
    return { ok: false, reason: (err as Error).name === 'TokenExpiredError' ? 'expired' : 'invalid' };
  }
}

/** What a service token may do (issue 17): each internal route requires one. */
export const SERVICE_SCOPES = ['health:read', 'events:write', 'notifications:send', 'outbox:read', 'outbox:write'] as const;
export type ServiceScope = (typeof SERVICE_SCOPES)[number];

export interface ServiceGrant {
  scopes: readonly ServiceScope[];
  /** Tenant ids the token may act for, or '*' for every tenant (an operator's own tooling). */
  tenants: readonly string[] | '*';
}

/** Every scope for every tenant: an operator's own tooling (and the tests), never a partner. */
export const FULL_SERVICE_GRANT: ServiceGrant = { scopes: SERVICE_SCOPES, tenants: '*' };

/** Service-to-service token: a JWT with `aud: internal`, signed with a secret separate from user tokens. */
export function signInternalToken(serviceId: string, secret: string, grant: ServiceGrant, ttlSeconds = 300): string {
  return jwt.sign({ scope: grant.scopes.join(' '), tenants: grant.tenants }, keyOf(secret), {
    algorithm: ALGORITHM,
    expiresIn: ttlSeconds,
    subject: serviceId,
    audience: INTERNAL_AUDIENCE,
    issuer: ISSUER,
  });
}

export function verifyInternalToken(token: string, secret: string): TokenCheck<{ sub: string } & ServiceGrant> {
  try {
    const payload = jwt.verify(token, keyOf(secret), { algorithms: [ALGORITHM], audience: INTERNAL_AUDIENCE, issuer: ISSUER });
    if (typeof payload === 'string' || typeof payload.sub !== 'string') return { ok: false, reason: 'invalid' };
    // A token without a grant may do nothing (tokens from before scopes existed included).
    const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ').filter((s): s is ServiceScope => (SERVICE_SCOPES as readonly string[]).includes(s)) : [];
    const tenants = payload.tenants === '*' ? '*' : Array.isArray(payload.tenants) ? payload.tenants.filter((t): t is string => typeof t === 'string') : [];
    return { ok: true, claims: { sub: payload.sub, scopes, tenants } };
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
