import { createHash, timingSafeEqual } from 'node:crypto';
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { poolUsage, type PoolUsage } from '../db/knex';
import { allSandboxPools, type SandboxPool } from './sandbox/pool';
import { allTenantLimiters, type TenantLimiter } from './tenant-limiter';

/**
 * Prometheus metrics of one process (API or worker), on prom-client: the process's own (CPU,
 * memory, event-loop lag, GC, handles) plus what the component registers. Labels are bounded
 * sets (route templates, status codes, error codes), never tenant ids or raw paths: a scrape
 * reveals how the service runs, not whose data it holds.
 */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  registerTenantLimiterGauges(registry);
  registerPoolGauges(registry);
  registerSandboxGauges(registry);
  return registry;
}

/** The content sandbox of this process (infra/sandbox/pool.ts): its processes, those at work, tasks waiting, and processes replaced after a failed task since start (a count that grows says content is being refused). */
function registerSandboxGauges(registry: Registry): void {
  const gauge = (name: string, help: string, read: (stats: ReturnType<SandboxPool['stats']>) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['pool'] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const pool of allSandboxPools()) this.set({ pool: pool.options.name }, read(pool.stats()));
      },
    });
  gauge('content_sandbox_processes', 'Content sandbox processes alive', (s) => s.processes);
  gauge('content_sandbox_busy', 'Content sandbox processes running a task', (s) => s.busy);
  gauge('content_sandbox_queued', 'Content tasks waiting for a sandbox process', (s) => s.queued);
  gauge('content_sandbox_replaced', 'Content sandbox processes replaced after a failed task since start', (s) => s.replaced);
}

/**
 * The PostgreSQL connection pool of this process (DATABASE_POOL_MAX): connections in use, idle,
 * the maximum, and acquisitions waiting. In use near the maximum with acquisitions waiting is
 * saturation: queries queue inside the process before PostgreSQL sees them.
 */
function registerPoolGauges(registry: Registry): void {
  const gauge = (name: string, help: string, read: (usage: PoolUsage) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(read(poolUsage()));
      },
    });
  gauge('db_pool_connections_in_use', 'PostgreSQL connections of this process lent out to queries and transactions', (u) => u.inUse);
  gauge('db_pool_connections_idle', 'PostgreSQL connections of this process open and idle', (u) => u.idle);
  gauge('db_pool_connections_max', 'The most PostgreSQL connections this process opens (DATABASE_POOL_MAX)', (u) => u.max);
  gauge('db_pool_acquires_pending', 'Queries and transactions of this process waiting for a PostgreSQL connection', (u) => u.pending);
}

/**
 * The per-tenant limiters of this process (infra/tenant-limiter.ts), summed over tenants by pool
 * (webhook_attempts, llm_calls, smtp_sends, tool_calls): calls running, waiting, and refused since
 * start. Tenant ids stay out of the labels; a refusal count that grows says some tenant is at its share.
 */
function registerTenantLimiterGauges(registry: Registry): void {
  const gauge = (name: string, help: string, read: (limiter: TenantLimiter) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['pool'] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const limiter of allTenantLimiters()) this.set({ pool: limiter.pool }, read(limiter));
      },
    });
  gauge('tenant_outbound_calls_in_flight', 'Outbound calls running, by shared pool (all tenants)', (l) => l.totals().inFlight);
  gauge('tenant_outbound_calls_waiting', "Outbound calls waiting for their tenant's share, by shared pool", (l) => l.totals().waiting);
  gauge('tenant_outbound_calls_refused', "Outbound calls refused since start because their tenant's share was full (retried later), by pool", (l) => l.refused);
}

/** `Authorization: Bearer <token>` carries `token` (compared in constant time). */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const given = /^Bearer (.+)$/.exec(header ?? '')?.[1] ?? '';
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(token));
}
