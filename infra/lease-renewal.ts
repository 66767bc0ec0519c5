/**
 * Keeps the leases this process holds alive while their work runs, so a lease's TTL can be short:
 * a process that dies (SIGKILL, OOM) stops renewing, and its leases lapse within one TTL instead
 * of the work's worst case. Two kinds use it: webhook leases (activities/webhooks/deliver.ts),
 * held while an attempt runs, and the outbox dispatcher's claim on a batch
 * (orchestration/webhook-dispatch.ts), held while the batch's Temporal calls run.
 *
 * Before, a webhook lease's TTL had to outlast the longest attempt (30 s), and a worker killed
 * mid-burst held its webhook for that long, with the retries of every attempt refused meanwhile
 * queueing behind it; a claim's had to outlast a batch (120 s).
 *
 * One statement per interval renews every lease held (not one per attempt). A webhook lease is a
 * concurrency bound, not a guarantee of delivery: if a renewal is late (the database
 * slow for a whole TTL) a live attempt's lease may lapse and the webhook briefly have one attempt
 * more in flight than its limit; the delivery is still recorded once (its record is per attempt).
 */

/**
 * A fresh lease's life, and the life each renewal gives it: three renewals' worth. What a killed
 * process holds is free again within it; with 6 s, a burst to one webhook with a worker killed a
 * third of the way waited on the dead dispatcher's claim (docs/decisions/leases-renewed-by-their-holder.md).
 * A renewal more than two intervals late (an event loop stalled for 2 s) lets a live lease lapse:
 * the bounds above say what that costs, never a lost or doubled delivery.
 */
export const LEASE_TTL_MS = 3_000;
/** How often the held leases are renewed: one statement a second per process while any is held. */
export const LEASE_RENEW_EVERY_MS = 1_000;

export class LeaseRenewal {
  private readonly held = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private renewing: Promise<void> = Promise.resolve();

  /** `renew(ids)`: extends those leases by a TTL from now (one statement). */
  constructor(
    private readonly renew: (ids: string[]) => Promise<void>,
    private readonly everyMs = LEASE_RENEW_EVERY_MS,
    private readonly onError: (error: Error) => void = () => undefined,
  ) {}

  /** A lease of this process was granted: renewed until `released`. */
  granted(id: string): void {
    this.held.add(id);
    if (!this.timer) {
      this.timer = setInterval(() => this.renewNow(), this.everyMs);
      this.timer.unref();
    }
  }

  released(id: string): void {
    this.held.delete(id);
    if (this.held.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  holding(): number {
    return this.held.size;
  }

  /** Resolves when no renewal is in flight: after releasing all, no renewal runs later. */
  idle(): Promise<void> {
    return this.renewing;
  }

  private renewNow(): void {
    if (this.held.size === 0) return;
    this.renewing = this.renew([...this.held]).catch(this.onError);
  }
}
