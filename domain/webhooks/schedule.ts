/**
 * Retry schedule of a webhook delivery (SPEC.md Events 4): attempt 1 at once, then 30 s, 5 min,
 * 30 min and 2 h; five attempts at most. Pure and free of Node modules: the delivery workflow
 * imports it and gets `now` from its deterministic clock.
 */
import type { DeliveryOutcome, DeliveryPolicy } from './outcome';
import { parseRetryAfter } from './retry-after';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Delay before each attempt, measured from the end of the previous one; index = attempt - 1. */
export const RETRY_DELAYS_MS: readonly number[] = [0, 30 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR];
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length;

/** Statuses whose `Retry-After` is honoured (RFC 9110 gives it that meaning on 503; RFC 6585 on 429). */
const RETRY_AFTER_STATUSES: ReadonlySet<number> = new Set([429, 503]);

export function delayBeforeAttempt(attempt: number): number {
  if (!Number.isInteger(attempt) || attempt < 1 || attempt > MAX_ATTEMPTS) {
    throw new RangeError(`attempt must be an integer from 1 to ${MAX_ATTEMPTS}, got ${attempt}`);
  }
  return RETRY_DELAYS_MS[attempt - 1];
}

/**
 * Range a `Retry-After` may move the delay before `attempt` within: never sooner than the
 * schedule, never later than the schedule's following delay (the last delay, 2 h, for attempt 5).
 * So the receiver can slow us down by at most one step and the whole delivery stays bounded.
 */
export function retryAfterBounds(attempt: number): { minMs: number; maxMs: number } {
  const minMs = delayBeforeAttempt(attempt);
  const maxMs = attempt < MAX_ATTEMPTS ? delayBeforeAttempt(attempt + 1) : minMs;
  return { minMs, maxMs };
}

export type NextAttempt = { kind: 'retry'; attempt: number; delayMs: number; retryAfterHonoured: boolean } | { kind: 'stop'; reason: 'delivered' | 'gone' | 'attempts_exhausted' };

/**
 * What the workflow does after `attempt` ended with `outcome`, at workflow time `now`. A
 * `Retry-After` counts only when the webhook opted in (`policy.honourRetryAfter`).
 */
export function planNextAttempt(attempt: number, outcome: DeliveryOutcome, now: Date, policy: DeliveryPolicy): NextAttempt {
  delayBeforeAttempt(attempt); // validates the attempt number
  if (outcome.kind === 'success') return { kind: 'stop', reason: 'delivered' };
  if (outcome.kind === 'gone') return { kind: 'stop', reason: 'gone' };
  if (attempt === MAX_ATTEMPTS) return { kind: 'stop', reason: 'attempts_exhausted' };

  const next = attempt + 1;
  const scheduled = delayBeforeAttempt(next);
  const requested = policy.honourRetryAfter ? requestedDelay(outcome, now) : undefined;
  if (requested === undefined) return { kind: 'retry', attempt: next, delayMs: scheduled, retryAfterHonoured: false };
  const { minMs, maxMs } = retryAfterBounds(next);
  const delayMs = Math.min(maxMs, Math.max(minMs, requested));
  return { kind: 'retry', attempt: next, delayMs, retryAfterHonoured: delayMs !== scheduled };
}

function requestedDelay(outcome: DeliveryOutcome, now: Date): number | undefined {
  if (outcome.kind !== 'retryable_failure') return undefined;
  const { cause } = outcome;
  if (cause.type !== 'http_status' || cause.retryAfter === undefined) return undefined;
  if (!RETRY_AFTER_STATUSES.has(cause.status)) return undefined;
  return parseRetryAfter(cause.retryAfter, now);
}
