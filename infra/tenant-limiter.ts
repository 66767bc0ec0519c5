/**
 * Per-tenant fairness for a shared outbound pool of one process (webhook attempts, language-model
 * calls, SMTP sends, agent tool calls): at most `maxInFlight` calls of one tenant run at once and
 * at most `maxWaiting` more wait, each for `maxWaitMs` at most. A call beyond both, or one whose
 * wait runs out, is refused with a TenantCapacityError at once, so a tenant whose destination
 * never answers holds a bounded share of the process's slots and every other tenant keeps the
 * rest. What a refusal means is the caller's to decide: an activity is retried later by Temporal
 * (activities/failure-hygiene.ts turns the error into a retryable "TenantBusy" failure), a
 * language-model caller answers with the built-in engine.
 *
 * The bound is per process: N worker replicas give a tenant N times the share, as they give
 * every tenant N times the slots.
 */

export interface TenantLimits {
  /** Calls of one tenant running at once. */
  maxInFlight: number;
  /** Calls of one tenant waiting for a slot. */
  maxWaiting: number;
  /** How long a call may wait for a slot before it is refused. */
  maxWaitMs: number;
}

export class TenantCapacityError extends Error {
  constructor(
    readonly pool: string,
    readonly reason: 'full' | 'wait_expired',
  ) {
    super(`the tenant has its maximum of ${pool} calls in flight on this process`);
    this.name = 'TenantCapacityError';
  }
}

interface TenantState {
  inFlight: number;
  /** Waiters in arrival order; each is handed a slot (true) or told its wait is over (false). */
  waiters: Array<(granted: boolean) => void>;
}

export class TenantLimiter {
  private readonly tenants = new Map<string, TenantState>();
  /** Calls refused since the process started (all tenants): for metrics. */
  refused = 0;

  constructor(
    readonly pool: string,
    private readonly limits: TenantLimits,
  ) {}

  /** Runs `task` within the tenant's share; throws TenantCapacityError when the share and its waiting room are full. */
  async run<T>(tenantId: string, task: () => Promise<T>): Promise<T> {
    await this.acquire(tenantId);
    try {
      return await task();
    } finally {
      this.release(tenantId);
    }
  }

  inFlight(tenantId: string): number {
    return this.tenants.get(tenantId)?.inFlight ?? 0;
  }

  waiting(tenantId: string): number {
    return this.tenants.get(tenantId)?.waiters.length ?? 0;
  }

  /** Totals over every tenant, for metrics. */
  totals(): { inFlight: number; waiting: number } {
    let inFlight = 0;
    let waiting = 0;
    for (const state of this.tenants.values()) {
      inFlight += state.inFlight;
      waiting += state.waiters.length;
    }
    return { inFlight, waiting };
  }

  private async acquire(tenantId: string): Promise<void> {
    const state = this.tenants.get(tenantId) ?? { inFlight: 0, waiters: [] };
    this.tenants.set(tenantId, state);
    if (state.inFlight < this.limits.maxInFlight) {
      state.inFlight += 1;
      return;
    }
    if (state.waiters.length >= this.limits.maxWaiting || this.limits.maxWaitMs <= 0) throw this.refuse(tenantId, 'full');
    const granted = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        const index = state.waiters.indexOf(wake);
        if (index >= 0) state.waiters.splice(index, 1);
        resolve(false);
      }, this.limits.maxWaitMs);
      const wake = (ok: boolean) => {
        clearTimeout(timer);
        resolve(ok);
      };
      state.waiters.push(wake);
    });
    if (!granted) throw this.refuse(tenantId, 'wait_expired');
  }

  private release(tenantId: string): void {
    const state = this.tenants.get(tenantId);
    if (!state) return;
    const next = state.waiters.shift();
    // The slot passes straight to the longest waiter, so `inFlight` only drops when nobody waits.
    if (next) next(true);
    else state.inFlight -= 1;
    if (state.inFlight === 0 && state.waiters.length === 0) this.tenants.delete(tenantId);
  }

  private refuse(tenantId: string, reason: TenantCapacityError['reason']): TenantCapacityError {
    this.refused += 1;
    const state = this.tenants.get(tenantId);
    if (state && state.inFlight === 0 && state.waiters.length === 0) this.tenants.delete(tenantId);
    return new TenantCapacityError(this.pool, reason);
  }
}

/** Every limiter of this process by pool name, so /metrics can report them all. */
const limiters = new Map<string, TenantLimiter>();

/**
 * The process's limiter of `pool`, created with `limits` on first use: every caller of one pool
 * in one process shares one limiter (an API request builds its provider per call, the worker once).
 */
export function tenantLimiter(pool: string, limits: TenantLimits): TenantLimiter {
  const existing = limiters.get(pool);
  if (existing) return existing;
  const created = new TenantLimiter(pool, limits);
  limiters.set(pool, created);
  return created;
}

export function allTenantLimiters(): TenantLimiter[] {
  return [...limiters.values()];
}
