/**
 * What an activity's failure may carry into workflow history (issue 23), applied to every activity
 * by a worker interceptor (workers/options.ts):
 *
 * - Programming errors (TypeError, RangeError, ...) and data errors PostgreSQL refuses for good
 *   (SQLSTATE classes 22 data exception, 23 integrity violation, 42 syntax or access) fail at once
 *   (non-retryable): retrying them only repeats the failure, for ever where a policy is unbounded.
 * - Messages are scrubbed: PostgreSQL's text is replaced by its code and constraint (it quotes
 *   values), and every other message goes through the PII redaction (emails, phones, ids, cards),
 *   so no personal data reaches a failure, a history or the Temporal UI.
 * - Failures Temporal itself produced (cancellation and the like) pass through untouched.
 * - Content that cannot be processed (domain/content-error.ts: a malformed or oversized file or
 *   message, or a sandbox bound it broke: infra/sandbox) fails at once as `ContentError`: the same bytes fail the same way at every attempt.
 * - A tenant over its share of a shared outbound pool (infra/tenant-limiter.ts) is retried later,
 *   after a jittered delay that grows with the activity's attempts: at least 2 s, so a local
 *   activity waits on a workflow timer rather than in the worker's slots.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure, TemporalFailure } from '@temporalio/common';
import type { ActivityExecuteInput, ActivityInboundCallsInterceptor, ActivityInterceptorsFactory, Next } from '@temporalio/worker';
import { redactPii } from '../domain/privacy/pii';
import { isPostgresError } from '../infra/error-chain';

import { TenantCapacityError } from '../infra/tenant-limiter';
import { ContentError } from '../domain/content-error';

const PROGRAMMING_ERRORS = new Set(['TypeError', 'ReferenceError', 'SyntaxError', 'RangeError', 'EvalError', 'URIError']);
/** SQLSTATE classes that no retry can fix. */
const PERMANENT_SQL_CLASSES = new Set(['22', '23', '42']);
const MAX_MESSAGE = 500;

/** undici's `fetch failed` is a TypeError around a network error: transient, not a bug. */
function isNetworkTypeError(err: Error): boolean {
  const cause = (err as { cause?: { code?: unknown } }).cause;
  return err.name === 'TypeError' && (err.message === 'fetch failed' || typeof cause?.code === 'string');
}

export function scrubMessage(message: string): string {
  return redactPii(message.slice(0, MAX_MESSAGE * 2)).text.slice(0, MAX_MESSAGE);
}

const TENANT_BUSY_BASE_MS = 4_000;
const TENANT_BUSY_MAX_MS = 60_000;

/** Between half and all of 4 s × 2^(attempt-1), at most 60 s: retries of a busy tenant thin out instead of churning. */
export function tenantBusyDelayMs(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(TENANT_BUSY_MAX_MS, TENANT_BUSY_BASE_MS * 2 ** Math.min(Math.max(attempt - 1, 0), 10));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** The failure an activity error becomes: classified, scrubbed, never carrying the original text. */
export function safeActivityFailure(err: unknown, attempt = 1): unknown {
  if (err instanceof TenantCapacityError) {
    return ApplicationFailure.create({ message: err.message, type: 'TenantBusy', nextRetryDelay: tenantBusyDelayMs(attempt) });
  }
  if (err instanceof ContentError) return ApplicationFailure.nonRetryable(scrubMessage(err.message), 'ContentError');
  if (err instanceof ApplicationFailure) {
    return ApplicationFailure.create({
      message: scrubMessage(err.message),
      type: err.type ?? undefined,
      nonRetryable: err.nonRetryable ?? undefined,
      nextRetryDelay: err.nextRetryDelay ?? undefined,
    });
  }
  if (err instanceof TemporalFailure) return err; // cancellation, timeouts: the SDK's own
  if (!(err instanceof Error)) return ApplicationFailure.retryable(scrubMessage(String(err)), 'Error');
  if (isPostgresError(err)) {
    const constraint = typeof err.constraint === 'string' ? ` (${err.constraint})` : '';
    const message = `PostgreSQL ${err.code}${constraint}`;
    return PERMANENT_SQL_CLASSES.has(err.code.slice(0, 2)) ? ApplicationFailure.nonRetryable(message, 'DataError') : ApplicationFailure.retryable(message, 'DatabaseError');
  }
  if (PROGRAMMING_ERRORS.has(err.name) && !isNetworkTypeError(err)) {
    return ApplicationFailure.nonRetryable(scrubMessage(`${err.name}: ${err.message}`), 'ProgrammingError');
  }
  return ApplicationFailure.retryable(scrubMessage(err.message), err.name || 'Error');
}

class FailureHygiene implements ActivityInboundCallsInterceptor {
  async execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    try {
      return await next(input);
    } catch (err) {
      throw safeActivityFailure(err, Context.current().info.attempt);
    }
  }
}

export const activityFailureHygiene: ActivityInterceptorsFactory = () => ({ inbound: new FailureHygiene() });
