/**
 * Service tokens as the service's operator mints, lists and revokes them (cli/): the JWTs with
 * `aud: internal` that the internal API takes (domain/auth/tokens.ts). A mint records the token's
 * id, holder, grant and expiry (never the token); a revocation is the internal API's own.
 */
import type { Db, Queryable } from '../db/knex';
import { paginate, type Page, type PageRequest } from '../db/pagination';
import { recordServiceToken, serviceTokensQuery, type ServiceTokenRecord } from '../db/service-tokens';
import { issueInternalToken, SERVICE_SCOPES, SERVICE_TOKEN_MAX_TTL_SECONDS, type ServiceGrant, type ServiceScope } from '../domain/auth/tokens';
import { isUuid } from '../domain/ids';
import { notFound, validationError } from '../domain/errors';
import { revokeServiceTokenById } from './internal';

export type { ServiceTokenRecord };

/** The most tenants one token may name: a token for more is one for every tenant. */
export const MAX_TOKEN_TENANTS = 100;

export interface TokenOrder {
  /** Who holds it (the token's `sub`): a service's name, as the audit trail shows it. */
  serviceId: string;
  scopes: readonly string[];
  /** '*': every tenant. */
  tenants: readonly string[] | '*';
  ttlSeconds: number;
}

export interface MintedToken {
  token: string;
  jti: string;
  serviceId: string;
  scopes: ServiceScope[];
  tenants: readonly string[] | '*';
  expiresAt: Date;
}

const invalid = (field: string, message: string) => validationError(`${field} ${message}`, [{ field, message, type: 'any.invalid' }]);

function grantOf(order: TokenOrder): ServiceGrant {
  const unknown = order.scopes.filter((scope) => !(SERVICE_SCOPES as readonly string[]).includes(scope));
  if (order.scopes.length === 0 || unknown.length > 0)
    throw invalid('scopes', `must be some of ${SERVICE_SCOPES.join(', ')}${unknown.length ? ` (unknown: ${unknown.join(', ')})` : ''}`);
  if (order.tenants !== '*' && (order.tenants.length === 0 || order.tenants.length > MAX_TOKEN_TENANTS)) {
    throw invalid('tenants', `must name 1 to ${MAX_TOKEN_TENANTS} tenants, or every tenant`);
  }
  return { scopes: [...new Set(order.scopes)] as ServiceScope[], tenants: order.tenants === '*' ? '*' : [...new Set(order.tenants)] };
}

/**
 * Signs a token with `secret` (INTERNAL_JWT_SECRET) for the named tenants (each must exist) or all,
 * living `ttlSeconds` (1 s to 90 days), and records it as issued by `issuedBy`. The token is
 * answered once: it is not stored.
 */
export async function mintServiceToken(db: Db, secret: string, order: TokenOrder, issuedBy: string): Promise<MintedToken> {
  if (!/^[\w.:@-]{1,100}$/.test(order.serviceId)) throw invalid('service', 'must be 1 to 100 letters, digits or . _ : @ -');
  if (!Number.isInteger(order.ttlSeconds) || order.ttlSeconds < 1 || order.ttlSeconds > SERVICE_TOKEN_MAX_TTL_SECONDS) {
    throw invalid('ttl', `must be from 1 second to ${SERVICE_TOKEN_MAX_TTL_SECONDS / 86_400} days`);
  }
  const grant = grantOf(order);
  if (grant.tenants !== '*') {
    const wanted = grant.tenants;
    const malformed = wanted.filter((id) => !isUuid(id));
    const known = new Set<string>(await db('tenants').whereIn('id', wanted.filter(isUuid)).pluck('id'));
    const missing = [...malformed, ...wanted.filter((id) => isUuid(id) && !known.has(id))];
    if (missing.length > 0) throw notFound(`tenant ${missing.join(', ')}`);
  }
  const issued = issueInternalToken(order.serviceId, secret, grant, order.ttlSeconds);
  await recordServiceToken(db, {
    jti: issued.jti,
    serviceId: order.serviceId,
    scopes: grant.scopes,
    tenantIds: grant.tenants === '*' ? null : grant.tenants,
    expiresAt: issued.expiresAt,
    issuedBy,
  });
  return { token: issued.token, jti: issued.jti, serviceId: order.serviceId, scopes: [...grant.scopes], tenants: grant.tenants, expiresAt: issued.expiresAt };
}

/** Minted tokens, newest first; `live`: those neither expired nor revoked. */
export function listServiceTokens(db: Queryable, live: boolean, page: PageRequest): Promise<Page<ServiceTokenRecord>> {
  return paginate<ServiceTokenRecord>(serviceTokensQuery(db, live), page);
}

/**
 * Revokes a service token by its id, as the operator: refused on every API process within the
 * session check's cache time (SESSION_CHECK_CACHE_MS). Also a token minted elsewhere (the id is
 * its `jti` claim). Revoking again answers the first revocation.
 */
export async function revokeServiceTokenAsOperator(db: Db, jti: string, operator: string): Promise<{ jti: string; revoked_at: Date; revoked_by: string }> {
  if (!isUuid(jti)) throw notFound('service token');
  return revokeServiceTokenById(db, { serviceId: `operator:${operator}`, tokenId: jti, tenants: '*' }, jti);
}
