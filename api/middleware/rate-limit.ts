import { Readable } from 'node:stream';
import { Middleware } from 'koa';
import { AppContext, AppState } from '../context';
import { AppError } from '../../domain/errors';
import type { RateDecision, RateFigures } from '../rate-limiter';

/** Applies the caller tenant's limits (user routes) before the request's work; the headers are set by `rateLimitHeaders`. */
export const rateLimit: Middleware<AppState, any> = async (ctx: AppContext, next) => {
  const principal = ctx.state.principal;
  if (principal?.kind !== 'user') return next();
  const d = await ctx.deps.rateLimiter.consume(principal.tenantId);
  ctx.state.rateLimit = d;
  if (!d.allowed) throw refusal(d);
  await next();
};

/**
 * The limits of a read-only route (RouteSpec.readOnly): when this process's last count for the
 * tenant left room (RateLimiter.countAlongside), the request is counted while its handler runs,
 * so the count's round trip is not added to the read's; otherwise, as `rateLimit`. Either way
 * every request is counted in the shared windows and answered with the figures of its own count;
 * a request its count refuses is answered 429 and nothing of its handler's answer is sent.
 */
export const rateLimitAlongside: Middleware<AppState, any> = async (ctx: AppContext, next) => {
  const principal = ctx.state.principal;
  const counting = principal?.kind === 'user' ? ctx.deps.rateLimiter.countAlongside(principal.tenantId) : null;
  if (!counting) return rateLimit(ctx, next);
  // Settled at once: a count that fails while the handler runs is not an unhandled rejection.
  const counted = counting.then(
    (decision) => ({ decision }),
    (error: unknown) => ({ error }),
  );
  const headersBefore = Object.keys(ctx.response.headers);
  let handlerFailure: { error: unknown } | null = null;
  try {
    await next();
  } catch (error) {
    handlerFailure = { error };
  }
  const count = await counted;
  if ('error' in count) {
    discardAnswer(ctx, headersBefore);
    throw count.error;
  }
  ctx.state.rateLimit = count.decision;
  if (!count.decision.allowed) {
    discardAnswer(ctx, headersBefore);
    throw refusal(count.decision);
  }
  if (handlerFailure) throw handlerFailure.error;
};

function refusal(d: RateDecision): AppError {
  return new AppError('RATE_LIMITED', d.exceeded === 'burst' ? 'too many requests in one second for the tenant plan' : 'requests per minute of the tenant plan exceeded', {
    retry_after: d.retryAfterSeconds,
  });
}

/** Drops what a handler answered (its headers, and a streamed body's source) before the error path answers instead. */
function discardAnswer(ctx: AppContext, headersBefore: readonly string[]): void {
  if (ctx.body instanceof Readable) ctx.body.destroy();
  const kept = new Set(headersBefore);
  for (const name of Object.keys(ctx.response.headers)) if (!kept.has(name)) ctx.remove(name);
}

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
