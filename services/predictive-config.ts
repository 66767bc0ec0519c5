/**
 * Predictive configuration per asset type, without HTTP: read by every reading (alert
 * sensitivity) and every prognosis (model inputs, cycle length, action thresholds), so a change
 * applies from the next one. Reads take the tenant's scope, a change the unit of work.
 * api/routes/predictive-config.ts is the HTTP face.
 */
import { findPredictiveConfig, predictiveConfigListQuery, PredictiveConfigRow, toConfig, upsertPredictiveConfig } from '../db/queries/predictive-configs';
import { paginate, type Page, type PageRequest } from '../db/pagination';
import type { TenantScope } from '../db/tenant-scope';
import type { Unit } from '../db/unit-of-work';
import { defaultPredictiveConfig, PredictiveConfig } from '../domain/assets/predictive-config';
import { notFound } from '../domain/errors';
import { PROGNOSTICS_MODEL } from './asset-monitoring/prognosis';

export type { PredictiveConfigRow };

/** The sensors of the prognostics model in use, which model_inputs map parameters to. */
export const MODEL_SENSORS = PROGNOSTICS_MODEL.feature_spec.sensors;

/** A config as stored, with whether it is (null row: the defaults). */
export interface EffectivePredictiveConfig {
  config: PredictiveConfig;
  row: PredictiveConfigRow | null;
}

/** A stored row as the effective config. */
export const storedConfigOf = (row: PredictiveConfigRow): EffectivePredictiveConfig => ({ config: toConfig(row), row });

/** The config stored for an asset type, or 404 (a type is a name, not an id: no findOr404). */
export async function requireStoredConfig(scope: TenantScope, assetType: string): Promise<PredictiveConfigRow> {
  const row = await findPredictiveConfig(scope.db, scope.tenantId, assetType);
  if (!row) throw notFound('predictive config');
  return row;
}

export function listPredictiveConfigs(scope: TenantScope, page: PageRequest): Promise<Page<PredictiveConfigRow>> {
  return paginate(predictiveConfigListQuery(scope), page);
}

/** The stored config of an asset type, or its defaults. */
export async function effectivePredictiveConfig(scope: TenantScope, assetType: string): Promise<EffectivePredictiveConfig> {
  const row = await findPredictiveConfig(scope.db, scope.tenantId, assetType);
  return row ? storedConfigOf(row) : { config: defaultPredictiveConfig(assetType), row: null };
}

/** Creates or replaces the whole config of an asset type. */
export async function setPredictiveConfig(unit: Unit, assetType: string, config: Omit<PredictiveConfig, 'asset_type'>): Promise<EffectivePredictiveConfig> {
  const { row, created } = await upsertPredictiveConfig(unit.tx, unit.scope.tenantId, { ...config, asset_type: assetType });
  unit.audit({
    action: created ? 'predictive_config.created' : 'predictive_config.updated',
    resourceType: 'predictive_config',
    resourceId: row.id,
    details: { asset_type: assetType },
  });
  return storedConfigOf(row);
}
