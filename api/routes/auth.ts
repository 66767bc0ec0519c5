import Joi from '../../domain/joi';
import { permissionsForRole } from '../../domain/auth/permissions';
import { ACCESS_TOKEN_TTL_SECONDS, signAccessToken } from '../../domain/auth/tokens';
import { authenticate, endSession, refreshSession, SessionRequest, startSession, UserRecord } from '../../services/auth';
import { AppContext, userOf } from '../context';
import { AppError } from '../../domain/errors';
import type { LimitDecision } from '../login-limits';
import { ApiRouter } from '../route';
import { emailField } from '../validation';

const tokenPair = Joi.object({
  access_token: Joi.string(),
  refresh_token: Joi.string(),
  token_type: Joi.string().valid('Bearer'),
  expires_in: Joi.number().integer().description('Seconds until the access token expires'),
});
const refreshBody = Joi.object({ refresh_token: Joi.string().max(200).required() });

function accessTokenFor(ctx: AppContext, user: UserRecord): string {
  return signAccessToken(
    { sub: user.id, tenant_id: user.tenant_id, role: user.role, permissions: permissionsForRole(user.role), ver: user.token_version ?? 0 },
    ctx.deps.config.secrets.jwt,
  );
}

const sessionRequest = (ctx: AppContext): SessionRequest => ({ requestId: ctx.state.requestId });

function respondWithTokens(ctx: AppContext, user: UserRecord, refreshToken: string): void {
  ctx.body = {
    access_token: accessTokenFor(ctx, user),
    refresh_token: refreshToken,
    token_type: 'Bearer',
    expires_in: ACCESS_TOKEN_TTL_SECONDS,
  };
}

const LIMITED_BECAUSE: Record<'email' | 'address' | 'capacity', string> = {
  email: 'too many login attempts for this email; try again later',
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
    body: Joi.object({ email: emailField.required(), password: Joi.string().max(200).required() }),
    responses: {
      200: { description: 'Tokens', schema: tokenPair },
      401: { description: 'Wrong email or password' },
      429: { description: 'Too many login attempts for this email (10 per 15 minutes) or from this address (100), or too many password checks in progress' },
    },
    handler: async (ctx, { body }) => {
      const limits = ctx.deps.loginLimits;
      // Counted before the password is checked, so concurrent guesses cannot outrun the count.
      const attempt = await limits.beginLogin(body.email, ctx.ip);
      if (!attempt.decision.allowed) throw limited(attempt.decision);
      const user = await authenticate(ctx.deps.db, body, (verify) => limits.checkPassword(verify));
      if (user === null) throw limited({ allowed: false, retryAfterSeconds: 1, scope: 'capacity' });
      await attempt.succeeded();
      respondWithTokens(ctx, user, await startSession(ctx.deps.db, sessionRequest(ctx), user));
    },
  });

  api.route<unknown, unknown, { refresh_token: string }>({
    method: 'post',
    path: '/refresh',
    summary: 'Rotate a refresh token; reusing a rotated one revokes its whole family',
    tags: ['auth'],
    auth: 'none',
    body: refreshBody,
    responses: {
      200: { description: 'New tokens', schema: tokenPair },
      401: { description: 'Refused' },
      429: { description: 'Too many refreshes from this address (60 per minute)' },
    },
    handler: async (ctx, { body }) => {
      const { decision, figures } = await ctx.deps.loginLimits.countRefresh(ctx.ip);
      ctx.state.rateLimit = figures;
      if (!decision.allowed) throw limited(decision);
      const { user, token } = await refreshSession(ctx.deps.db, sessionRequest(ctx), body.refresh_token);
      respondWithTokens(ctx, user, token);
    },
  });

  api.route<unknown, unknown, { refresh_token: string }>({
    method: 'post',
    path: '/logout',
    summary: 'Revoke the refresh-token family of this login',
    tags: ['auth'],
    auth: 'user',
    body: refreshBody,
    responses: { 204: { description: 'Revoked' } },
    handler: async (ctx, { body }) => {
      await endSession(ctx.deps.db, sessionRequest(ctx), userOf(ctx), body.refresh_token);
      ctx.status = 204;
    },
  });

  return api;
}
