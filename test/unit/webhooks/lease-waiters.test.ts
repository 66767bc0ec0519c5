import { LeaseWaiters } from '../../../activities/webhooks/lease-waiters';

describe('LeaseWaiters', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('wakes the longest waiting attempt of a webhook first, and only of that webhook', async () => {
    const waiters = new LeaseWaiters(10);
    const woken: string[] = [];
    void waiters.wait('w1', 1_000)!.then(() => woken.push('first'));
    void waiters.wait('w1', 1_000)!.then(() => woken.push('second'));
    void waiters.wait('w2', 1_000)!.then(() => woken.push('other webhook'));
    waiters.wake('w1');
    await Promise.resolve();
    expect(woken).toEqual(['first']);
    expect([waiters.waiting('w1'), waiters.waiting('w2')]).toEqual([1, 1]);
  });

  it('lets a wait end by itself, and refuses waiters beyond the cap', async () => {
    const waiters = new LeaseWaiters(2);
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
    waiters.wake('nobody'); // no-op
  });
});
