/**
 * What one delivery attempt observed at the HTTP boundary, and how the delivery workflow
 * judges it. Pure and free of Node modules: the delivery workflow imports it.
 */

/** Result of one HTTP attempt, as returned by `postSigned` (infra/outbound/safe-http.ts). */
export type HttpAttemptResult =
  | { kind: 'response'; status: number; body: string; latencyMs: number; retryAfter?: string }
  /** `phase`: no connection within the connect deadline, or no complete answer within the attempt's (absent before it was recorded). */
  | { kind: 'timeout'; latencyMs: number; phase?: 'connect' | 'response' }
  | { kind: 'connection_error'; message: string; latencyMs: number }
  | { kind: 'refused_destination'; reason: string };

/** Why an attempt failed (SPEC.md Events 2, DESIGN.md "Failure"). */
export type FailureCause =
  | { type: 'http_status'; status: number; retryAfter?: string }
  | { type: 'redirect'; status: number }
  | { type: 'timeout' }
  | { type: 'connection_error' }
  | { type: 'refused_destination' };

/**
 * How a webhook wants failures treated. SPEC.md's rules are the default (both off): any status
 * >= 400 or a time-out is a failed attempt retried on the fixed schedule, and the webhook is never
 * deactivated automatically. Each field is a per-webhook opt-in.
 */
export interface DeliveryPolicy {
  /** 410 Gone disables the webhook at once, without retrying (Stripe and Svix do this). */
  readonly disableOnGone: boolean;
  /** `Retry-After` on 429/503 moves the next delay within the schedule's bounds (RFC 9110). */
  readonly honourRetryAfter: boolean;
}

export const SPEC_DELIVERY_POLICY: DeliveryPolicy = { disableOnGone: false, honourRetryAfter: false };

export type DeliveryOutcome =
  | { kind: 'success'; status: number }
  /** 410 Gone with `disableOnGone`: the endpoint no longer exists; the webhook is disabled, no retry. */
  | { kind: 'gone'; status: 410 }
  /** Any other failure: retried by the schedule until the attempts run out. */
  | { kind: 'retryable_failure'; cause: FailureCause };

export const GONE_STATUS = 410;

export function classifyOutcome(result: HttpAttemptResult, policy: DeliveryPolicy): DeliveryOutcome {
  switch (result.kind) {
    case 'timeout':
    case 'connection_error':
    case 'refused_destination':
      return { kind: 'retryable_failure', cause: { type: result.kind } };
    case 'response':
      return classifyStatus(result.status, result.retryAfter, policy);
  }
}

function classifyStatus(status: number, retryAfter: string | undefined, policy: DeliveryPolicy): DeliveryOutcome {
  if (status >= 200 && status <= 299) return { kind: 'success', status };
  if (status === GONE_STATUS && policy.disableOnGone) return { kind: 'gone', status: GONE_STATUS };
  // Redirects are never followed (the Location could point anywhere, SSRF), so a 3xx is a failure.
  if (status >= 300 && status <= 399) return { kind: 'retryable_failure', cause: { type: 'redirect', status } };
  // >= 400, and the odd final 1xx, are plain HTTP failures.
  const cause: FailureCause = retryAfter === undefined ? { type: 'http_status', status } : { type: 'http_status', status, retryAfter };
  return { kind: 'retryable_failure', cause };
}
