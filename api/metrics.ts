import type { Knex } from 'knex';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { outboxBacklog } from '../db/outbox';
import { BREAKER_STATES, breakerCounts } from '../db/queries/webhook-breakers';
import { WEBHOOK_STATUSES, webhookStatusCounts } from '../db/queries/webhooks';
import { parkingTotals } from '../db/queries/webhook-parking';
import { createMetricsRegistry } from '../infra/metrics';
import { cachedFor } from '../infra/ttl-cache';

/**
 * What the API measures (served at GET /metrics): every request by method, route template and
 * status; requests in flight; refusals by error code (RATE_LIMITED counts the tenant and login
 * limits); webhook test calls by result; and the outbox backlog the dispatcher has not finished
 * with, the webhooks per circuit-breaker state and per status, and the webhook deliveries parked
 * behind open circuits, read from PostgreSQL at scrape time (at most once per
 * `OUTBOX_READ_EVERY_MS`, however many scrapers).
 */
export interface ApiMetrics {
  readonly registry: Registry;
  readonly requestDuration: Histogram<'method' | 'route' | 'status'>;
  readonly requestsInFlight: Gauge;
  readonly errors: Counter<'error_code'>;
  /** Webhook test calls by result (the operator's view of them: they are not in the audit trail). */
  readonly webhookTests: Counter<'result'>;
}

const OUTBOX_READ_EVERY_MS = 5_000;

/** `maxParkedPerTenant`: the bound on a tenant's parked webhook deliveries (WEBHOOK_PARKED_PER_TENANT). */
export function createApiMetrics(db: Knex, maxParkedPerTenant: number): ApiMetrics {
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
  const webhookTests = new Counter({
    name: 'webhook_tests_total',
    help: 'Webhook test calls by result: success (2xx), http_error, timeout, connection_error, refused_destination',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  registerOutboxGauges(registry, db);
  registerBreakerGauge(registry, db);
  registerWebhookStatusGauge(registry, db);
  registerParkingGauges(registry, db, maxParkedPerTenant);
  return { registry, requestDuration, requestsInFlight, errors, webhookTests };
}

function registerOutboxGauges(registry: Registry, db: Knex): void {
  // One read per period for the five gauges; a failed read leaves them out of the scrape (absent,
  // not zero: an alert on "parked > 0" must not clear because the database is down).
  registerReadGauges(registry, () => outboxBacklog(db, db('outbox_events')), [
    ['outbox_events_pending', 'Outbox events not yet dispatched (all tenants)', (b) => b.pending],
    ['outbox_events_retrying', 'Outbox events waiting for another dispatch attempt after a failure', (b) => b.retrying],
    ['outbox_events_parked', 'Outbox events given up on after repeated dispatch failures: requeue with POST /internal/outbox/{id}/requeue', (b) => b.parked],
    ['outbox_oldest_pending_seconds', 'Age of the oldest undispatched outbox event', (b) => b.oldest_pending_seconds],
    ['outbox_events_held', 'Undispatched outbox events of suspended tenants, held until the tenant is resumed (not in pending)', (b) => b.held],
  ]);
}

/** Gauges that share one read of PostgreSQL, at most once per period; all left out of the scrape when it fails. */
function registerReadGauges<T>(registry: Registry, read: () => Promise<T>, gauges: ReadonlyArray<[name: string, help: string, pick: (value: T) => number]>): void {
  const cached = cachedFor(OUTBOX_READ_EVERY_MS, () => read().catch(() => null));
  for (const [name, help, pick] of gauges) {
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        this.reset();
        const value = await cached();
        if (value !== null) this.set(pick(value));
      },
    });
  }
}

/**
 * Webhooks per circuit state, over every tenant (the circuit is shared by the worker processes,
 * so PostgreSQL holds it): an alert on `state="open"` names the situation, GET of a webhook names
 * the endpoint. Left out of the scrape when the read fails, like the outbox gauges.
 */
function registerBreakerGauge(registry: Registry, db: Knex): void {
  registerCountGauge(registry, 'webhook_circuit_breakers', 'Webhooks by the state of their endpoint circuit breaker (closed, open, half_open)', 'state', BREAKER_STATES, () =>
    breakerCounts(db),
  );
}

/** A count per label value, from one read of PostgreSQL at most every period; left out of the scrape when the read fails. */
function registerCountGauge<V extends string>(registry: Registry, name: string, help: string, label: string, values: readonly V[], read: () => Promise<Record<V, number>>): void {
  const counts = cachedFor(OUTBOX_READ_EVERY_MS, () => read().catch(() => null));
  new Gauge({
    name,
    help,
    labelNames: [label],
    registers: [registry],
    async collect() {
      this.reset();
      const c = await counts();
      if (c) for (const value of values) this.set({ [label]: value }, c[value]);
    },
  });
}

/**
 * Webhooks per status over every tenant: `failing` ones exhausted a delivery's attempts (their
 * owners were told), `disabled` ones stopped receiving. Left out of the scrape when the read fails.
 */
function registerWebhookStatusGauge(registry: Registry, db: Knex): void {
  registerCountGauge(registry, 'webhooks_by_status', 'Webhooks by status (active, paused, failing, disabled), all tenants', 'status', WEBHOOK_STATUSES, () =>
    webhookStatusCounts(db),
  );
}

/**
 * Webhook deliveries parked behind open circuits (domain/webhooks/parking.ts), over every tenant:
 * how many, how long the oldest has waited, and how many tenants are at their bound (their next
 * deliveries to a dead endpoint are recorded failed instead of parked). No tenant's ids in labels;
 * GET of a webhook names its own count. Left out of the scrape when the read fails.
 */
function registerParkingGauges(registry: Registry, db: Knex, maxParkedPerTenant: number): void {
  registerReadGauges(registry, () => parkingTotals(db, maxParkedPerTenant), [
    ['webhook_parked_deliveries', 'Webhook deliveries parked while their endpoint circuit is open, waiting for a successful probe (all tenants)', (t) => t.parked],
    ['webhook_parked_oldest_seconds', 'How long the oldest parked webhook delivery has waited (0: none parked)', (t) => t.oldestSeconds],
    ['webhook_parked_tenants_at_limit', 'Tenants whose parked webhook deliveries reached WEBHOOK_PARKED_PER_TENANT', (t) => t.tenantsAtLimit],
  ]);
}
