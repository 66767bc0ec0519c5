import { classifyOutcome, type DeliveryOutcome, type DeliveryPolicy, SPEC_DELIVERY_POLICY } from '../../../domain/webhooks/outcome';
import { parseHttpDate, parseRetryAfter } from '../../../domain/webhooks/retry-after';
import { delayBeforeAttempt, MAX_ATTEMPTS, planNextAttempt, retryAfterBounds } from '../../../domain/webhooks/schedule';

const NOW = new Date('2025-03-01T12:00:00.000Z');
/** Both per-webhook opt-ins on: disable on 410, honour Retry-After. */
const OPTED_IN: DeliveryPolicy = { disableOnGone: true, honourRetryAfter: true };
const SPEC = SPEC_DELIVERY_POLICY;
const httpFailure = (status: number, retryAfter?: string, policy: DeliveryPolicy = OPTED_IN): DeliveryOutcome =>
  classifyOutcome({ kind: 'response', status, body: '', latencyMs: 5, ...(retryAfter ? { retryAfter } : {}) }, policy);
const timeout: DeliveryOutcome = { kind: 'retryable_failure', cause: { type: 'timeout' } };

describe('retry schedule', () => {
  it('is attempt 1 at once, then 30 s, 5 min, 30 min, 2 h', () => {
    expect(MAX_ATTEMPTS).toBe(5);
    expect([1, 2, 3, 4, 5].map(delayBeforeAttempt)).toEqual([0, 30_000, 300_000, 1_800_000, 7_200_000]);
  });

  it.each([0, 6, 1.5, NaN])('refuses attempt number %p', (attempt) => {
    expect(() => delayBeforeAttempt(attempt)).toThrow(RangeError);
  });

  it('retries a failure with the next scheduled delay', () => {
    expect(planNextAttempt(1, timeout, NOW, OPTED_IN)).toEqual({ kind: 'retry', attempt: 2, delayMs: 30_000, retryAfterHonoured: false });
    expect(planNextAttempt(4, httpFailure(500), NOW, OPTED_IN)).toEqual({
      kind: 'retry',
      attempt: 5,
      delayMs: 7_200_000,
      retryAfterHonoured: false,
    });
  });

  it('stops after the fifth failure, on success and (opted in) on 410', () => {
    expect(planNextAttempt(5, timeout, NOW, OPTED_IN)).toEqual({ kind: 'stop', reason: 'attempts_exhausted' });
    expect(planNextAttempt(3, httpFailure(204), NOW, OPTED_IN)).toEqual({ kind: 'stop', reason: 'delivered' });
    expect(planNextAttempt(1, httpFailure(410), NOW, OPTED_IN)).toEqual({ kind: 'stop', reason: 'gone' });
  });
});

describe('SPEC.md default policy (no opt-in)', () => {
  it('410 is an ordinary failure, retried on the schedule', () => {
    expect(httpFailure(410, undefined, SPEC)).toEqual({ kind: 'retryable_failure', cause: { type: 'http_status', status: 410 } });
    expect(planNextAttempt(1, httpFailure(410, undefined, SPEC), NOW, SPEC)).toEqual({ kind: 'retry', attempt: 2, delayMs: 30_000, retryAfterHonoured: false });
  });

  it('Retry-After never moves a delay', () => {
    expect(planNextAttempt(1, httpFailure(429, '120', SPEC), NOW, SPEC)).toEqual({ kind: 'retry', attempt: 2, delayMs: 30_000, retryAfterHonoured: false });
    expect(planNextAttempt(2, httpFailure(503, '3600', SPEC), NOW, SPEC)).toMatchObject({ delayMs: 300_000, retryAfterHonoured: false });
  });
});

describe('Retry-After on 429/503 (opt-in)', () => {
  it('bounds: not sooner than the schedule, not later than the following step (2 h at the end)', () => {
    expect(retryAfterBounds(2)).toEqual({ minMs: 30_000, maxMs: 300_000 });
    expect(retryAfterBounds(4)).toEqual({ minMs: 1_800_000, maxMs: 7_200_000 });
    expect(retryAfterBounds(5)).toEqual({ minMs: 7_200_000, maxMs: 7_200_000 });
  });

  it('waits the requested seconds when they are within the bounds', () => {
    expect(planNextAttempt(1, httpFailure(429, '120'), NOW, OPTED_IN)).toEqual({
      kind: 'retry',
      attempt: 2,
      delayMs: 120_000,
      retryAfterHonoured: true,
    });
  });

  it('waits until the requested HTTP-date', () => {
    expect(planNextAttempt(2, httpFailure(503, 'Sat, 01 Mar 2025 12:20:00 GMT'), NOW, OPTED_IN)).toMatchObject({
      attempt: 3,
      delayMs: 20 * 60_000,
    });
  });

  it('never retries sooner than the schedule', () => {
    expect(planNextAttempt(1, httpFailure(429, '1'), NOW, OPTED_IN)).toMatchObject({ delayMs: 30_000, retryAfterHonoured: false });
    expect(planNextAttempt(1, httpFailure(503, 'Sat, 01 Mar 2025 11:00:00 GMT'), NOW, OPTED_IN)).toMatchObject({ delayMs: 30_000 });
  });

  it('never waits longer than the next-but-one delay, nor 2 h', () => {
    expect(planNextAttempt(1, httpFailure(429, '86400'), NOW, OPTED_IN)).toMatchObject({ delayMs: 300_000, retryAfterHonoured: true });
    expect(planNextAttempt(3, httpFailure(429, '86400'), NOW, OPTED_IN)).toMatchObject({ delayMs: 7_200_000 });
    expect(planNextAttempt(4, httpFailure(503, '86400'), NOW, OPTED_IN)).toMatchObject({ delayMs: 7_200_000, retryAfterHonoured: false });
  });

  it('is ignored on other statuses and when unparseable', () => {
    expect(planNextAttempt(1, httpFailure(500, '120'), NOW, OPTED_IN)).toMatchObject({ delayMs: 30_000 });
    expect(planNextAttempt(1, httpFailure(429, 'soon'), NOW, OPTED_IN)).toMatchObject({ delayMs: 30_000 });
  });
});

describe('parseRetryAfter', () => {
  it('reads delta-seconds', () => {
    expect(parseRetryAfter('0', NOW)).toBe(0);
    expect(parseRetryAfter(' 45 ', NOW)).toBe(45_000);
  });

  it('reads the three HTTP-date formats relative to now', () => {
    expect(parseRetryAfter('Sat, 01 Mar 2025 12:01:30 GMT', NOW)).toBe(90_000);
    expect(parseRetryAfter('Saturday, 01-Mar-25 12:01:30 GMT', NOW)).toBe(90_000);
    expect(parseRetryAfter('Sat Mar  1 12:01:30 2025', NOW)).toBe(90_000);
  });

  it('gives 0 for a date in the past', () => {
    expect(parseRetryAfter('Sun, 06 Nov 1994 08:49:37 GMT', NOW)).toBe(0);
  });

  it('reads a two-digit year more than 50 years ahead as the past century', () => {
    expect(new Date(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT', NOW)!).toISOString()).toBe('1994-11-06T08:49:37.000Z');
    expect(new Date(parseHttpDate('Monday, 06-Nov-45 08:49:37 GMT', NOW)!).toISOString()).toBe('2045-11-06T08:49:37.000Z');
  });

  it.each(['', '-5', '1.5', '2025-03-01T12:01:30Z', 'Sat, 31 Feb 2025 12:00:00 GMT', 'Sat, 01 Mar 2025 25:00:00 GMT', 'Sat, 01 Mar 2025 12:00:00 UTC'])('refuses %p', (value) => {
    expect(parseRetryAfter(value, NOW)).toBeUndefined();
  });
});

describe('classifyOutcome', () => {
  it.each([200, 201, 204, 299])('%i is a success', (status) => {
    expect(httpFailure(status)).toEqual({ kind: 'success', status });
  });

  it('410 is gone when the webhook opted in', () => {
    expect(httpFailure(410)).toEqual({ kind: 'gone', status: 410 });
  });

  it('a 3xx is a redirect failure (not followed)', () => {
    expect(httpFailure(302)).toEqual({ kind: 'retryable_failure', cause: { type: 'redirect', status: 302 } });
  });

  it('>= 400 is an HTTP failure carrying Retry-After', () => {
    expect(httpFailure(400)).toEqual({ kind: 'retryable_failure', cause: { type: 'http_status', status: 400 } });
    expect(httpFailure(503, '30')).toEqual({
      kind: 'retryable_failure',
      cause: { type: 'http_status', status: 503, retryAfter: '30' },
    });
  });

  it('timeouts, connection errors and refused destinations are retryable failures', () => {
    expect(classifyOutcome({ kind: 'timeout', latencyMs: 10_000 }, SPEC)).toEqual(timeout);
    expect(classifyOutcome({ kind: 'connection_error', message: 'ECONNREFUSED', latencyMs: 3 }, SPEC)).toEqual({
      kind: 'retryable_failure',
      cause: { type: 'connection_error' },
    });
    expect(classifyOutcome({ kind: 'refused_destination', reason: 'private' }, SPEC)).toEqual({
      kind: 'retryable_failure',
      cause: { type: 'refused_destination' },
    });
  });
});
