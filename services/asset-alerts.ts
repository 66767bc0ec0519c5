/**
 * Baselines of an asset's parameters and the alerts their excursions raise, without HTTP: reads
 * take the tenant's scope, changes a unit of work. api/routes/asset-alerts.ts is the HTTP face.
 */
import { setBaseline } from './asset-monitoring/baseline';
import { lockAssets } from './asset-monitoring/unit';
import { findOr404 } from '../db/find-or-404';
import { AlertRow, findAlert } from '../db/queries/alerts';
import { AlertFilter, alertListQuery, BaselineFilter, baselineListQuery, markAlertAcknowledged } from '../db/queries/asset-alerts';
import { AssetRow, findAsset } from '../db/queries/assets';
import type { BaselineRow } from '../db/queries/baselines';
import { paginate, type Page, type PageRequest } from '../db/pagination';
import { isUuid, type TenantScope } from '../db/tenant-scope';
import type { Unit } from '../db/unit-of-work';
import { notFound } from '../domain/errors';

export type { AlertFilter, BaselineFilter };

export interface BaselineOrder {
  parameter: string;
  baseline_value: number;
  tolerance_percent: number;
  measurement_unit?: string | null;
}

const assetOr404 = (scope: TenantScope, id: string): Promise<AssetRow> => findOr404('asset', id, () => findAsset(scope, id));

/** Alerts of the tenant's assets, newest first. */
export function listAlerts(scope: TenantScope, filter: AlertFilter, page: PageRequest): Promise<Page<AlertRow>> {
  return paginate(alertListQuery(scope, filter), page);
}

/** Alerts of one asset (404 when the asset is not the tenant's). */
export async function listAssetAlerts(scope: TenantScope, assetId: string, filter: AlertFilter, page: PageRequest): Promise<Page<AlertRow>> {
  const asset = await assetOr404(scope, assetId);
  return listAlerts(scope, { ...filter, asset_id: asset.id }, page);
}

/** Baselines of one asset (404 when the asset is not the tenant's). */
export async function listBaselines(scope: TenantScope, assetId: string, filter: BaselineFilter, page: PageRequest): Promise<Page<BaselineRow>> {
  const asset = await assetOr404(scope, assetId);
  return paginate(baselineListQuery(scope, asset.id, filter), page);
}

/** Makes the baseline its parameter's active one (the previous one becomes history) and judges the latest reading against it. */
export async function setAssetBaseline(unit: Unit, assetId: string, userId: string, order: BaselineOrder): Promise<BaselineRow> {
  const asset = await assetOr404(unit.scope, assetId);
  const result = await setBaseline(
    unit,
    asset,
    {
      asset_id: asset.id,
      parameter: order.parameter,
      baseline_value: order.baseline_value,
      tolerance_percent: order.tolerance_percent,
      measurement_unit: order.measurement_unit ?? null,
      created_by: userId,
    },
    new Date(),
  );
  unit.audit({
    action: 'asset.baseline.set',
    resourceType: 'asset',
    resourceId: asset.id,
    details: { baseline_id: result.created.id, parameter: order.parameter, superseded_baseline_id: result.superseded?.id ?? null },
  });
  return result.created;
}

/** Acknowledges an alert of the asset; acknowledging again changes nothing (but is audited). */
export async function acknowledgeAlert(unit: Unit, assetId: string, alertId: string, userId: string, note: string | null): Promise<AlertRow> {
  const asset = await assetOr404(unit.scope, assetId);
  // Readings may be resolving this alert right now: read it under the asset's monitoring lock.
  await lockAssets(unit.tx, unit.scope.tenantId, [asset.id]);
  const existing = isUuid(alertId) ? await findAlert(unit.scope, asset.id, alertId) : undefined;
  if (!existing) throw notFound('alert');
  unit.audit({ action: 'asset.alert.acknowledged', resourceType: 'asset_alert', resourceId: existing.id, details: { asset_id: asset.id } });
  if (existing.acknowledged_at) return existing;
  return markAlertAcknowledged(unit.scope, existing, { userId, note });
}
