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

/**
 * Gauges read at scrape time from samples of this process: `samples()` answers each label set with
 * the value its gauges pick from (one sample for unlabelled gauges).
 */
function registerSampledGauges<S>(
  registry: Registry,
  labelNames: readonly string[],
  samples: () => Iterable<[labels: Record<string, string>, sample: S]>,
  gauges: ReadonlyArray<[name: string, help: string, pick: (sample: S) => number]>,
): void {
  for (const [name, help, pick] of gauges) {
    new Gauge({
      name,
      help,
      labelNames,
      registers: [registry],
      collect() {
        this.reset();
        for (const [labels, sample] of samples()) this.set(labels, pick(sample));
      },
    });
  }
}

/** The content sandbox of this process (infra/sandbox/pool.ts): its processes, those at work, tasks waiting, and processes replaced after a failed task since start (a count that grows says content is being refused). */
function registerSandboxGauges(registry: Registry): void {
  registerSampledGauges(
    registry,
    ['pool'],
    () => allSandboxPools().map((pool) => [{ pool: pool.options.name }, pool.stats()] as [Record<string, string>, ReturnType<SandboxPool['stats']>]),
    [
      ['content_sandbox_processes', 'Content sandbox processes alive', (s) => s.processes],
      ['content_sandbox_busy', 'Content sandbox processes running a task', (s) => s.busy],
      ['content_sandbox_queued', 'Content tasks waiting for a sandbox process', (s) => s.queued],
      ['content_sandbox_replaced', 'Content sandbox processes replaced after a failed task since start', (s) => s.replaced],
    ],
  );
}

/**
 * The PostgreSQL connection pool of this process (DATABASE_POOL_MAX): connections in use, idle,
 * the maximum, and acquisitions waiting. In use near the maximum with acquisitions waiting is
 * saturation: queries queue inside the process before PostgreSQL sees them.
 */
function registerPoolGauges(registry: Registry): void {
  registerSampledGauges<PoolUsage>(registry, [], () => [[{}, poolUsage()]], [
    ['db_pool_connections_in_use', 'PostgreSQL connections of this process lent out to queries and transactions', (u) => u.inUse],
    ['db_pool_connections_idle', 'PostgreSQL connections of this process open and idle', (u) => u.idle],
    ['db_pool_connections_max', 'The most PostgreSQL connections this process opens (DATABASE_POOL_MAX)', (u) => u.max],
    ['db_pool_acquires_pending', 'Queries and transactions of this process waiting for a PostgreSQL connection', (u) => u.pending],
  ]);
}

/**
 * The per-tenant limiters of this process (infra/tenant-limiter.ts), summed over tenants by pool
 * (webhook_attempts, llm_calls, smtp_sends, tool_calls): calls running, waiting, and refused since
 * start. Tenant ids stay out of the labels; a refusal count that grows says some tenant is at its share.
 */
function registerTenantLimiterGauges(registry: Registry): void {
  registerSampledGauges<TenantLimiter>(
    registry,
    ['pool'],
    () => allTenantLimiters().map((limiter) => [{ pool: limiter.pool }, limiter] as [Record<string, string>, TenantLimiter]),
    [
      ['tenant_outbound_calls_in_flight', 'Outbound calls running, by shared pool (all tenants)', (l) => l.totals().inFlight],
      ['tenant_outbound_calls_waiting', "Outbound calls waiting for their tenant's share, by shared pool", (l) => l.totals().waiting],
      ['tenant_outbound_calls_refused', "Outbound calls refused since start because their tenant's share was full (retried later), by pool", (l) => l.refused],
    ],
  );
}

/** `Authorization: Bearer <token>` carries `token` (compared in constant time). */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const given = /^Bearer (.+)$/.exec(header ?? '')?.[1] ?? '';
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(token));
}
