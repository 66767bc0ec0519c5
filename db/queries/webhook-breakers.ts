/**
 * The stored circuit breaker of each webhook (table webhook_circuit_breakers), read by the API
 * (GET of a webhook, metrics) and changed by the delivery activities of every worker process.
 * Every change is a read of the row FOR UPDATE, the pure transition of
 * domain/webhooks/circuit-breaker.ts, and a write, in one short transaction: concurrent attempts
 * of one webhook on several workers serialise on the row.
 */
import {
  admit,
  afterAttempt,
  closedBreaker,
  type Admission,
  type AttemptVerdict,
  type BreakerSettings,
  type BreakerState,
  type BreakerStateName,
} from '../../domain/webhooks/circuit-breaker';
import { Db, Queryable } from '../knex';
import type { TenantScope } from '../tenant-scope';

export interface BreakerRow {
  state: BreakerStateName;
  since: Date;
  consecutive_failures: number;
  probe_delivery_id: string | null;
  probe_expires_at: Date | null;
}

export const BREAKER_STATES: readonly BreakerStateName[] = ['closed', 'open', 'half_open'];

export function breakerOf(row: BreakerRow): BreakerState {
  return {
    state: row.state,
    since: row.since,
    consecutiveFailures: row.consecutive_failures,
    probeDeliveryId: row.probe_delivery_id,
    probeExpiresAt: row.probe_expires_at,
  };
}

function rowOf(breaker: BreakerState): BreakerRow {
  return {
    state: breaker.state,
    since: breaker.since,
    consecutive_failures: breaker.consecutiveFailures,
    probe_delivery_id: breaker.probeDeliveryId,
    probe_expires_at: breaker.probeExpiresAt,
  };
}

export interface BreakerKey {
  tenantId: string;
  webhookId: string;
}

/** The webhook's circuit in the tenant's scope; null when it never failed (closed). */
export async function findBreaker(scope: TenantScope, webhookId: string): Promise<BreakerState | null> {
  const row = await scope.table('webhook_circuit_breakers').where({ webhook_id: webhookId }).first();
  return row ? breakerOf(row) : null;
}

/**
 * Closes the webhook's circuit by hand (the operator's reset): its failures forgotten, a probe's
 * claim dropped; deferred attempts are sent when they next try. Run in the unit's transaction
 * (the row is locked like an attempt's change). Answers the state it had; null: it never failed.
 */
export async function resetBreaker(scope: TenantScope, webhookId: string, now = new Date()): Promise<BreakerState | null> {
  const before = await scope.table('webhook_circuit_breakers').where({ webhook_id: webhookId }).forUpdate().first();
  if (!before) return null;
  await scope
    .table('webhook_circuit_breakers')
    .where({ webhook_id: webhookId })
    .update(rowOf(closedBreaker(now)));
  return breakerOf(before);
}

/** Whether an attempt of `deliveryId` may be sent; claims the probe when it is the one. */
export async function admitThroughBreaker(db: Db, key: BreakerKey, deliveryId: string, settings: BreakerSettings): Promise<Admission> {
  return db.transaction(async (tx) => {
    const row = await tx('webhook_circuit_breakers').where({ tenant_id: key.tenantId, webhook_id: key.webhookId }).forUpdate().first();
    const admission = admit(row ? breakerOf(row) : null, deliveryId, new Date(), settings);
    if (admission.kind === 'probe') await tx('webhook_circuit_breakers').where({ tenant_id: key.tenantId, webhook_id: key.webhookId }).update(rowOf(admission.next));
    return admission;
  });
}

/**
 * Records what an attempt said about the endpoint. `known` is the breaker as the attempt loaded
 * it: a success on a webhook that had no breaker row (never failed) writes nothing. A webhook
 * deleted meanwhile has no row to write (its breaker went with it): nothing is recorded.
 * Answers whether this verdict opened the circuit (from closed, or a probe's from half-open).
 */
export async function recordBreakerVerdict(
  db: Db,
  key: BreakerKey,
  deliveryId: string,
  verdict: AttemptVerdict,
  known: BreakerState | null,
  settings: BreakerSettings,
): Promise<boolean> {
  if (verdict !== 'failure' && known === null) return false;
  return db.transaction(async (tx) => {
    if (verdict === 'failure') {
      await tx.raw(
        `insert into webhook_circuit_breakers (tenant_id, webhook_id)
         select tenant_id, id from webhooks where tenant_id = ? and id = ?
         on conflict do nothing`,
        [key.tenantId, key.webhookId],
      );
    }
    const row = await tx('webhook_circuit_breakers').where({ tenant_id: key.tenantId, webhook_id: key.webhookId }).forUpdate().first();
    if (!row) return false;
    const next = afterAttempt(breakerOf(row), deliveryId, verdict, new Date(), settings);
    if (next) await tx('webhook_circuit_breakers').where({ tenant_id: key.tenantId, webhook_id: key.webhookId }).update(rowOf(next));
    return next?.state === 'open' && row.state !== 'open';
  });
}

/** Webhooks per circuit state, over every tenant (for metrics); closed counts those without a row too. */
export async function breakerCounts(db: Queryable): Promise<Record<BreakerStateName, number>> {
  const { rows } = await db.raw<{ rows: Array<{ state: BreakerStateName; n: number }> }>(
    `select state, count(*)::int as n from webhook_circuit_breakers where state <> 'closed' group by state
     union all
     select 'closed', (select count(*)::int from webhooks) - (select count(*)::int from webhook_circuit_breakers where state <> 'closed')`,
  );
  const counts: Record<BreakerStateName, number> = { closed: 0, open: 0, half_open: 0 };
  for (const { state, n } of rows) counts[state] = n;
  return counts;
}
