import { toleranceBand, ToleranceBand } from '../../domain/assets/band';
import { computeCondition, MonitoredParameter } from '../../domain/assets/condition';
import { computeHealth, ParameterEvidence } from '../../domain/assets/health';
import { PredictiveConfig } from '../../domain/assets/predictive-config';
import { Queryable } from '../knex';
import { AssetState, recentInspections, saveAssetStates } from '../queries/asset-state';
import { activeBaselines, BaselineRow } from '../queries/baselines';
import { effectiveConfigs } from '../queries/predictive-configs';
import { LatestReading, latestReadings, recentReadings } from '../queries/readings';

/** Readings per parameter the health trend is fitted over. */
export const TREND_WINDOW = 20;

export function bandOf(baseline: BaselineRow, config: PredictiveConfig): ToleranceBand {
  return toleranceBand(baseline.baseline_value, baseline.tolerance_percent, config.alert_sensitivity);
}

/** What a caller already read in the same transaction (the reading pipeline does), so it is not read again. */
export interface KnownAssetData {
  readonly assetTypes: ReadonlyMap<string, string>;
  readonly configs: ReadonlyMap<string, PredictiveConfig>;
  /** Every active baseline of the assets. */
  readonly baselines: readonly BaselineRow[];
  /** The latest reading of every series of the assets, after the change. */
  readonly latest: readonly LatestReading[];
}

async function readAssetData(db: Queryable, tenantId: string, ids: readonly string[]): Promise<KnownAssetData> {
  // One after the other: `db` is usually a transaction, a single connection.
  const assets: { id: string; type: string }[] = await db('assets').where('tenant_id', tenantId).whereRaw('id = any(?::uuid[])', [[...ids]]).select('id', 'type');
  const configs = await effectiveConfigs(db, tenantId, assets.map((a) => a.type));
  const baselines = await activeBaselines(db, tenantId, ids);
  const latest = await latestReadings(db, tenantId, ids);
  return { assetTypes: new Map(assets.map((a) => [a.id, a.type])), configs, baselines, latest };
}

/**
 * Recomputes and stores the health and condition of the given assets from their active baselines,
 * latest and recent readings and last inspections. Called in the transaction of every change that
 * moves them: readings, inspections, baselines.
 */
export async function recomputeAssetState(db: Queryable, tenantId: string, assetIds: readonly string[], now: Date, known?: KnownAssetData): Promise<void> {
  const ids = [...new Set(assetIds)];
  if (ids.length === 0) return;
  const { assetTypes, configs, baselines, latest } = known ?? (await readAssetData(db, tenantId, ids));
  const inspections = await recentInspections(db, tenantId, ids, 2);
  const latestKeys = new Set(latest.map((r) => `${r.asset_id}|${r.parameter}`));
  const judged = baselines.filter((b) => latestKeys.has(`${b.asset_id}|${b.parameter}`));
  const recent = await recentReadings(db, tenantId, judged, TREND_WINDOW);

  const states: AssetState[] = [];
  for (const id of ids) {
    const asset = { id, type: assetTypes.get(id) as string };
    const config = configs.get(asset.type) as PredictiveConfig;
    const bands = new Map(baselines.filter((b) => b.asset_id === asset.id).map((b) => [b.parameter, bandOf(b, config)]));
    const evidence: ParameterEvidence[] = [...bands].flatMap(([parameter, band]) => {
      const points = recent.filter((r) => r.asset_id === asset.id && r.parameter === parameter).map((r) => ({ t: new Date(r.ts).getTime(), y: r.value }));
      return points.length ? [{ parameter, band, recent: points }] : [];
    });
    const assetInspections = inspections
      .filter((i) => i.asset_id === asset.id)
      .map((i) => ({ condition: i.condition, performedAt: new Date(i.performed_at).getTime() }));
    const monitored: MonitoredParameter[] = latest
      .filter((r) => r.asset_id === asset.id)
      .map((r) => ({ parameter: r.parameter, value: r.value, unit: r.unit, measuredAt: new Date(r.ts).getTime(), band: bands.get(r.parameter) ?? null }));

    states.push({
      asset_id: asset.id,
      health: computeHealth({ parameters: evidence, inspections: assetInspections }),
      condition: computeCondition({ parameters: monitored, lastInspection: assetInspections[0] ?? null }),
      last_inspection_at: assetInspections[0] ? new Date(assetInspections[0].performedAt) : null,
    });
  }
  await saveAssetStates(db, tenantId, states, now);
}
