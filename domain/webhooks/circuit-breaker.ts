/**
 * The circuit breaker of one webhook endpoint, as pure functions over its stored state (the row
 * of `webhook_circuit_breakers`, shared by every worker process):
 *
 * - closed: attempts are sent. `failureThreshold` consecutive failures (a timeout, connect or
 *   response, or a 5xx answer) open it.
 * - open: nothing is sent for `openMs`; attempts are deferred (retried later, not counted as
 *   attempts of the retry schedule). After `openMs` the next attempt becomes the probe.
 * - half_open: only the probe is sent; any other attempt is deferred. The probe's success closes
 *   the circuit, its failure opens it again for `openMs`. A probe whose worker died is replaced
 *   after `probeTtlMs`.
 *
 * Any success closes the circuit, whichever attempt brings it (an attempt sent before the circuit
 * opened proves the endpoint answers as well as a probe does). Connection errors (refused, reset,
 * no route) hold no capacity, since they end at once, so they neither count nor reset the count;
 * neither does a destination refused by the address check, which says nothing about the receiver.
 */
import type { HttpAttemptResult } from './outcome';

export type BreakerStateName = 'closed' | 'open' | 'half_open';

export interface BreakerState {
  state: BreakerStateName;
  /** When the circuit entered `state`. */
  since: Date;
  consecutiveFailures: number;
  /** The delivery whose attempt is the probe (half_open only). */
  probeDeliveryId: string | null;
  /** When the probe is given up for lost and another attempt may probe (half_open only). */
  probeExpiresAt: Date | null;
}

export interface BreakerSettings {
  failureThreshold: number;
  openMs: number;
  /** Longer than an attempt can last, so only a lost probe expires. */
  probeTtlMs: number;
}

/** Five failures in a row open a circuit for 30 s (WEBHOOK_BREAKER_FAILURES, WEBHOOK_BREAKER_OPEN_MS); a probe is lost after 30 s. */
export const DEFAULT_BREAKER: BreakerSettings = { failureThreshold: 5, openMs: 30_000, probeTtlMs: 30_000 };

export type Admission =
  /** Closed: send. */
  | { kind: 'send' }
  /** This attempt is the probe; store `next` (half_open, claimed by this delivery) before sending. */
  | { kind: 'probe'; next: BreakerState }
  /** Do not send; try again after `delayMs` at the earliest. */
  | { kind: 'defer'; delayMs: number };

export type AttemptVerdict = 'success' | 'failure' | 'neutral';

export function closedBreaker(now: Date): BreakerState {
  return { state: 'closed', since: now, consecutiveFailures: 0, probeDeliveryId: null, probeExpiresAt: null };
}

/** What an attempt's result says about the endpoint's health. */
export function verdictOf(result: HttpAttemptResult): AttemptVerdict {
  switch (result.kind) {
    case 'timeout':
      return 'failure';
    case 'response':
      return result.status >= 500 ? 'failure' : 'success';
    case 'connection_error':
    case 'refused_destination':
      return 'neutral';
  }
}

/** Whether an attempt of `deliveryId` may be sent now. */
export function admit(breaker: BreakerState | null, deliveryId: string, now: Date, settings: BreakerSettings): Admission {
  if (!breaker || breaker.state === 'closed') return { kind: 'send' };
  const claim = (): Admission => ({
    kind: 'probe',
    next: { ...breaker, state: 'half_open', since: now, probeDeliveryId: deliveryId, probeExpiresAt: new Date(now.getTime() + settings.probeTtlMs) },
  });
  if (breaker.state === 'open') {
    const remaining = breaker.since.getTime() + settings.openMs - now.getTime();
    return remaining > 0 ? { kind: 'defer', delayMs: remaining } : claim();
  }
  // half_open: the probe's own retry keeps its claim; a lost probe's claim runs out.
  const expires = breaker.probeExpiresAt?.getTime() ?? 0;
  if (breaker.probeDeliveryId === deliveryId || expires <= now.getTime()) return claim();
  return { kind: 'defer', delayMs: expires - now.getTime() };
}

/** The state after an attempt of `deliveryId` ended with `verdict`; null when it does not change. */
export function afterAttempt(breaker: BreakerState | null, deliveryId: string, verdict: AttemptVerdict, now: Date, settings: BreakerSettings): BreakerState | null {
  const current = breaker ?? closedBreaker(now);
  const isProbe = current.state === 'half_open' && current.probeDeliveryId === deliveryId;
  if (verdict === 'success') {
    return current.state === 'closed' && current.consecutiveFailures === 0 ? null : closedBreaker(now);
  }
  if (verdict === 'neutral') {
    // A probe that learnt nothing gives its turn back: the circuit waits another period.
    return isProbe ? open(current, now) : null;
  }
  const failures = current.consecutiveFailures + 1;
  if (isProbe) return open({ ...current, consecutiveFailures: failures }, now);
  if (current.state === 'closed' && failures >= settings.failureThreshold) return open({ ...current, consecutiveFailures: failures }, now);
  // Closed below the threshold, or an attempt sent before the circuit opened: counted only.
  return { ...current, consecutiveFailures: failures };
}

function open(breaker: BreakerState, now: Date): BreakerState {
  return { ...breaker, state: 'open', since: now, probeDeliveryId: null, probeExpiresAt: null };
}
