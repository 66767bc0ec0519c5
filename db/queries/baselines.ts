import { toleranceBand, ToleranceBand } from '../../domain/assets/band';
import { PredictiveConfig } from '../../domain/assets/predictive-config';
import { Queryable } from '../knex';
import { TenantScope, tenantScope } from '../tenant-scope';
import { pgArray } from './pg-array';
import { SeriesKey } from './readings';

export interface BaselineRow {
  id: string;
  asset_id: string;
  parameter: string;
  baseline_value: number;
  tolerance_percent: number;
  measurement_unit: string | null;
  active: boolean;
  created_by: string | null;
  created_at: Date;
  superseded_at: Date | null;
}

export const BASELINE_COLUMNS = [
  'id',
  'asset_id',
  'parameter',
  'baseline_value',
  'tolerance_percent',
  'measurement_unit',
  'active',
  'created_by',
  'created_at',
  'superseded_at',
] as const;

/** The tolerance band of a baseline under the asset type's alert sensitivity. */
export function bandOf(baseline: BaselineRow, config: PredictiveConfig): ToleranceBand {
  return toleranceBand(baseline.baseline_value, baseline.tolerance_percent, config.alert_sensitivity);
}

/** Active baselines of the given assets (optionally only the given series). */
export async function activeBaselines(db: Queryable, tenantId: string, assetIds: readonly string[], series?: readonly SeriesKey[]): Promise<BaselineRow[]> {
  if (assetIds.length === 0) return [];
  const q = tenantScope(db, tenantId)
    .table('asset_baselines')
    .where('active', true)
    .whereRaw('asset_id = any(?::uuid[])', [pgArray(assetIds)])
    .select(BASELINE_COLUMNS);
  if (series) {
    q.whereRaw('(asset_id, parameter) in (select * from unnest(?::uuid[], ?::text[]))', [pgArray(series.map((s) => s.asset_id)), pgArray(series.map((s) => s.parameter))]);
  }
  return q;
}

export interface NewBaseline {
  asset_id: string;
  parameter: string;
  baseline_value: number;
  tolerance_percent: number;
  measurement_unit: string | null;
  created_by: string | null;
}

/** Makes `baseline` the active one of its parameter; the previous active one stays as history. */
export async function replaceActiveBaseline(scope: TenantScope, baseline: NewBaseline): Promise<{ created: BaselineRow; superseded: BaselineRow | null }> {
  const [superseded] = await scope
    .table('asset_baselines')
    .where({ asset_id: baseline.asset_id, parameter: baseline.parameter, active: true })
    .update({ active: false, superseded_at: scope.db.fn.now() })
    .returning([...BASELINE_COLUMNS]);
  const [created] = await scope.insert('asset_baselines', { ...baseline, active: true }, [...BASELINE_COLUMNS]);
  return { created, superseded: superseded ?? null };
}
