import type { Knex } from 'knex';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { outboxBacklog, type OutboxBacklog } from '../db/outbox';
import { BREAKER_STATES, breakerCounts } from '../db/queries/webhook-breakers';
import { createMetricsRegistry } from '../infra/metrics';
import { cachedFor } from '../infra/ttl-cache';

/**
 * What the API measures (served at GET /metrics): every request by method, route template and
 * status; requests in flight; refusals by error code (RATE_LIMITED counts the tenant and login
 * limits); and the outbox backlog the dispatcher has not finished with and the webhooks per
 * circuit-breaker state, read from PostgreSQL at scrape time (at most once per
 * `OUTBOX_READ_EVERY_MS`, however many scrapers).
 */
export interface ApiMetrics {
  readonly registry: Registry;
  readonly requestDuration: Histogram<'method' | 'route' | 'status'>;
  readonly requestsInFlight: Gauge;
  readonly errors: Counter<'error_code'>;
}

const OUTBOX_READ_EVERY_MS = 5_000;

export function createApiMetrics(db: Knex): ApiMetrics {
  const registry = createMetricsRegistry();
  const requestDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'API requests by method, route template (or "unmatched") and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const requestsInFlight = new Gauge({ name: 'http_requests_in_flight', help: 'API requests being answered', registers: [registry] });
  const errors = new Counter({
    name: 'http_errors_total',
    help: 'Error answers by error_code (RATE_LIMITED: tenant rate limit and login limits)',
    labelNames: ['error_code'] as const,
    registers: [registry],
  });
  registerOutboxGauges(registry, db);
  registerBreakerGauge(registry, db);
  return { registry, requestDuration, requestsInFlight, errors };
}

function registerOutboxGauges(registry: Registry, db: Knex): void {
  // One read per period for the five gauges; a failed read leaves them out of the scrape (absent,
  // not zero: an alert on "parked > 0" must not clear because the database is down).
  const backlog = cachedFor(OUTBOX_READ_EVERY_MS, () => outboxBacklog(db, db('outbox_events')).catch(() => null));
  const gauge = (name: string, help: string, pick: (b: OutboxBacklog) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        this.reset();
        const b = await backlog();
        if (b) this.set(pick(b));
      },
    });
  gauge('outbox_events_pending', 'Outbox events not yet dispatched (all tenants)', (b) => b.pending);
  gauge('outbox_events_retrying', 'Outbox events waiting for another dispatch attempt after a failure', (b) => b.retrying);
  gauge('outbox_events_parked', 'Outbox events given up on after repeated dispatch failures: requeue with POST /internal/outbox/{id}/requeue', (b) => b.parked);
  gauge('outbox_oldest_pending_seconds', 'Age of the oldest undispatched outbox event', (b) => b.oldest_pending_seconds);
  gauge('outbox_events_held', 'Undispatched outbox events of suspended tenants, held until the tenant is resumed (not in pending)', (b) => b.held);
}

/**
 * Webhooks per circuit state, over every tenant (the circuit is shared by the worker processes,
 * so PostgreSQL holds it): an alert on `state="open"` names the situation, GET of a webhook names
 * the endpoint. Left out of the scrape when the read fails, like the outbox gauges.
 */
function registerBreakerGauge(registry: Registry, db: Knex): void {
  const counts = cachedFor(OUTBOX_READ_EVERY_MS, () => breakerCounts(db).catch(() => null));
  new Gauge({
    name: 'webhook_circuit_breakers',
    help: 'Webhooks by the state of their endpoint circuit breaker (closed, open, half_open)',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const c = await counts();
      if (c) for (const state of BREAKER_STATES) this.set({ state }, c[state]);
    },
  });
}
