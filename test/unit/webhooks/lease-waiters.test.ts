import { LeaseWaiters, LeaseWaitersLimits } from '../../../activities/webhooks/lease-waiters';
import { MAX_WAITERS_PER_WEBHOOK } from '../../../activities/webhooks/deliver';
import { WEBHOOK_WORKER_TUNING } from '../../../workers/options';

const LIMITS: LeaseWaitersLimits = { maxInFlight: 2, waitMs: 2_000, recheckMs: 100, maxWaiters: 50, initialWaiters: 8 };

describe('LeaseWaiters', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('wakes the longest waiting attempt of a webhook first, and only of that webhook', async () => {
    const waiters = new LeaseWaiters(LIMITS);
    const woken: string[] = [];
    void waiters.wait('w1', 1_000)!.then(() => woken.push('first'));
    void waiters.wait('w1', 1_000)!.then(() => woken.push('second'));
    void waiters.wait('w2', 1_000)!.then(() => woken.push('other webhook'));
    waiters.released('w1', 10);
    await Promise.resolve();
    expect(woken).toEqual(['first']);
    expect([waiters.waiting('w1'), waiters.waiting('w2')]).toEqual([1, 1]);
  });

  it('lets a wait end by itself, and refuses waiters beyond the room', async () => {
    const waiters = new LeaseWaiters({ ...LIMITS, initialWaiters: 2, recheckMs: 1_000 });
    const a = waiters.wait('w', 100);
    const b = waiters.wait('w', 500);
    expect(waiters.wait('w', 100)).toBeUndefined();
    jest.advanceTimersByTime(100);
    await a;
    expect(waiters.waiting('w')).toBe(1);
    expect(waiters.wait('w', 100)).toBeDefined();
    jest.advanceTimersByTime(500);
    await b;
    expect(waiters.waiting('w')).toBe(0);
    waiters.released('nobody', 5); // no waiter: nothing to wake
  });

  it('sizes the room by how fast the receiver answers: as many as the leases serve within the wait', () => {
    const waiters = new LeaseWaiters(LIMITS);
    expect(waiters.capacity('fast')).toBe(8); // nothing known yet
    waiters.released('fast', 200); // 2 leases x 2 000 ms / 200 ms
    expect(waiters.capacity('fast')).toBe(20);
    for (let i = 0; i < 30; i++) waiters.released('fast', 5);
    expect(waiters.capacity('fast')).toBe(50); // bounded by maxWaiters
    waiters.released('slow', 10_000); // 2 x 2 000 / 10 000 rounds to 0: the floor is the lease limit
    expect(waiters.capacity('slow')).toBe(2);
    // A receiver that slows down: the running mean follows it, and the room shrinks.
    for (let i = 0; i < 30; i++) waiters.released('fast', 1_000);
    expect(waiters.capacity('fast')).toBe(4);
    expect(Array.from({ length: 5 }, () => waiters.wait('fast', 1_000)).map((w) => w !== undefined)).toEqual([true, true, true, true, false]);
  });

  it('lets only the first maxInFlight waiters re-check the database; the others wait to be woken', async () => {
    const waiters = new LeaseWaiters(LIMITS);
    const ended: number[] = [];
    for (let i = 0; i < 4; i++) void waiters.wait('w', 2_000)!.then(() => ended.push(i));
    jest.advanceTimersByTime(100);
    await Promise.resolve();
    expect(ended).toEqual([0, 1]); // their re-check is due
    waiters.released('w', 10);
    await Promise.resolve();
    expect(ended).toEqual([0, 1, 2]); // woken by the release
    jest.advanceTimersByTime(1_899);
    await Promise.resolve();
    expect(ended).toEqual([0, 1, 2]);
    jest.advanceTimersByTime(1);
    await Promise.resolve();
    expect(ended).toEqual([0, 1, 2, 3]); // its whole wait, with no re-check before
  });

  it("keeps one webhook's waiting room to half of the webhook worker's slots at most, whatever its burst", () => {
    const { maxConcurrentLocalActivityExecutions, maxConcurrentWorkflowTaskExecutions } = WEBHOOK_WORKER_TUNING;
    expect(MAX_WAITERS_PER_WEBHOOK).toBeLessThanOrEqual(Math.min(maxConcurrentLocalActivityExecutions!, maxConcurrentWorkflowTaskExecutions!) / 2);
  });
});

describe('LeaseHold', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it("sizes the room by the receiver's time alone: waits for a pooled connection around it do not shrink it", async () => {
    const waiters = new LeaseWaiters(LIMITS);
    const hold = waiters.hold('w');
    jest.advanceTimersByTime(600); // waiting for a pooled connection before the send
    const answered = hold.receiver(() => new Promise((resolve) => setTimeout(resolve, 200)));
    jest.advanceTimersByTime(200);
    await answered;
    jest.advanceTimersByTime(900); // the closing write waiting for a connection
    hold.release();
    expect(waiters.capacity('w')).toBe(20); // 2 leases x 2 000 ms / 200 ms, not / 1 700 ms
  });

  it('wakes the next waiter once, at the first release', async () => {
    const waiters = new LeaseWaiters(LIMITS);
    const woken: number[] = [];
    for (let i = 0; i < 2; i++) void waiters.wait('w', 1_000)!.then(() => woken.push(i));
    const hold = waiters.hold('w');
    hold.release();
    hold.release(); // the finally block's release after the record's: nothing more
    await Promise.resolve();
    expect(woken).toEqual([0]);
  });
});
