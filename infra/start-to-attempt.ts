/**
 * How long this worker process takes from starting a webhook delivery to running its first
 * attempt: the start's round trip, the eager workflow task's way into the SDK, the workflow's
 * activation and the wait for a local-activity slot. None of it is the receiver's or the
 * database's time, and on a responsive worker it is tens of milliseconds. When the process is
 * starved of CPU it grows to seconds, and the SDK's work after the attempt (completing the
 * workflow task) slows alike, so a workflow task can outlive a short task timeout although its
 * attempt took 100 ms: the server then hands the task over and the attempt is sent again
 * (measured: 7 of 20 deliveries to a fast receiver sent twice on a worker under three CPU hogs,
 * each attempt ending within 0.7 s of its start, the start-to-attempt time up to 1.6 s). The
 * dispatcher reads the slowest recent figure to choose a delivery's task timeout
 * (orchestration/webhooks.ts, `deliveryTaskTimeout`).
 *
 * Process-local on purpose: the dispatcher starts deliveries eagerly, so their first workflow task
 * runs on this process's worker, and it is this process's responsiveness that decides whether a
 * short timeout is safe.
 */
import { LRUCache } from 'lru-cache';

/** Starts awaiting their first attempt that are remembered; beyond it the oldest go (their attempt ran elsewhere). */
const MAX_PENDING_STARTS = 10_000;
/** The figures the slowest is taken over: recent enough to follow the process into and out of a starved spell. */
const RECENT_SAMPLES = 32;

export class StartToAttemptTimes {
  private readonly pending = new LRUCache<string, number>({ max: MAX_PENDING_STARTS });
  private readonly samples: number[] = [];
  private next = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** A delivery start is about to be sent (eagerly: its first attempt should run here). */
  started(deliveryId: string): void {
    this.pending.set(deliveryId, this.now());
  }

  /** The delivery's first attempt begins in this process; a delivery not started here is ignored. */
  attemptBegins(deliveryId: string): void {
    const startedAt = this.pending.get(deliveryId);
    if (startedAt === undefined) return;
    this.pending.delete(deliveryId);
    this.samples[this.next] = this.now() - startedAt;
    this.next = (this.next + 1) % RECENT_SAMPLES;
  }

  /** The slowest of the latest figures (undefined: none yet, an idle process). */
  slowestRecentMs(): number | undefined {
    return this.samples.length === 0 ? undefined : Math.max(...this.samples);
  }
}
