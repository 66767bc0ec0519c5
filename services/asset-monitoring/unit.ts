import { Knex } from 'knex';
import { TenantScope } from '../../db/tenant-scope';

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

/** The types of a batch's assets, read in the statement that took their monitoring locks (lockAssetTypes). */
export interface LockedAssets {
  readonly types: ReadonlyMap<string, string>;
  readonly locked: true;
}

/**
 * lockAssets and the read of the assets' types in one statement (issue 19: one round trip fewer per
 * gateway batch). Every given id is locked, as lockAssets does; the types are those of the ids that
 * name an asset of the tenant (`uuids`: the given ids that are uuids). The types may be read from
 * before the lock was granted, as they were when they were read first and locked after.
 */
export async function lockAssetTypes(tx: Knex.Transaction, tenantId: string, assetIds: readonly string[], uuids: readonly string[]): Promise<LockedAssets> {
  const sorted = [...new Set(assetIds)].sort();
  const { rows } = await tx.raw(
    `with locked as (
       select count(pg_advisory_xact_lock(hashtextextended('asset-monitoring:' || ? || ':' || u.a, 6))) as n
         from (select a from unnest(?::text[]) with ordinality as u(a, n) order by n) u
     )
     select a.id, a.type from locked cross join assets a where a.tenant_id = ? and a.id = any(?::uuid[])`,
    [tenantId, sorted, tenantId, [...uuids]],
  );
  return { types: new Map(rows.map((r: { id: string; type: string }) => [r.id, r.type])), locked: true };
}
