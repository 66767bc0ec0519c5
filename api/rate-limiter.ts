/**
 * The per-tenant request budget (Koa-free: the middleware in middleware/rate-limit.ts applies it,
 * and the app's dependencies carry it, so the context type does not import the middleware).
 */
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { Db } from '../db/knex';
import { PLAN_NAMES, PlanName, RATE_LIMITS } from '../domain/tenancy/plans';
import { unauthenticated } from '../domain/errors';

/** What the X-RateLimit-* headers of a response describe: one window of one budget. */
export interface RateFigures {
  limit: number;
  remaining: number;
  resetEpochSeconds: number;
}

export interface RateDecision extends RateFigures {
  allowed: boolean;
  retryAfterSeconds: number;
  exceeded: 'burst' | 'minute' | null;
}

export interface RateLimiter {
  consume(tenantId: string): Promise<RateDecision>;
}

const PLAN_CACHE_MS = 30_000;

/**
 * Per-tenant limits of the tenant's plan, counted in PostgreSQL so every API process shares them
 * (rate-limiter-flexible). Two windows: the per-minute budget, and the burst (requests in any one
 * second). The burst is checked first so a request it refuses does not spend the minute budget.
 */
export function createRateLimiter(db: Db): RateLimiter {
  const limiters = Object.fromEntries(
    PLAN_NAMES.map((plan) => {
      const common = { storeClient: db, storeType: 'knex', tableName: 'rate_limits', tableCreated: true };
      const { requestsPerMinute, burstPerSecond } = RATE_LIMITS[plan];
      return [
        plan,
        {
          minute: new RateLimiterPostgres({ ...common, keyPrefix: `min:${plan}`, points: requestsPerMinute, duration: 60 }),
          burst: new RateLimiterPostgres({ ...common, keyPrefix: `sec:${plan}`, points: burstPerSecond, duration: 1 }),
        },
      ];
    }),
  ) as Record<PlanName, { minute: RateLimiterPostgres; burst: RateLimiterPostgres }>;

  const planCache = new Map<string, { plan: PlanName; until: number }>();
  async function planOf(tenantId: string): Promise<PlanName | null> {
    const cached = planCache.get(tenantId);
    if (cached && cached.until > Date.now()) return cached.plan;
    const row = await db('tenants').where({ id: tenantId }).first('plan');
    if (!row) return null;
    planCache.set(tenantId, { plan: row.plan, until: Date.now() + PLAN_CACHE_MS });
    return row.plan;
  }

  return {
    async consume(tenantId) {
      const plan = await planOf(tenantId);
      if (!plan) throw unauthenticated('tenant no longer exists');
      const { minute, burst } = limiters[plan];
      const limit = RATE_LIMITS[plan].requestsPerMinute;
      try {
        await burst.consume(tenantId);
      } catch (rejection) {
        const burstRes = asLimiterRes(rejection);
        const minuteRes = await minute.get(tenantId);
        return decision(false, limit, minuteRes, 'burst', burstRes.msBeforeNext);
      }
      try {
        return decision(true, limit, await minute.consume(tenantId), null);
      } catch (rejection) {
        const res = asLimiterRes(rejection);
        return decision(false, limit, res, 'minute', res.msBeforeNext);
      }
    },
  };
}

function asLimiterRes(rejection: unknown): RateLimiterRes {
  // rate-limiter-flexible rejects with a RateLimiterRes when over the limit, with an Error on store failure.
  if (rejection instanceof RateLimiterRes) return rejection;
  throw rejection;
}

function decision(allowed: boolean, limit: number, minuteRes: RateLimiterRes | null, exceeded: RateDecision['exceeded'], retryMs = 0): RateDecision {
  const msBeforeReset = minuteRes && minuteRes.msBeforeNext > 0 ? minuteRes.msBeforeNext : 60_000;
  return {
    allowed,
    limit,
    remaining: minuteRes ? Math.max(0, limit - minuteRes.consumedPoints) : limit,
    resetEpochSeconds: Math.ceil((Date.now() + msBeforeReset) / 1000),
    retryAfterSeconds: Math.max(1, Math.ceil(retryMs / 1000)),
    exceeded,
  };
}
