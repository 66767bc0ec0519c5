import { pgArray } from './pg-array';
import type { AssetCondition } from '../../domain/assets/condition';
import type { Condition, Health } from '../../domain/assets/health';
import { Queryable } from '../knex';

/** Stored health, condition and inspections of assets (derived state is written, never computed on read). */

export interface HealthRow {
  asset_id: string;
  health_score: number;
  status: Health['status'];
  factors: Health['factors'];
  last_updated: Date;
}

export interface ConditionRow {
  asset_id: string;
  overall_condition: Condition;
  parameters: AssetCondition['parameters'];
  last_inspection_at: Date | null;
  updated_at: Date;
}

export interface InspectionRow {
  id: string;
  asset_id: string;
  performed_at: Date;
  condition: Condition;
  notes: string | null;
  recorded_by: string | null;
  created_at: Date;
}

export const INSPECTION_COLUMNS = ['id', 'asset_id', 'performed_at', 'condition', 'notes', 'recorded_by', 'created_at'] as const;

export function findHealth(db: Queryable, tenantId: string, assetId: string): Promise<HealthRow | undefined> {
  return db('asset_health').where({ tenant_id: tenantId, asset_id: assetId }).first('asset_id', 'health_score', 'status', 'factors', 'last_updated');
}

export function findCondition(db: Queryable, tenantId: string, assetId: string): Promise<ConditionRow | undefined> {
  return db('asset_conditions')
    .where({ tenant_id: tenantId, asset_id: assetId })
    .first('asset_id', 'overall_condition', 'parameters', 'last_inspection_at', 'updated_at');
}

export interface AssetState {
  asset_id: string;
  health: Health;
  condition: AssetCondition;
  last_inspection_at: Date | null;
}

/** Stores the health and condition of several assets: one multi-row upsert per table. */
export async function saveAssetStates(db: Queryable, tenantId: string, states: readonly AssetState[], at: Date): Promise<void> {
  if (states.length === 0) return;
  await db('asset_health')
    .insert(
      states.map((s) => ({
        tenant_id: tenantId,
        asset_id: s.asset_id,
        health_score: s.health.health_score,
        status: s.health.status,
        factors: JSON.stringify(s.health.factors),
        last_updated: at,
      })),
    )
    .onConflict(['tenant_id', 'asset_id'])
    .merge();
  await db('asset_conditions')
    .insert(
      states.map((s) => ({
        tenant_id: tenantId,
        asset_id: s.asset_id,
        overall_condition: s.condition.overall_condition,
        parameters: JSON.stringify(s.condition.parameters),
        last_inspection_at: s.last_inspection_at,
        updated_at: at,
      })),
    )
    .onConflict(['tenant_id', 'asset_id'])
    .merge();
}

/** The newest `perAsset` inspections of each asset (by the time they were performed). */
export async function recentInspections(db: Queryable, tenantId: string, assetIds: readonly string[], perAsset: number): Promise<InspectionRow[]> {
  if (assetIds.length === 0) return [];
  const { rows } = await db.raw(
    `select i.* from unnest(?::uuid[]) as a(asset_id)
       cross join lateral (
         select ${INSPECTION_COLUMNS.join(', ')} from asset_inspections s
          where s.tenant_id = ? and s.asset_id = a.asset_id
          order by s.performed_at desc, s.created_at desc limit ?
       ) i`,
    [pgArray(assetIds), tenantId, perAsset],
  );
  return rows;
}
