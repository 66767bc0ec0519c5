/**
 * What this process's webhook deliveries did, for Prometheus: attempts by result and circuits
 * opened. The delivery activities count as they go (process-wide, as the tenant limiters are); the
 * worker's registry serves the counts (workers/main.ts). Results are a bounded set, never a
 * webhook, a tenant or a URL; which webhook fails is in the API (GET of a webhook, its deliveries).
 */
import { Counter, type Registry } from 'prom-client';
import { classifyOutcome, type DeliveryPolicy, type HttpAttemptResult } from '../domain/webhooks/outcome';

const attempts = new Counter({
  name: 'webhook_delivery_attempts_total',
  help: 'Webhook delivery attempts sent by this process, by result: success, or the failure (http_status, redirect, timeout, connection_error, refused_destination, gone)',
  labelNames: ['result'] as const,
  registers: [],
});

const circuitsOpened = new Counter({
  name: 'webhook_circuit_breaker_opens_total',
  help: "Endpoint circuit breakers this process's attempts opened (a failure at the threshold, or a failed probe)",
  registers: [],
});

/** One attempt's result, as its delivery record classifies it. */
export function countWebhookAttempt(result: HttpAttemptResult, policy: DeliveryPolicy): void {
  const outcome = classifyOutcome(result, policy);
  attempts.inc({ result: outcome.kind === 'retryable_failure' ? outcome.cause.type : outcome.kind });
}

export function countCircuitOpened(): void {
  circuitsOpened.inc();
}

/** Serves the counts from `registry` (the worker's). */
export function withWebhookMetrics(registry: Registry): Registry {
  registry.registerMetric(attempts);
  registry.registerMetric(circuitsOpened);
  return registry;
}
