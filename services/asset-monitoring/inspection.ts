import type { Condition } from '../../domain/assets/health';
import { INSPECTION_COLUMNS, InspectionRow } from '../../db/queries/asset-state';
import { recomputeAssetState } from './recompute';
import { lockAssets, MonitoringUnit } from './unit';

export interface NewInspection {
  performed_at: Date;
  condition: Condition;
  notes: string | null;
  recorded_by: string | null;
}

/** Records a completed inspection and recomputes the asset's health and condition with it. */
export async function recordInspection(unit: MonitoringUnit, assetId: string, inspection: NewInspection, now: Date): Promise<InspectionRow> {
  await lockAssets(unit.tx, unit.scope.tenantId, [assetId]);
  const [row] = await unit.scope.insert('asset_inspections', { asset_id: assetId, ...inspection }, [...INSPECTION_COLUMNS]);
  await recomputeAssetState(unit.tx, unit.scope.tenantId, [assetId], now);
  return row;
}
