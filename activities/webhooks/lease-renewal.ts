/**
 * Keeps this process's webhook leases alive while their attempts run, so a lease's TTL can be
 * short: a worker that dies (SIGKILL, OOM) stops renewing, and its leases free their webhook's
 * slots within one TTL instead of the attempt's worst case. Before, the TTL had to outlast the
 * longest attempt (30 s), and a worker killed mid-burst held its webhook for that long, with the
 * retries of every attempt refused meanwhile queueing behind it.
 *
 * One statement per interval renews every lease the process holds (not one per attempt). The
 * lease is a concurrency bound, not a guarantee of delivery: if a renewal is late (the database
 * slow for a whole TTL) a live attempt's lease may lapse and the webhook briefly have one attempt
 * more in flight than its limit; the delivery is still recorded once (its record is per attempt).
 */

/** A fresh lease's life, and the life each renewal gives it: three renewals' worth. */
export const LEASE_TTL_MS = 6_000;
/** How often the held leases are renewed. */
export const LEASE_RENEW_EVERY_MS = 2_000;

export class LeaseRenewal {
  private readonly held = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  /** `renew(ids)`: extends those leases by a TTL from now (one statement). */
  constructor(
    private readonly renew: (deliveryIds: string[]) => Promise<void>,
    private readonly everyMs = LEASE_RENEW_EVERY_MS,
    private readonly onError: (error: Error) => void = () => undefined,
  ) {}

  /** A lease of this process was granted: renewed until `released`. */
  granted(deliveryId: string): void {
    this.held.add(deliveryId);
    if (!this.timer) {
      this.timer = setInterval(() => void this.renewNow(), this.everyMs);
      this.timer.unref();
    }
  }

  released(deliveryId: string): void {
    this.held.delete(deliveryId);
    if (this.held.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  holding(): number {
    return this.held.size;
  }

  private async renewNow(): Promise<void> {
    if (this.held.size === 0) return;
    await this.renew([...this.held]).catch(this.onError);
  }
}
