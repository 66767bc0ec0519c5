import { Knex } from 'knex';
import { TenantScope } from '../tenant-scope';

/**
 * The part of a mutation unit (api/mutation.ts) the monitoring pipeline needs: the open
 * transaction, the tenant scope, and the outbox. Events emitted here commit with the change.
 */
export interface MonitoringUnit {
  readonly tx: Knex.Transaction;
  readonly scope: TenantScope;
  emit(type: string, data: Record<string, unknown>, opts?: { occurredAt?: Date; idempotencyKey?: string }): void;
}

export const ALERT_RAISED = 'asset.alert.raised';
export const ALERT_RESOLVED = 'asset.alert.resolved';

/**
 * Serialises the monitoring pipeline per asset (readings, baselines, inspections of one asset are
 * judged one transaction at a time, so two batches cannot both raise the same alert). Locks are
 * taken in id order, before the audit lock that runMutation takes last: no lock-order inversion.
 */
export async function lockAssets(tx: Knex.Transaction, tenantId: string, assetIds: readonly string[]): Promise<void> {
  const sorted = [...new Set(assetIds)].sort();
  if (sorted.length === 0) return;
  await tx.raw(`select pg_advisory_xact_lock(hashtextextended('asset-monitoring:' || ? || ':' || a, 6)) from unnest(?::text[]) with ordinality as u(a, n) order by n`, [
    tenantId,
    sorted,
  ]);
}
