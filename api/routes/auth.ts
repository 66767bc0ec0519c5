import { setTimeout as sleep } from 'node:timers/promises';
import Joi from '../../domain/joi';
import { PASSWORD_MAX_LENGTH } from '../../domain/auth/passwords';
import { permissionsForRole } from '../../domain/auth/permissions';
import { ACCESS_TOKEN_TTL_SECONDS, signAccessToken } from '../../domain/auth/tokens';
import { authenticate, endSession, IssuedSession, refreshSession, SessionRequest, startSession, UserRecord } from '../../services/auth';
import { AppContext, userOf } from '../context';
import { AppError } from '../../domain/errors';
import type { LimitDecision, LimitScope } from '../login-limits';
import { ApiRouter } from '../route';
import { emailField } from '../validation';

const tokenPair = Joi.object({
  access_token: Joi.string(),
  refresh_token: Joi.string(),
  token_type: Joi.string().valid('Bearer'),
  expires_in: Joi.number().integer().description('Seconds until the access token expires'),
});
const refreshBody = Joi.object({ refresh_token: Joi.string().max(200).required() });

function accessTokenFor(ctx: AppContext, user: UserRecord, sessionId: string): string {
  return signAccessToken(
    { sub: user.id, tenant_id: user.tenant_id, role: user.role, permissions: permissionsForRole(user.role), ver: user.token_version ?? 0, sid: sessionId },
    ctx.deps.config.secrets.jwt,
  );
}

const sessionRequest = (ctx: AppContext): SessionRequest => ({
  requestId: ctx.state.requestId,
  // This process stops accepting a revoked session's access tokens at once; others within their cache time.
  revoked: (ids) => ctx.deps.sessions.forget(ids),
});

function respondWithTokens(ctx: AppContext, user: UserRecord, session: IssuedSession): void {
  ctx.body = {
    access_token: accessTokenFor(ctx, user, session.sessionId),
    refresh_token: session.token,
    token_type: 'Bearer',
    expires_in: ACCESS_TOKEN_TTL_SECONDS,
  };
}

const LIMITED_BECAUSE: Record<LimitScope, string> = {
  account_address: 'too many failed logins for this email from this address; try again later',
  account: 'too many failed logins for this email from many addresses; try again later, or from an address you signed in from before',
  address: 'too many attempts from this address; try again later',
  capacity: 'too many password checks in progress; try again in a moment',
};

function limited(decision: Extract<LimitDecision, { allowed: false }>): AppError {
  return new AppError('RATE_LIMITED', LIMITED_BECAUSE[decision.scope], { retry_after: decision.retryAfterSeconds });
}

export function authRoutes(): ApiRouter {
  const api = new ApiRouter('/api/v1/auth');

  api.route<unknown, unknown, { email: string; password: string }>({
    method: 'post',
    path: '/login',
    summary: 'Exchange email and password for an access token (15 min) and a refresh token (30 days)',
    tags: ['auth'],
    auth: 'none',
    body: Joi.object({ email: emailField.required(), password: Joi.string().max(PASSWORD_MAX_LENGTH).required() }),
    responses: {
      200: { description: 'Tokens', schema: tokenPair },
      401: { description: 'Wrong email or password' },
      403: { description: 'TENANT_SUSPENDED: the password is right, but the tenant is suspended by the operator of the service' },
      429: {
        description:
          'Too many failed logins for this email from this address (10 per 15 minutes), from this address for any email (100), or for this email from many addresses (100, ' +
          'not applied to an address the account signed in from in the last 30 days), or too many password checks in progress (such a refusal is not counted). ' +
          'Past 10 failed logins of an email in 15 minutes, an attempt from an address it has not signed in from waits up to 10 s before its check.',
      },
    },
    handler: async (ctx, { body }) => {
      const limits = ctx.deps.loginLimits;
      // Counted before the password is checked, so concurrent guesses cannot outrun the count.
      const attempt = await limits.beginLogin(body.email, ctx.ip);
      if (!attempt.decision.allowed) throw limited(attempt.decision);
      // The account is being guessed at from many addresses: this (not known-good) address waits.
      if (attempt.delayMs > 0) await sleep(attempt.delayMs);
      const user = await authenticate(ctx.deps.db, body, (verify) => limits.checkPassword(verify));
      if (user === null) {
        // Refused for the server's capacity, not the caller's guesses: the email keeps its attempt.
        await attempt.notChecked();
        throw limited({ allowed: false, retryAfterSeconds: 1, scope: 'capacity' });
      }
      await attempt.succeeded();
      respondWithTokens(ctx, user, await startSession(ctx.deps.db, sessionRequest(ctx), user));
    },
  });

  api.route<unknown, unknown, { refresh_token: string }>({
    method: 'post',
    path: '/refresh',
    summary: 'Rotate a refresh token; reusing a rotated one revokes its whole family',
    description:
      "Reusing a rotated refresh token revokes its session: its refresh tokens and its access tokens (`reason: reuse_detected`). A session ends too at logout and when its user's password is changed or reset, the user is disabled or moved (`reason: revoked`).",
    tags: ['auth'],
    auth: 'none',
    body: refreshBody,
    responses: {
      200: { description: 'New tokens', schema: tokenPair },
      401: { description: 'Refused; `reason` is unknown, expired, revoked, user_disabled or reuse_detected' },
      403: { description: 'TENANT_SUSPENDED: the tenant is suspended; the session works again once it is resumed' },
      429: { description: 'Too many refreshes from this address (60 per minute)' },
    },
    handler: async (ctx, { body }) => {
      const { decision, figures } = await ctx.deps.loginLimits.countRefresh(ctx.ip);
      ctx.state.rateLimit = figures;
      if (!decision.allowed) throw limited(decision);
      const { user, ...session } = await refreshSession(ctx.deps.db, sessionRequest(ctx), body.refresh_token);
      respondWithTokens(ctx, user, session);
    },
  });

  api.route<unknown, unknown, { refresh_token: string }>({
    method: 'post',
    path: '/logout',
    summary: 'Sign out: revoke this login (its refresh tokens and access tokens)',
    description:
      "Revokes the session of the access token (its refresh-token family and every access token issued for it, refused within seconds on every API process) and the family of the given refresh token when it is another of the caller's.",
    tags: ['auth'],
    auth: 'user',
    body: refreshBody,
    responses: { 204: { description: 'Revoked' } },
    handler: async (ctx, { body }) => {
      const user = userOf(ctx);
      await endSession(ctx.deps.db, sessionRequest(ctx), { tenantId: user.tenantId, userId: user.userId, sessionId: user.sessionId }, body.refresh_token);
      ctx.status = 204;
    },
  });

  return api;
}
