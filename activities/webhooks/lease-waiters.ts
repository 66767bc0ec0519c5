/**
 * In-process waiting room in front of the per-webhook lease (webhook_acquire_lease): an attempt
 * that finds its webhook at its in-flight limit waits here and is woken as soon as an attempt of
 * the same webhook in this process releases its lease. Attempts the room does not admit are
 * handed back to Temporal's retry at once.
 *
 * The room is sized by how fast the webhook's receiver answers (Little's law): with `maxInFlight`
 * leases each held `meanHoldMs`, about `maxInFlight * waitMs / meanHoldMs` waiters get a lease
 * within the `waitMs` an attempt may wait. A waiter beyond that would only time out, holding a
 * worker slot meanwhile, so it is not admitted. A fast receiver then takes a burst without retry
 * churn (measured: a fixed room of 64 turned a burst of 1 000 events to one webhook into about
 * 1 140 refused attempts, each a database round trip, a failed local activity and a retry; see
 * docs/PERFORMANCE.md), and a slow one holds fewer slots than a fixed room would. The hold time
 * the room learns is the receiver's time alone (`LeaseHold.receiver`), not the attempt's waits for
 * a pooled database connection around it: with those in it, a burst that saturated the worker's
 * pool shrank the room, the refused attempts came back with more queries, the pool waits grew,
 * and runs of the same burst were bimodal (same document). The next waiter is woken as soon as
 * the lease row is gone, not after the attempt's later bookkeeping.
 *
 * Only the first `maxInFlight` waiters re-check the database every `recheckMs` (for leases
 * released by other worker processes); the others wait to be woken, so a full room does not
 * poll PostgreSQL hundreds of times a second.
 */
import { LRUCache } from 'lru-cache';

export interface LeaseWaitersLimits {
  /** The webhook's lease limit (attempts in flight at once). */
  maxInFlight: number;
  /** How long an attempt may wait here in all. */
  waitMs: number;
  /** How often a waiter near the head re-checks the database. */
  recheckMs: number;
  /** The room's bound, whatever the receiver's speed: the share of the worker's slots one webhook may hold waiting. */
  maxWaiters: number;
  /** The room before any attempt of the webhook has finished in this process (within `maxWaiters`). */
  initialWaiters: number;
}

/** Weight of the newest hold time in the running mean: recent enough to follow a receiver that slows down. */
const HOLD_MEAN_WEIGHT = 0.2;
/** Webhooks whose hold time is remembered; the least recently used go first beyond it. */
const MAX_REMEMBERED_WEBHOOKS = 10_000;

export class LeaseWaiters {
  private readonly queues = new Map<string, Array<() => void>>();
  private readonly meanHoldMs = new LRUCache<string, number>({ max: MAX_REMEMBERED_WEBHOOKS });

  constructor(private readonly limits: LeaseWaitersLimits) {}

  /** How many attempts of `key` may wait here now. */
  capacity(key: string): number {
    const { maxInFlight, waitMs, maxWaiters, initialWaiters } = this.limits;
    const mean = this.meanHoldMs.get(key);
    const room = mean === undefined ? initialWaiters : Math.max(maxInFlight, Math.floor((maxInFlight * waitMs) / Math.max(mean, 1)));
    return Math.min(maxWaiters, room);
  }

  /**
   * Resolves when woken, or after `ms` (after `recheckMs` at most for the first `maxInFlight`
   * waiters, which then re-check the database); answers `undefined` at once (no wait) when the
   * room of `key` is full.
   */
  wait(key: string, ms: number): Promise<void> | undefined {
    const queue = this.queues.get(key) ?? [];
    if (queue.length >= this.capacity(key)) return undefined;
    const timeoutMs = queue.length < this.limits.maxInFlight ? Math.min(ms, this.limits.recheckMs) : ms;
    this.queues.set(key, queue);
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        const index = queue.indexOf(done);
        if (index >= 0) queue.splice(index, 1);
        if (queue.length === 0 && this.queues.get(key) === queue) this.queues.delete(key);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      queue.push(done);
    });
  }

  /** An attempt of `key` released its lease after holding it `heldMs`: learn the time, wake the longest waiting. */
  released(key: string, heldMs: number): void {
    const mean = this.meanHoldMs.get(key);
    this.meanHoldMs.set(key, mean === undefined ? heldMs : mean + HOLD_MEAN_WEIGHT * (heldMs - mean));
    this.queues.get(key)?.[0]?.();
  }

  /** The lease an attempt of `key` was just granted: its receiver's time sizes the room, its release wakes the next waiter. */
  hold(key: string): LeaseHold {
    return new LeaseHold((receiverMs) => this.released(key, receiverMs));
  }

  waiting(key: string): number {
    return this.queues.get(key)?.length ?? 0;
  }
}

/** One granted lease, from the grant to the release of its row. */
export class LeaseHold {
  private receiverMs = 0;
  private done = false;

  constructor(private readonly onRelease: (receiverMs: number) => void) {}

  /** Runs the receiver's part of the attempt (connect, send, answer); only this time is learned. */
  async receiver<T>(call: () => Promise<T>): Promise<T> {
    const started = Date.now();
    try {
      return await call();
    } finally {
      this.receiverMs += Date.now() - started;
    }
  }

  /** The lease row is gone: wakes the next waiter (once; later calls do nothing). */
  release(): void {
    if (this.done) return;
    this.done = true;
    this.onRelease(this.receiverMs);
  }
}
