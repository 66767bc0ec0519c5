import { computeCondition, MonitoredParameter } from '../../domain/assets/condition';
import { computeHealth, ParameterEvidence } from '../../domain/assets/health';
import { PredictiveConfig } from '../../domain/assets/predictive-config';
import { Queryable } from '../../db/knex';
import { AssetState, InspectionRow, recentInspections, saveAssetStates } from '../../db/queries/asset-state';
import { activeBaselines, bandOf, BaselineRow } from '../../db/queries/baselines';
import { effectiveConfigs } from '../../db/queries/predictive-configs';
import { LatestReading, latestReadings } from '../../db/queries/readings';
import { tenantScope } from '../../db/tenant-scope';

/** What a caller already read in the same transaction (the reading pipeline does), so it is not read again. */
export interface KnownAssetData {
  readonly assetTypes: ReadonlyMap<string, string>;
  readonly configs: ReadonlyMap<string, PredictiveConfig>;
  /** Every active baseline of the assets. */
  readonly baselines: readonly BaselineRow[];
  /** The latest reading of every series of the assets, after the change. */
  readonly latest: readonly LatestReading[];
  /** The newest two inspections of each asset, newest first; read here when not given. */
  readonly inspections?: readonly InspectionRow[];
}

async function readAssetData(db: Queryable, tenantId: string, ids: readonly string[]): Promise<KnownAssetData> {
  // One after the other: `db` is usually a transaction, a single connection.
  const assets: { id: string; type: string }[] = await tenantScope(db, tenantId)
    .table('assets')
    .whereRaw('id = any(?::uuid[])', [[...ids]])
    .select('id', 'type');
  const configs = await effectiveConfigs(
    db,
    tenantId,
    assets.map((a) => a.type),
  );
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
  const data = known ?? (await readAssetData(db, tenantId, ids));
  const inspections = data.inspections ?? (await recentInspections(db, tenantId, ids, 2));
  await saveAssetStates(db, tenantId, computeAssetStates(ids, { ...data, inspections }), now);
}

/** The health and condition of each given asset from what was read about it (no I/O). */
export function computeAssetStates(ids: readonly string[], data: KnownAssetData & { readonly inspections: readonly InspectionRow[] }): AssetState[] {
  const { assetTypes, configs, baselines, latest, inspections } = data;
  const states: AssetState[] = [];
  for (const id of ids) {
    const asset = { id, type: assetTypes.get(id) as string };
    const config = configs.get(asset.type) as PredictiveConfig;
    const bands = new Map(baselines.filter((b) => b.asset_id === asset.id).map((b) => [b.parameter, bandOf(b, config)]));
    const assetLatest = latest.filter((r) => r.asset_id === asset.id);
    const evidence: ParameterEvidence[] = assetLatest.flatMap((r) => {
      const band = bands.get(r.parameter);
      if (!band) return [];
      const window = r.recent.length ? r.recent : [[new Date(r.ts).getTime(), r.value] as [number, number]];
      return [{ parameter: r.parameter, band, recent: window.map(([t, y]) => ({ t, y })) }];
    });
    const assetInspections = inspections.filter((i) => i.asset_id === asset.id).map((i) => ({ condition: i.condition, performedAt: new Date(i.performed_at).getTime() }));
    const monitored: MonitoredParameter[] = assetLatest.map((r) => ({
      parameter: r.parameter,
      value: r.value,
      unit: r.unit,
      measuredAt: new Date(r.ts).getTime(),
      band: bands.get(r.parameter) ?? null,
    }));

    states.push({
      asset_id: asset.id,
      health: computeHealth({ parameters: evidence, inspections: assetInspections }),
      condition: computeCondition({ parameters: monitored, lastInspection: assetInspections[0] ?? null }),
      last_inspection_at: assetInspections[0] ? new Date(assetInspections[0].performedAt) : null,
    });
  }
  return states;
}
