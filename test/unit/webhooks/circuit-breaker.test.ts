import { admit, afterAttempt, type BreakerSettings, type BreakerState, closedBreaker, verdictOf } from '../../../domain/webhooks/circuit-breaker';

const settings: BreakerSettings = { failureThreshold: 3, openMs: 30_000, probeTtlMs: 20_000 };
const t0 = new Date('2026-11-27T12:00:00Z');
const at = (ms: number) => new Date(t0.getTime() + ms);

/** Applies verdicts of distinct deliveries in turn, starting from no stored state. */
function afterFailures(n: number, now = t0): BreakerState | null {
  let state: BreakerState | null = null;
  for (let i = 0; i < n; i++) state = afterAttempt(state, `d${i}`, 'failure', now, settings) ?? state;
  return state;
}

describe('circuit breaker', () => {
  it('judges timeouts and 5xx as failures, other answers as successes, connection errors and refused destinations as neither', () => {
    expect(verdictOf({ kind: 'timeout', latencyMs: 10_000 })).toBe('failure');
    expect(verdictOf({ kind: 'timeout', phase: 'connect', latencyMs: 3_000 })).toBe('failure');
    expect(verdictOf({ kind: 'response', status: 503, body: '', latencyMs: 5 })).toBe('failure');
    expect(verdictOf({ kind: 'response', status: 500, body: '', latencyMs: 5 })).toBe('failure');
    expect(verdictOf({ kind: 'response', status: 200, body: '', latencyMs: 5 })).toBe('success');
    expect(verdictOf({ kind: 'response', status: 404, body: '', latencyMs: 5 })).toBe('success');
    expect(verdictOf({ kind: 'connection_error', message: 'ECONNREFUSED', latencyMs: 1 })).toBe('neutral');
    expect(verdictOf({ kind: 'refused_destination', reason: 'private' })).toBe('neutral');
  });

  it('stays closed below the threshold, a success resets the count, and the threshold opens it', () => {
    expect(admit(null, 'd', t0, settings)).toEqual({ kind: 'send' });
    const two = afterFailures(2);
    expect(two).toMatchObject({ state: 'closed', consecutiveFailures: 2 });
    expect(admit(two, 'd', t0, settings)).toEqual({ kind: 'send' });
    expect(afterAttempt(two, 'x', 'success', t0, settings)).toEqual(closedBreaker(t0));
    // A neutral result neither counts nor resets.
    expect(afterAttempt(two, 'x', 'neutral', t0, settings)).toBeNull();
    // A success on a pristine circuit changes nothing (nothing to write).
    expect(afterAttempt(null, 'x', 'success', t0, settings)).toBeNull();
    expect(afterFailures(3)).toEqual({ state: 'open', since: t0, consecutiveFailures: 3, probeDeliveryId: null, probeExpiresAt: null });
  });

  it('defers every attempt while open, then makes the first one after the period the only probe', () => {
    const open = afterFailures(3)!;
    expect(admit(open, 'a', at(10_000), settings)).toEqual({ kind: 'defer', delayMs: 20_000 });
    const probe = admit(open, 'a', at(30_000), settings);
    expect(probe).toEqual({
      kind: 'probe',
      next: { state: 'half_open', since: at(30_000), consecutiveFailures: 3, probeDeliveryId: 'a', probeExpiresAt: at(50_000) },
    });
    const halfOpen = (probe as { next: BreakerState }).next;
    // Another delivery waits for the probe's verdict; the probe's own retry keeps its claim.
    expect(admit(halfOpen, 'b', at(31_000), settings)).toEqual({ kind: 'defer', delayMs: 19_000 });
    expect(admit(halfOpen, 'a', at(31_000), settings)).toMatchObject({ kind: 'probe', next: { probeDeliveryId: 'a' } });
    // A probe lost with its worker: after its claim runs out, another attempt probes.
    expect(admit(halfOpen, 'b', at(50_000), settings)).toMatchObject({ kind: 'probe', next: { probeDeliveryId: 'b' } });
  });

  it("closes on the probe's success and opens again for a full period on its failure", () => {
    const halfOpen = (admit(afterFailures(3)!, 'a', at(30_000), settings) as { next: BreakerState }).next;
    expect(afterAttempt(halfOpen, 'a', 'success', at(31_000), settings)).toEqual(closedBreaker(at(31_000)));
    const reopened = afterAttempt(halfOpen, 'a', 'failure', at(31_000), settings)!;
    expect(reopened).toEqual({ state: 'open', since: at(31_000), consecutiveFailures: 4, probeDeliveryId: null, probeExpiresAt: null });
    expect(admit(reopened, 'b', at(32_000), settings)).toEqual({ kind: 'defer', delayMs: 29_000 });
    // A probe that learnt nothing (connection refused) gives its turn back: open again.
    expect(afterAttempt(halfOpen, 'a', 'neutral', at(31_000), settings)).toMatchObject({ state: 'open', since: at(31_000) });
  });

  it('counts the late failures of attempts sent before it opened without reopening, and closes on their success', () => {
    const open = afterFailures(3)!;
    expect(afterAttempt(open, 'late', 'failure', at(1_000), settings)).toEqual({ ...open, consecutiveFailures: 4 });
    const halfOpen = (admit(open, 'a', at(30_000), settings) as { next: BreakerState }).next;
    expect(afterAttempt(halfOpen, 'late', 'failure', at(30_500), settings)).toEqual({ ...halfOpen, consecutiveFailures: 4 });
    expect(afterAttempt(open, 'late', 'success', at(1_000), settings)).toEqual(closedBreaker(at(1_000)));
  });
});
