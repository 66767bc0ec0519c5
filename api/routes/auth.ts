import Joi from '../../domain/joi';
import { Knex } from 'knex';
import { appendAudit } from '../../db/audit';
import { findUserByEmail, issueRefreshToken, revokeByToken, rotateRefreshToken, UserRecord } from '../../db/auth';
import { permissionsForRole } from '../../domain/auth/permissions';
import { DUMMY_HASH_PROMISE, verifyPassword } from '../../domain/auth/passwords';
import { ACCESS_TOKEN_TTL_SECONDS, signAccessToken } from '../../domain/auth/tokens';
import { AppContext, userOf } from '../context';
import { AppError, unauthenticated } from '../../domain/errors';
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

/** Auth events are audited as actions of the user on their own account. */
function auditAuth(ctx: AppContext, tx: Knex.Transaction, who: { tenantId: string; userId: string }, action: string, family: string | null) {
  return appendAudit(tx, {
    tenantId: who.tenantId,
    actor: { type: 'user', id: who.userId },
    action,
    resourceType: 'user',
    resourceId: who.userId,
    requestId: ctx.state.requestId,
    details: { token_family: family },
  });
}

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
      const user = await findUserByEmail(ctx.deps.db, body.email);
      // Same work whether or not the user exists: the answer time does not reveal accounts.
      const hash = user?.password_hash ?? (await DUMMY_HASH_PROMISE);
      const valid = await limits.checkPassword(() => verifyPassword(body.password, hash));
      if (valid === null) throw limited({ allowed: false, retryAfterSeconds: 1, scope: 'capacity' });
      if (!user || !valid || user.status !== 'active') throw unauthenticated('wrong email or password');
      await attempt.succeeded();
      const issued = await ctx.deps.db.transaction(async (tx) => {
        const token = await issueRefreshToken(tx, user);
        await auditAuth(ctx, tx, { tenantId: user.tenant_id, userId: user.id }, 'auth.login', token.familyId);
        return token;
      });
      respondWithTokens(ctx, user, issued.token);
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
      const counted = await ctx.deps.loginLimits.countRefresh(ctx.ip);
      if (!counted.allowed) throw limited(counted);
      const result = await ctx.deps.db.transaction(async (tx) => {
        const rotation = await rotateRefreshToken(tx, body.refresh_token);
        if (rotation.kind === 'reuse_detected' || rotation.kind === 'rotated') {
          const tenantId = rotation.kind === 'rotated' ? rotation.user.tenant_id : rotation.tenantId;
          const userId = rotation.kind === 'rotated' ? rotation.user.id : rotation.userId;
          const action = rotation.kind === 'rotated' ? 'auth.refresh' : 'auth.refresh_reuse_detected';
          await auditAuth(ctx, tx, { tenantId, userId }, action, rotation.familyId);
        }
        return rotation;
      });
      if (result.kind === 'rotated') return respondWithTokens(ctx, result.user, result.token);
      if (result.kind === 'reuse_detected') {
        throw new AppError('UNAUTHENTICATED', 'refresh token was already used; all sessions of this login are revoked', {
          reason: 'reuse_detected',
        });
      }
      throw new AppError('UNAUTHENTICATED', `refresh token ${result.reason === 'unknown' ? 'is not valid' : result.reason}`, {
        reason: result.reason,
      });
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
      const user = userOf(ctx);
      await ctx.deps.db.transaction(async (tx) => {
        const family = await revokeByToken(tx, body.refresh_token, user.userId);
        await auditAuth(ctx, tx, user, 'auth.logout', family);
      });
      ctx.status = 204;
    },
  });

  return api;
}
