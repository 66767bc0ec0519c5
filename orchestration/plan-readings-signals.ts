/**
 * The `readings` signals of condition and predictive plans, coalesced per API process. A readings
 * batch marks its series and returns; a flush, at most every `flushMs`, finds the plans watching
 * each tenant's marked series (one query per tenant, not one per batch) and signals each once. So a
 * gateway's flood costs a plan one signal per flush, not one per batch, and no ingest request waits
 * on the plans' lookup or on Temporal. The signal carries nothing (the plan reads the readings after
 * its own cursor), so coalescing loses nothing; a mark lost with the process, a lookup or a signal
 * that failed, is caught up by the worker's sweep (workers/reconcile.ts).
 *
 * Tenants are adversaries: a flush interleaves the tenants' plans (one of each tenant in turn), so a
 * tenant with many plans does not delay another's signal, and a tenant's series waiting for the
 * next flush are capped (beyond, the sweep catches up).
 */
import type { Logger } from 'pino';
import { errorSummary } from '../infra/error-chain';
import { mapSettled } from './concurrency';

export interface PlanReadingsSignalOptions {
  /** The longest a mark waits for its signal (a flush's period under a steady flood). */
  readonly flushMs: number;
  /** Lookups and signals in flight at once per flush. */
  readonly inFlight: number;
  /** One tenant's series waiting for the next flush; marks beyond are left to the sweep. */
  readonly waitingPerTenant: number;
}

/** Up to four gateway batches of 500 distinct series per tenant wait for one flush. */
export const PLAN_READINGS_SIGNALS: PlanReadingsSignalOptions = { flushMs: 200, inFlight: 8, waitingPerTenant: 2_000 };

/** One series of readings: an asset's parameter. */
export interface SeriesRef {
  readonly asset_id: string;
  readonly parameter: string;
}

/** The live plans of the tenant watching any of these series (services/maintenance-condition.ts). */
export type PlansWatching = (tenantId: string, series: readonly SeriesRef[]) => Promise<string[]>;

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
  private pending = new Map<string, Map<string, SeriesRef>>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  private closed = false;

  constructor(
    private readonly plansWatching: PlansWatching,
    private readonly send: SendReadingsSignal,
    private readonly log: Pick<Logger, 'warn'>,
    private readonly options: PlanReadingsSignalOptions = PLAN_READINGS_SIGNALS,
  ) {}

  /** Marks the series for the next flush; answers how many were newly marked (already waiting ones count once). */
  mark(tenantId: string, series: readonly SeriesRef[]): number {
    if (series.length === 0) return 0;
    let waiting = this.pending.get(tenantId);
    if (!waiting) this.pending.set(tenantId, (waiting = new Map<string, SeriesRef>()));
    let marked = 0;
    let dropped = 0;
    for (const { asset_id, parameter } of series) {
      const key = `${asset_id}\u0000${parameter}`;
      if (waiting.has(key)) continue;
      if (waiting.size >= this.options.waitingPerTenant) dropped++;
      else {
        waiting.set(key, { asset_id, parameter });
        marked++;
      }
    }
    if (dropped > 0) this.log.warn({ tenant_id: tenantId, dropped }, 'too many series waiting for their plans to be told; the catch-up sweep tells them');
    this.schedule();
    return marked;
  }

  /** Signals the plans of what is marked now and waits for it (on shutdown; tests). */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    while (this.flushing) await this.flushing;
    if (this.pending.size === 0) return;
    const marked = this.pending;
    this.pending = new Map();
    this.flushing = this.lookUpAndSignal(marked).finally(() => {
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

  private async lookUpAndSignal(marked: ReadonlyMap<string, ReadonlyMap<string, SeriesRef>>): Promise<void> {
    const tenants = [...marked];
    const lookups = await mapSettled(tenants, this.options.inFlight, ([tenantId, series]) => this.plansWatching(tenantId, [...series.values()]));
    const plans = new Map<string, Set<string>>();
    lookups.forEach((lookup, i) => {
      const tenantId = tenants[i]![0];
      if (lookup.status === 'fulfilled') {
        if (lookup.value.length > 0) plans.set(tenantId, new Set(lookup.value));
      } else this.log.warn({ tenant_id: tenantId, err: errorSummary(lookup.reason) }, 'plans watching new readings not found; the catch-up sweep tells them');
    });
    const batch = interleaveTenants(plans);
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
