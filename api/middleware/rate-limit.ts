import { Middleware } from 'koa';
import { AppContext, AppState } from '../context';
import { AppError } from '../../domain/errors';
import type { RateFigures } from '../rate-limiter';

/** Applies the caller tenant's limits (user routes); the headers are set by `rateLimitHeaders`. */
export const rateLimit: Middleware<AppState, any> = async (ctx: AppContext, next) => {
  const principal = ctx.state.principal;
  if (principal?.kind !== 'user') return next();
  const d = await ctx.deps.rateLimiter.consume(principal.tenantId);
  ctx.state.rateLimit = d;
  if (!d.allowed) {
    throw new AppError('RATE_LIMITED', d.exceeded === 'burst' ? 'too many requests in one second for the tenant plan' : 'requests per minute of the tenant plan exceeded', {
      retry_after: d.retryAfterSeconds,
    });
  }
  await next();
};

/** How long a response waits for its address's figures; a slower store (or none) leaves the headers out. */
const ADDRESS_FIGURES_TIMEOUT_MS = 250;

/**
 * The one place that sets X-RateLimit-* (SPEC.md: on every response), once the answer is known:
 * the figures of the budget that counted the request (the tenant's, or the address's refresh
 * budget), otherwise the client address's login budget (401s, login, unknown paths, 405s, docs,
 * probes). That read is bounded: a probe never waits on a slow database for its headers.
 */
export const rateLimitHeaders: Middleware<AppState, any> = async (ctx: AppContext, next) => {
  try {
    await next();
  } finally {
    const figures = ctx.state.rateLimit ?? (await addressFigures(ctx));
    if (figures) {
      ctx.set('X-RateLimit-Limit', String(figures.limit));
      ctx.set('X-RateLimit-Remaining', String(figures.remaining));
      ctx.set('X-RateLimit-Reset', String(figures.resetEpochSeconds));
    }
  }
};

async function addressFigures(ctx: AppContext): Promise<RateFigures | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ADDRESS_FIGURES_TIMEOUT_MS);
  });
  try {
    return await Promise.race([ctx.deps.loginLimits.addressFigures(ctx.ip), timeout]);
  } catch (err) {
    ctx.state.log?.warn({ err }, 'rate-limit figures of the address unavailable');
    return null;
  } finally {
    clearTimeout(timer);
  }
}
