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

/** The tenant's row after its count (bigints come back as text). */
interface BudgetRow {
  burst_points: number;
  burst_ends: string;
  minute_points: number;
  minute_ends: string;
}

/** The burst count a request makes: 1 in a window that has ended, one more in the current one. */
const BURST_AFTER = `case when b.burst_ends <= $2::bigint then 1 else b.burst_points + 1 end`;

/**
 * Both windows of a request in one statement, on the tenant's own row of `tenant_request_budgets`
 * (db/migrations/20261204090000_tenant_request_budgets.ts; a table of ours, so no library's layout
 * is written by hand). The burst is counted first; the minute only when the burst admitted the
 * request, so a request the burst refuses does not spend the minute budget (the row then keeps the
 * minute as it was, which a refused request's headers show). A window whose end has passed starts
 * again at 1. One row and one upsert per request, a named prepared statement: it runs on every
 * request. Parameters: tenant, now, burst end, minute end, burst limit (times in epoch ms).
 */
const COUNT_BOTH_WINDOWS = `
  insert into tenant_request_budgets as b (tenant_id, burst_points, burst_ends, minute_points, minute_ends)
  values ($1::uuid, 1, $3::bigint, 1, $4::bigint)
  on conflict (tenant_id) do update set
    burst_points = ${BURST_AFTER},
    burst_ends = case when b.burst_ends <= $2::bigint then excluded.burst_ends else b.burst_ends end,
    minute_points = case when ${BURST_AFTER} > $5::integer then b.minute_points
                         when b.minute_ends <= $2::bigint then 1 else b.minute_points + 1 end,
    minute_ends = case when ${BURST_AFTER} > $5::integer then b.minute_ends
                       when b.minute_ends <= $2::bigint then excluded.minute_ends else b.minute_ends end
  returning burst_points, burst_ends, minute_points, minute_ends`;

/**
 * Per-tenant limits of the tenant's plan, counted in PostgreSQL so every API process shares them.
 * Two windows: the per-minute budget, and the burst (requests in any one second), counted in one
 * round trip on one row (COUNT_BOTH_WINDOWS). The burst is judged first, and a request it refuses
 * does not spend the minute budget.
 */
export function createRateLimiter(db: Db): RateLimiter {
  const known = new LRUCache<string, KnownBudget>({ max: KNOWN_BUDGETS });
  const countingAlongside = new Map<string, number>();
  // Bounded like the budgets: a process that has served many tenants forgets the least recent plans.
  const planCache = new LRUCache<string, PlanName>({ max: KNOWN_BUDGETS, ttl: PLAN_CACHE_MS });
  async function planOf(tenantId: string): Promise<PlanName | null> {
    const cached = planCache.get(tenantId);
    if (cached) return cached;
    const row = await db('tenants').where({ id: tenantId }).first('plan');
    if (!row) return null;
    planCache.set(tenantId, row.plan);
    return row.plan;
  }

  async function consume(tenantId: string): Promise<RateDecision> {
    const plan = await planOf(tenantId);
    if (!plan) throw unauthenticated('tenant no longer exists');
    const limits = RATE_LIMITS[plan];
    const { requestsPerMinute, burstPerSecond } = limits;
    const now = Date.now();
    const [row] = await runPrepared<BudgetRow>(db, 'tenant-request-budget', COUNT_BOTH_WINDOWS, [tenantId, now, now + 1_000, now + 60_000, burstPerSecond]);
    if (!row) throw new Error('the tenant budget statement answered no row');
    const burst: WindowCount = { points: row.burst_points, expireMs: Number(row.burst_ends) };
    const minute: WindowCount = { points: row.minute_points, expireMs: Number(row.minute_ends) };
    if (burst.points > burstPerSecond) {
      // The minute as the row keeps it: uncounted by this request, and none once it has ended.
      const before = minute.expireMs > now ? minute : null;
      known.set(tenantId, { limits, burst, minute: before });
      return decision(false, requestsPerMinute, before, 'burst', burst.expireMs - now);
    }
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
