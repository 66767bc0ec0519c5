/**
 * An asset's stored health and condition, its inspections and its readings, without HTTP: reads
 * take the tenant's scope, an inspection a unit of work; all answer rows with dates as Date.
 * api/routes/asset-state.ts is the HTTP face.
 */
import { recordInspection } from './asset-monitoring/inspection';
import { findOr404 } from '../db/find-or-404';
import { AssetRow, findAsset } from '../db/queries/assets';
import { findCondition, findHealth, InspectionRow, ReadingFilter, readingListQuery, ReadingRow } from '../db/queries/asset-state';
import { assetMaintenance } from '../db/queries/maintenance-read';
import { paginate, type Page, type PageRequest } from '../db/pagination';
import type { TenantScope } from '../db/tenant-scope';
import type { Unit } from '../db/unit-of-work';
import type { AssetCondition } from '../domain/assets/condition';
import type { Condition, Health } from '../domain/assets/health';

export type { ReadingFilter, ReadingRow };

export interface AssetHealth extends Health {
  last_updated: Date;
}

export interface AssetConditionView {
  overall_condition: Condition;
  parameters: AssetCondition['parameters'];
  last_inspection_at: Date | null;
  /** When the asset's next inspection is due (inspection plans and open inspection tasks). */
  next_inspection_at: Date | null;
  open_work_orders: number;
  /** null while nothing has been stored for the asset. */
  updated_at: Date | null;
}

export interface InspectionOrder {
  performed_at?: Date;
  condition: Condition;
  notes?: string;
  recorded_by: string | null;
}

const assetOr404 = (scope: TenantScope, id: string): Promise<AssetRow> => findOr404('asset', id, () => findAsset(scope, id));

/** The stored health; an asset with no evidence yet is 100 / excellent with no factors, as of its creation. */
export async function assetHealth(scope: TenantScope, asset: AssetRow): Promise<AssetHealth> {
  const health = await findHealth(scope.db, scope.tenantId, asset.id);
  return health
    ? { health_score: health.health_score, status: health.status, factors: health.factors, last_updated: health.last_updated }
    : { health_score: 100, status: 'excellent', factors: [], last_updated: asset.created_at };
}

/** The stored condition (good with no parameters before any) with the maintenance plans' and tasks' figures read now. */
export async function assetCondition(scope: TenantScope, asset: AssetRow): Promise<AssetConditionView> {
  const [condition, maintenance] = await Promise.all([findCondition(scope.db, scope.tenantId, asset.id), assetMaintenance(scope.db, scope.tenantId, asset.id)]);
  return {
    overall_condition: condition?.overall_condition ?? 'good',
    parameters: condition?.parameters ?? [],
    last_inspection_at: condition?.last_inspection_at ?? null,
    next_inspection_at: maintenance.next_inspection_at,
    open_work_orders: maintenance.open_work_orders,
    updated_at: condition?.updated_at ?? null,
  };
}

/** Records a completed inspection (performed now unless given): condition and health take it in at once. */
export async function recordAssetInspection(unit: Unit, assetId: string, order: InspectionOrder, now: Date): Promise<InspectionRow> {
  const asset = await assetOr404(unit.scope, assetId);
  const inspection = await recordInspection(
    unit,
    asset.id,
    { performed_at: order.performed_at ?? now, condition: order.condition, notes: order.notes ?? null, recorded_by: order.recorded_by },
    now,
  );
  unit.audit({ action: 'asset.inspection.recorded', resourceType: 'asset', resourceId: asset.id, details: { inspection_id: inspection.id, condition: order.condition } });
  return inspection;
}

export async function listAssetReadings(scope: TenantScope, assetId: string, filter: ReadingFilter, page: PageRequest): Promise<Page<ReadingRow>> {
  const asset = await assetOr404(scope, assetId);
  return paginate(readingListQuery(scope, asset.id, filter), page);
}
