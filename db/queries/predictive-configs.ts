import { defaultPredictiveConfig, PredictiveConfig } from '../../domain/assets/predictive-config';
import type { Knex } from 'knex';
import { Queryable } from '../knex';
import { tenantScope, type TenantScope } from '../tenant-scope';
import { pgArray } from './pg-array';

export interface PredictiveConfigRow extends PredictiveConfig {
  id: string;
  created_at: Date;
  updated_at: Date;
}

export const PREDICTIVE_CONFIG_COLUMNS = [
  'id',
  'asset_type',
  'model_inputs',
  'cycle_length_days',
  'action_thresholds',
  'alert_sensitivity',
  'operational_parameters',
  'failure_limits',
  'created_at',
  'updated_at',
] as const;

export function findPredictiveConfig(db: Queryable, tenantId: string, assetType: string): Promise<PredictiveConfigRow | undefined> {
  return tenantScope(db, tenantId).table('predictive_configs').where({ asset_type: assetType }).first(PREDICTIVE_CONFIG_COLUMNS);
}

/** The tenant's stored configs by asset type. */
export function predictiveConfigListQuery(scope: TenantScope): Knex.QueryBuilder {
  return scope.table('predictive_configs').select(PREDICTIVE_CONFIG_COLUMNS).orderBy('asset_type');
}

/** The effective config of each asset type (stored, or the defaults). */
export async function effectiveConfigs(db: Queryable, tenantId: string, assetTypes: readonly string[]): Promise<Map<string, PredictiveConfig>> {
  const unique = [...new Set(assetTypes)];
  const rows: PredictiveConfigRow[] = unique.length
    ? await tenantScope(db, tenantId)
        .table('predictive_configs')
        .whereRaw('asset_type = any(?::text[])', [pgArray(unique)])
        .select(PREDICTIVE_CONFIG_COLUMNS)
    : [];
  return configsOf(unique, rows);
}

/** The effective config of each asset type from the stored rows of some of them (the others get the defaults). */
export function configsOf(assetTypes: readonly string[], rows: readonly PredictiveConfigRow[]): Map<string, PredictiveConfig> {
  const byType = new Map<string, PredictiveConfig>([...new Set(assetTypes)].map((t) => [t, defaultPredictiveConfig(t)]));
  for (const row of rows) byType.set(row.asset_type, toConfig(row));
  return byType;
}

export async function effectiveConfig(db: Queryable, tenantId: string, assetType: string): Promise<PredictiveConfig> {
  return (await effectiveConfigs(db, tenantId, [assetType])).get(assetType) as PredictiveConfig;
}

export function toConfig(row: PredictiveConfigRow): PredictiveConfig {
  return {
    asset_type: row.asset_type,
    model_inputs: row.model_inputs,
    cycle_length_days: Number(row.cycle_length_days),
    action_thresholds: row.action_thresholds,
    alert_sensitivity: Number(row.alert_sensitivity),
    operational_parameters: row.operational_parameters,
    failure_limits: row.failure_limits ?? {},
  };
}

/** Creates or replaces the config of an asset type; returns the row and whether it was new. */
export async function upsertPredictiveConfig(db: Queryable, tenantId: string, config: PredictiveConfig): Promise<{ row: PredictiveConfigRow; created: boolean }> {
  const { rows } = await db.raw(
    `insert into predictive_configs as c (tenant_id, asset_type, model_inputs, cycle_length_days, action_thresholds, alert_sensitivity, operational_parameters, failure_limits)
     values (?, ?, ?::jsonb, ?, ?::jsonb, ?, ?::jsonb, ?::jsonb)
     on conflict (tenant_id, asset_type) do update
       set model_inputs = excluded.model_inputs, cycle_length_days = excluded.cycle_length_days,
           action_thresholds = excluded.action_thresholds, alert_sensitivity = excluded.alert_sensitivity,
           operational_parameters = excluded.operational_parameters, failure_limits = excluded.failure_limits, updated_at = now()
     returning ${PREDICTIVE_CONFIG_COLUMNS.join(', ')}, (xmax = 0) as created`,
    [
      tenantId,
      config.asset_type,
      JSON.stringify(config.model_inputs),
      config.cycle_length_days,
      JSON.stringify(config.action_thresholds),
      config.alert_sensitivity,
      JSON.stringify(config.operational_parameters),
      JSON.stringify(config.failure_limits),
    ],
  );
  const { created, ...row } = rows[0];
  return { row, created };
}
