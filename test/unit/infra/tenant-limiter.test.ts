import { TenantCapacityError, TenantLimiter } from '../../../infra/tenant-limiter';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const refusal = (reason: TenantCapacityError['reason']) => expect.objectContaining({ name: 'TenantCapacityError', pool: 'test', reason });

describe('TenantLimiter', () => {
  it("bounds one tenant's calls in flight and waiting, refuses the rest at once, and leaves other tenants untouched", async () => {
    const limiter = new TenantLimiter('test', { maxInFlight: 2, maxWaiting: 1, maxWaitMs: 10_000 });
    const release = deferred();
    const started: string[] = [];
    const task = (name: string) => async () => {
      started.push(name);
      await release.promise;
      return 'done';
    };
    const a = [limiter.run('a', task('a1')), limiter.run('a', task('a2')), limiter.run('a', task('a3'))];
    expect(limiter.inFlight('a')).toBe(2);
    expect(limiter.waiting('a')).toBe(1);
    // The fourth of tenant a finds its share and its waiting room full: refused without waiting.
    await expect(limiter.run('a', task('a4'))).rejects.toEqual(refusal('full'));
    expect(started).toEqual(['a1', 'a2']);
    // Tenant b is not behind a: it runs at once.
    expect(await limiter.run('b', async () => 'b ran')).toBe('b ran');
    expect(limiter.totals()).toEqual({ inFlight: 2, waiting: 1 });
    release.resolve();
    expect(await Promise.all(a)).toEqual(['done', 'done', 'done']);
    expect(started).toEqual(['a1', 'a2', 'a3']);
    expect(limiter.refused).toBe(1);
    expect(limiter.totals()).toEqual({ inFlight: 0, waiting: 0 });
  });

  it('refuses a waiter whose wait runs out, and frees the slot when a task throws', async () => {
    jest.useFakeTimers();
    try {
      const limiter = new TenantLimiter('test', { maxInFlight: 1, maxWaiting: 5, maxWaitMs: 1_000 });
      const hold = deferred();
      const first = limiter.run('a', () => hold.promise);
      const second = limiter.run('a', async () => 'never');
      const seen = expect(second).rejects.toEqual(refusal('wait_expired'));
      await jest.advanceTimersByTimeAsync(1_000);
      await seen;
      expect(limiter.waiting('a')).toBe(0);
      hold.resolve();
      await first;
      await expect(limiter.run('a', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
      expect(await limiter.run('a', async () => 1)).toBe(1);
      expect(limiter.inFlight('a')).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });

  it('hands a freed slot to the longest waiter, in order', async () => {
    const limiter = new TenantLimiter('test', { maxInFlight: 1, maxWaiting: 3, maxWaitMs: 10_000 });
    const order: number[] = [];
    const gates = [deferred(), deferred(), deferred()];
    const runs = gates.map((gate, i) =>
      limiter.run('a', async () => {
        order.push(i);
        await gate.promise;
      }),
    );
    gates.forEach((gate) => gate.resolve());
    await Promise.all(runs);
    expect(order).toEqual([0, 1, 2]);
  });
});
