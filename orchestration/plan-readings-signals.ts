/**
 * The `readings` signals of condition and predictive plans, coalesced per API process. A readings
 * batch marks the plans watching its series and returns; a flush, at most every `flushMs`, signals
 * each marked plan once. So a gateway's flood costs a plan one signal per flush, not one per batch,
 * and no ingest request waits on Temporal. The signal carries nothing (the plan reads the readings
 * after its own cursor), so coalescing loses nothing; a mark lost with the process is caught up by
 * the worker's sweep (workers/reconcile.ts).
 *
 * Tenants are adversaries: a flush interleaves the tenants' plans (one of each tenant in turn), so a
 * tenant with many plans does not delay another's signal, and a tenant's marks waiting for the next
 * flush are capped (beyond, the sweep catches up).
 */
import type { Logger } from 'pino';
import { errorSummary } from '../infra/error-chain';
import { mapSettled } from './concurrency';

export interface PlanReadingsSignalOptions {
  /** The longest a mark waits for its signal (a flush's period under a steady flood). */
  readonly flushMs: number;
  /** Signals in flight at once per flush. */
  readonly inFlight: number;
  /** One tenant's plans waiting for the next flush; marks beyond are left to the sweep. */
  readonly waitingPerTenant: number;
}

export const PLAN_READINGS_SIGNALS: PlanReadingsSignalOptions = { flushMs: 200, inFlight: 8, waitingPerTenant: 500 };

export type SendReadingsSignal = (tenantId: string, planId: string) => Promise<void>;

/** One tenant's plan ids in turn with the others': [a1, b1, a2, b2, a3, ...]. */
export function interleaveTenants(pending: ReadonlyMap<string, ReadonlySet<string>>): Array<{ tenantId: string; planId: string }> {
  const queues = [...pending].map(([tenantId, plans]) => ({ tenantId, plans: [...plans] }));
  const order: Array<{ tenantId: string; planId: string }> = [];
  for (let round = 0; queues.some((q) => round < q.plans.length); round++) {
    for (const q of queues) if (round < q.plans.length) order.push({ tenantId: q.tenantId, planId: q.plans[round]! });
  }
  return order;
}

export class PlanReadingsSignals {
  private pending = new Map<string, Set<string>>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  private closed = false;

  constructor(
    private readonly send: SendReadingsSignal,
    private readonly log: Pick<Logger, 'warn'>,
    private readonly options: PlanReadingsSignalOptions = PLAN_READINGS_SIGNALS,
  ) {}

  /** Marks the plans for the next flush; answers how many were newly marked (already waiting ones count once). */
  mark(tenantId: string, planIds: readonly string[]): number {
    if (planIds.length === 0) return 0;
    let waiting = this.pending.get(tenantId);
    if (!waiting) this.pending.set(tenantId, (waiting = new Set()));
    let marked = 0;
    let dropped = 0;
    for (const planId of planIds) {
      if (waiting.has(planId)) continue;
      if (waiting.size >= this.options.waitingPerTenant) dropped++;
      else {
        waiting.add(planId);
        marked++;
      }
    }
    if (dropped > 0) this.log.warn({ tenant_id: tenantId, dropped }, 'too many plans waiting for a readings signal; the catch-up sweep tells the others');
    this.schedule();
    return marked;
  }

  /** Signals what is marked now and waits for it (on shutdown; tests). */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    while (this.flushing) await this.flushing;
    if (this.pending.size === 0) return;
    const batch = interleaveTenants(this.pending);
    this.pending = new Map();
    this.flushing = this.signal(batch).finally(() => {
      this.flushing = null;
      this.schedule();
    });
    await this.flushing;
  }

  /** Flushes once more and stops taking marks into a later flush. */
  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(): void {
    if (this.closed || this.timer || this.flushing || this.pending.size === 0) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, this.options.flushMs);
    this.timer.unref();
  }

  private async signal(batch: ReadonlyArray<{ tenantId: string; planId: string }>): Promise<void> {
    const results = await mapSettled(batch, this.options.inFlight, ({ tenantId, planId }) => this.send(tenantId, planId));
    results.forEach((result, i) => {
      if (result.status === 'rejected')
        this.log.warn(
          { tenant_id: batch[i]!.tenantId, plan_id: batch[i]!.planId, err: errorSummary(result.reason) },
          'plan not told of new readings; it reads them with the next batch or the catch-up sweep',
        );
    });
  }
}
