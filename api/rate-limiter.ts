/**
 * The per-tenant request budget (Koa-free: the middleware in middleware/rate-limit.ts applies it,
 * and the app's dependencies carry it, so the context type does not import the middleware).
 */
import { setImmediate as afterThisTurn } from 'node:timers/promises';
import { LRUCache } from 'lru-cache';
import { Db, runPrepared } from '../db/knex';
import { PlanName, RATE_LIMITS, RateLimit } from '../domain/tenancy/plans';
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
  /**
   * The count of a read that may run while it is counted: started when this process's last count
   * for the tenant left room in both windows for it and the tenant's other reads counted so in
   * this process (a margin of a tenth of each window kept); null when the read must wait for its count.
   * The count starts after the current turn of the event loop, once the read's query is sent.
   */
  countAlongside(tenantId: string): Promise<RateDecision> | null;
}

/**
 * Reads of one tenant counted alongside their work at once in one process. Each costs its read
 * when the count refuses it (another process spent the budget since this one last counted), so
 * this bounds what a tenant's refused requests can cost the platform after each of its counts.
 */
export const MAX_COUNTED_ALONGSIDE = 8;
/** Tenants whose last count a process remembers; the least recently counted are forgotten (their next read waits for its count). */
const KNOWN_BUDGETS = 10_000;

const PLAN_CACHE_MS = 30_000;

/** One window's counter after a request: points counted in it and when it ends (epoch ms). */
interface WindowCount {
  points: number;
  expireMs: number;
}

interface WindowRow {
  burst_points: number;
  burst_expire: string;
  minute_points: number | null;
  minute_expire: string | null;
  minute_before: { points: number; expire: number } | null;
}

/**
 * Both windows of a request in one statement, on rate-limiter-flexible's table layout (`key`,
 * `points`, `expire` in epoch ms; the login and inbound limiters share the table, and its expired
 * rows are cleared by them). The burst counter is counted first; the minute counter only when the
 * burst admitted the request, so a request the burst refuses does not spend the minute budget.
 * A window whose `expire` has passed starts again at 1, as the library's upsert does. The minute
 * row is also read as it was, for a refused request's headers. A named prepared statement: it
 * runs on every request. Parameters: burst key, minute key, now, burst end, minute end, burst limit.
 */
const COUNT_BOTH_WINDOWS = `
  with burst as (
    insert into rate_limits as r (key, points, expire) values ($1::varchar, 1, $4::bigint)
    on conflict (key) do update set
      points = case when r.expire <= $3::bigint then 1 else r.points + 1 end,
      expire = case when r.expire <= $3::bigint then excluded.expire else r.expire end
    returning points, expire
  ), minute as (
    insert into rate_limits as r (key, points, expire)
    select $2::varchar, 1, $5::bigint from burst where burst.points <= $6::integer
    on conflict (key) do update set
      points = case when r.expire <= $3::bigint then 1 else r.points + 1 end,
      expire = case when r.expire <= $3::bigint then excluded.expire else r.expire end
    returning points, expire
  )
  select burst.points as burst_points, burst.expire as burst_expire,
         minute.points as minute_points, minute.expire as minute_expire,
         (select row_to_json(m) from (select points, expire from rate_limits where key = $2::varchar and expire > $3::bigint) m) as minute_before
    from burst left join minute on true`;

/**
 * Per-tenant limits of the tenant's plan, counted in PostgreSQL so every API process shares them.
 * Two windows: the per-minute budget, and the burst (requests in any one second), counted in one
 * round trip (COUNT_BOTH_WINDOWS; with rate-limiter-flexible's two limiters it was two, one after
 * the other, on every request). The burst is judged first, and a request it refuses does not
 * spend the minute budget.
 */
export function createRateLimiter(db: Db): RateLimiter {
  const known = new LRUCache<string, KnownBudget>({ max: KNOWN_BUDGETS });
  const countingAlongside = new Map<string, number>();
  const planCache = new Map<string, { plan: PlanName; until: number }>();
  async function planOf(tenantId: string): Promise<PlanName | null> {
    const cached = planCache.get(tenantId);
    if (cached && cached.until > Date.now()) return cached.plan;
    const row = await db('tenants').where({ id: tenantId }).first('plan');
    if (!row) return null;
    planCache.set(tenantId, { plan: row.plan, until: Date.now() + PLAN_CACHE_MS });
    return row.plan;
  }

  async function consume(tenantId: string): Promise<RateDecision> {
    const plan = await planOf(tenantId);
    if (!plan) throw unauthenticated('tenant no longer exists');
    const limits = RATE_LIMITS[plan];
    const { requestsPerMinute, burstPerSecond } = limits;
    const now = Date.now();
    const [row] = await runPrepared<WindowRow>(db, 'tenant-budget', COUNT_BOTH_WINDOWS, [
      `sec:${plan}:${tenantId}`,
      `min:${plan}:${tenantId}`,
      now,
      now + 1_000,
      now + 60_000,
      burstPerSecond,
    ]);
    if (!row) throw new Error('the tenant budget statement answered no row');
    const burst: WindowCount = { points: row.burst_points, expireMs: Number(row.burst_expire) };
    if (burst.points > burstPerSecond) {
      const before = row.minute_before ? { points: row.minute_before.points, expireMs: Number(row.minute_before.expire) } : null;
      known.set(tenantId, { limits, burst, minute: before });
      return decision(false, requestsPerMinute, before, 'burst', burst.expireMs - now);
    }
    const minute: WindowCount = { points: row.minute_points as number, expireMs: Number(row.minute_expire) };
    known.set(tenantId, { limits, burst, minute });
    if (minute.points > requestsPerMinute) return decision(false, requestsPerMinute, minute, 'minute', minute.expireMs - now);
    return decision(true, requestsPerMinute, minute, null);
  }

  return {
    consume,
    countAlongside(tenantId) {
      const last = known.get(tenantId);
      const counting = countingAlongside.get(tenantId) ?? 0;
      if (!last || counting >= MAX_COUNTED_ALONGSIDE || roomLeft(last, Date.now()) <= counting) return null;
      countingAlongside.set(tenantId, counting + 1);
      // After the event loop's current turn: the read's own query has gone out by then (its path to
      // the socket is promises only), so the read does not queue behind the count's statement.
      return afterThisTurn()
        .then(() => consume(tenantId))
        .finally(() => {
          const left = (countingAlongside.get(tenantId) ?? 1) - 1;
          if (left > 0) countingAlongside.set(tenantId, left);
          else countingAlongside.delete(tenantId);
        });
    },
  };
}

/** A tenant's two windows as its last count in this process left them. */
interface KnownBudget {
  limits: RateLimit;
  burst: WindowCount;
  minute: WindowCount | null;
}

/**
 * Requests the last count leaves to spend before either window keeps only its margin (a tenth of
 * its limit, at least one request: what other processes may have spent since); a window that has
 * ended since counts as empty.
 */
function roomLeft({ limits, burst, minute }: KnownBudget, now: number): number {
  const left = (limit: number, count: WindowCount | null) => limit - (count && count.expireMs > now ? count.points : 0) - Math.max(1, Math.ceil(limit / 10));
  return Math.min(left(limits.burstPerSecond, burst), left(limits.requestsPerMinute, minute));
}

function decision(allowed: boolean, limit: number, minute: WindowCount | null, exceeded: RateDecision['exceeded'], retryMs = 0): RateDecision {
  const now = Date.now();
  const msBeforeReset = minute && minute.expireMs > now ? minute.expireMs - now : 60_000;
  return {
    allowed,
    limit,
    remaining: minute ? Math.max(0, limit - minute.points) : limit,
    resetEpochSeconds: Math.ceil((now + msBeforeReset) / 1000),
    retryAfterSeconds: Math.max(1, Math.ceil(retryMs / 1000)),
    exceeded,
  };
}
