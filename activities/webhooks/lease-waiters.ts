/**
 * In-process waiting room in front of the per-webhook lease (webhook_acquire_lease): an attempt
 * that finds its webhook at its in-flight limit waits here, a few at a time per webhook, and is
 * woken as soon as an attempt of the same webhook in this process releases its lease. So a burst
 * to one fast receiver flows without retry churn, while a slow receiver holds at most its limit
 * plus its waiters of the worker's slots; attempts beyond that are handed back to Temporal's retry.
 */
export class LeaseWaiters {
  private readonly queues = new Map<string, Array<() => void>>();

  constructor(private readonly maxWaitersPerKey: number) {}

  /**
   * Resolves when woken or after `ms`; answers `undefined` at once (no wait) when
   * `maxWaitersPerKey` already wait on `key`.
   */
  wait(key: string, ms: number): Promise<void> | undefined {
    const queue = this.queues.get(key) ?? [];
    if (queue.length >= this.maxWaitersPerKey) return undefined;
    this.queues.set(key, queue);
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        const index = queue.indexOf(done);
        if (index >= 0) queue.splice(index, 1);
        if (queue.length === 0 && this.queues.get(key) === queue) this.queues.delete(key);
        resolve();
      };
      const timer = setTimeout(done, ms);
      queue.push(done);
    });
  }

  /** Wakes the longest waiting attempt of `key`, if any. */
  wake(key: string): void {
    this.queues.get(key)?.[0]?.();
  }

  waiting(key: string): number {
    return this.queues.get(key)?.length ?? 0;
  }
}
