/**
 * Parking: what a dead endpoint's deliveries do while its circuit is open, as pure rules over the
 * stored state (the releaser in orchestration/webhook-release.ts applies them).
 *
 * An attempt that its circuit does not admit, or that finds deliveries of its endpoint parked and
 * not yet released, parks: its delivery is stored (webhook_parked_deliveries) and its workflow
 * waits for a release signal with no timer, so a parked delivery costs no workflow task, timer or
 * activity retry however long the circuit stays open. It keeps its attempt number: a parked
 * delivery has not been attempted.
 *
 * The releaser sends, per endpoint:
 * - while the circuit is open (or half open with a probe out): one delivery, the oldest, once the
 *   circuit lets a probe go and no released delivery is still out; that attempt is the probe;
 * - once the circuit is closed: the oldest deliveries, in event order, keeping at most `window`
 *   released and not yet attempted (the endpoint's pace), and within the tenant's own window;
 * - when the webhook is gone, paused or disabled: every one, so their workflows end (skipped).
 */
import { admit, type BreakerSettings, type BreakerState } from './circuit-breaker';

/** Attempts of one webhook in flight at once, so one slow receiver cannot hold every worker slot: also a recovered endpoint's release window. */
export const MAX_IN_FLIGHT_PER_WEBHOOK = 16;

export interface ParkedEndpoint {
  /** The webhook exists and receives deliveries (active or failing). */
  receiving: boolean;
  /** Its circuit; null: never failed (closed). */
  breaker: BreakerState | null;
  /** Parked deliveries waiting for a release (a release that got no answer for long counts again). */
  waiting: number;
  /** Released and not yet attempted. */
  released: number;
}

export interface ReleaseSettings {
  /** Released and not yet attempted deliveries per endpoint: the endpoint's in-flight limit. */
  endpointWindow: number;
  breaker: BreakerSettings;
}

/** How many of an endpoint's parked deliveries may be released now, before the tenant's window. */
export function releasable(endpoint: ParkedEndpoint, now: Date, settings: ReleaseSettings): number {
  if (endpoint.waiting === 0) return 0;
  if (!endpoint.receiving) return endpoint.waiting;
  const { breaker } = endpoint;
  if (breaker === null || breaker.state === 'closed') return Math.max(0, Math.min(endpoint.waiting, settings.endpointWindow - endpoint.released));
  if (endpoint.released > 0) return 0;
  // No delivery is the probe yet: ask the circuit whether a probe may go now (no delivery id matches '').
  return admit(breaker, '', now, settings.breaker).kind === 'probe' ? 1 : 0;
}

/** Why a delivery was not parked but recorded as failed: its tenant already has its maximum of parked deliveries. */
export const PARKED_BACKLOG_FULL = 'parked_backlog_full';
