import { Middleware } from 'koa';
import { verifyAccessToken, verifyInternalToken } from '../../domain/auth/tokens';
import { AppContext, AppState } from '../context';
import { tenantSuspended, unauthenticated } from '../../domain/errors';
import { declareRequestTenant } from '../../db/db-scope';
import { addToWorkContext } from '../../infra/work-context';

function bearerToken(ctx: AppContext): string {
  const header = ctx.get('Authorization');
  const match = /^Bearer ([A-Za-z0-9._~+/=-]+)$/.exec(header);
  if (!match) throw unauthenticated('missing or malformed Authorization: Bearer header');
  return match[1];
}

/** Users: the tenant comes only from the verified token. */
export const authenticateUser: Middleware<AppState, any> = async (ctx: AppContext, next) => {
  const check = verifyAccessToken(bearerToken(ctx), ctx.deps.config.secrets.jwt);
  if (!check.ok) throw unauthenticated(check.reason === 'expired' ? 'access token expired' : 'invalid access token');
  // The row-level security wall (db/db-scope.ts): this request's queries see this tenant's rows only.
  declareRequestTenant(check.claims.tenant_id);
  addToWorkContext({ tenant_id: check.claims.tenant_id });
  // A revoked session, a disabled user, a changed role or password void the tokens issued before;
  // a suspended tenant's are refused until it is resumed (api/session-check.ts).
  const verdict = await ctx.deps.sessions.verdict(check.claims);
  if (verdict === 'tenant_suspended') throw tenantSuspended();
  if (verdict !== 'current') throw unauthenticated('the session is no longer valid; sign in again');
  const { sub, tenant_id, role, permissions, sid } = check.claims;
  ctx.state.principal = { kind: 'user', userId: sub, tenantId: tenant_id, role, permissions, sessionId: sid };
  // The request's own logger (api/middleware/request-id.ts) names them from here on: no second child per request.
  ctx.state.log.setBindings({ tenant_id, user_id: sub });
  await next();
};

const SERVICE_TOKEN_REFUSED = {
  invalid: 'invalid internal service token',
  expired: 'the service token has expired',
  unbounded: 'a service token needs an id (jti) and an expiry (exp) at most 90 days after it was issued',
} as const;

/** Internal endpoints: a JWT with aud "internal" signed with the internal secret; user tokens fail here. */
export const authenticateInternal: Middleware<AppState, any> = async (ctx: AppContext, next) => {
  const check = verifyInternalToken(bearerToken(ctx), ctx.deps.config.secrets.internalJwt);
  if (!check.ok) throw unauthenticated(SERVICE_TOKEN_REFUSED[check.reason]);
  if (await ctx.deps.sessions.isServiceTokenRevoked(check.claims.jti)) throw unauthenticated('the service token was revoked');
  ctx.state.principal = { kind: 'service', serviceId: check.claims.sub, tokenId: check.claims.jti, scopes: check.claims.scopes, tenants: check.claims.tenants };
  await next();
};
