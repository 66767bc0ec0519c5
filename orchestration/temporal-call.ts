/**
 * The one way the API calls Temporal: with a deadline (the gateway's TEMPORAL_CALL_DEADLINE_MS,
 * connecting included), and never while a transaction holds row locks (callers commit before or
 * after; a plan's create starts its workflow before its insert commits: docs/decisions/temporal-calls-deadline.md). A Temporal that is down or does not answer in time is a 503
 * DEPENDENCY_UNAVAILABLE, so a slow Temporal costs a request its deadline and nothing more: no
 * pooled connection or row lock waits on it.
 */
import type { Client } from '@temporalio/client';
import { AppError, dependencyUnavailable } from '../domain/errors';
import { errorSummary } from '../infra/error-chain';
import type { TemporalGateway } from '../infra/temporal';

/**
 * Runs `call` within the deadline. `what` says what could not be done ("the plan's workflow could
 * not be signalled"). An AppError thrown by `call` (a domain answer it mapped itself) passes as it
 * is; any other failure becomes a 503.
 */
export async function callTemporal<T>(temporal: TemporalGateway, what: string, call: (client: Client) => Promise<T>): Promise<T> {
  const deadline = Date.now() + temporal.callDeadlineMs;
  try {
    const client = await temporal.client();
    return await client.withDeadline(deadline, () => call(client));
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw dependencyUnavailable('temporal', `${what}: ${errorSummary(err)}`);
  }
}

/** A Temporal read whose answer is optional (next run times, progress): null when Temporal does not answer in time. */
export function readFromTemporal<T>(temporal: TemporalGateway, call: (client: Client) => Promise<T>): Promise<T | null> {
  return callTemporal(temporal, 'read', call).catch(() => null);
}

/** The OpenAPI description of a route's 503 from `callTemporal`, with what it leaves behind. */
export const temporalUnavailableResponse = (outcome: string) => ({
  description: `Temporal unreachable or not answering within the call deadline (TEMPORAL_CALL_DEADLINE_MS, answered within it): ${outcome}`,
});
