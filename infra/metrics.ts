import { createHash, timingSafeEqual } from 'node:crypto';
import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * Prometheus metrics of one process (API or worker), on prom-client: the process's own (CPU,
 * memory, event-loop lag, GC, handles) plus what the component registers. Labels are bounded
 * sets (route templates, status codes, error codes), never tenant ids or raw paths: a scrape
 * reveals how the service runs, not whose data it holds.
 */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** `Authorization: Bearer <token>` carries `token` (compared in constant time). */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const given = /^Bearer (.+)$/.exec(header ?? '')?.[1] ?? '';
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(token));
}
