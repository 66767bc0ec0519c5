import { Middleware } from 'koa';
import { AppContext, AppState } from '../context';
import { AppError } from '../../domain/errors';

/** Applies the caller tenant's limits; sets the X-RateLimit-* headers on every authenticated response. */
export const rateLimit: Middleware<AppState, any> = async (ctx: AppContext, next) => {
  const principal = ctx.state.principal;
  if (principal?.kind !== 'user') return next();
  const d = await ctx.deps.rateLimiter.consume(principal.tenantId);
  ctx.set('X-RateLimit-Limit', String(d.limit));
  ctx.set('X-RateLimit-Remaining', String(d.remaining));
  ctx.set('X-RateLimit-Reset', String(d.resetEpochSeconds));
  if (!d.allowed) {
    throw new AppError('RATE_LIMITED', d.exceeded === 'burst' ? 'too many requests in one second for the tenant plan' : 'requests per minute of the tenant plan exceeded', {
      retry_after: d.retryAfterSeconds,
    });
  }
  await next();
};
