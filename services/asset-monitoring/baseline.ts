import { unresolvedAlerts } from '../../db/queries/alerts';
import { BaselineRow, NewBaseline, replaceActiveBaseline } from '../../db/queries/baselines';
import { effectiveConfig } from '../../db/queries/predictive-configs';
import { applyJudgements, JudgementCounts } from './judge';
import { bandOf } from '../../db/queries/baselines';
import { recomputeAssetState } from './recompute';
import { lockAssets, MonitoringUnit } from './unit';

/**
 * Makes a new baseline the active one of its parameter and judges the parameter's latest reading
 * against it at once (an open alert resolves if the reading is inside the new band; a reading
 * outside raises one), then recomputes health and condition.
 */
export async function setBaseline(
  unit: MonitoringUnit,
  asset: { id: string; type: string },
  baseline: NewBaseline,
  now: Date,
): Promise<{ created: BaselineRow; superseded: BaselineRow | null; alerts: JudgementCounts }> {
  const tenantId = unit.scope.tenantId;
  await lockAssets(unit.tx, tenantId, [asset.id]);
  const { created, superseded } = await replaceActiveBaseline(unit.scope, baseline);
  const series = { asset_id: asset.id, parameter: baseline.parameter };
  const latest = await unit.scope.table('asset_parameter_latest').where(series).first('ts', 'value');
  const [open] = await unresolvedAlerts(unit.tx, tenantId, [series]);
  const config = await effectiveConfig(unit.tx, tenantId, asset.type);
  let alerts: JudgementCounts = { raised: 0, resolved: 0 };
  if (latest) {
    alerts = await applyJudgements(unit, [
      {
        assetId: asset.id,
        parameter: baseline.parameter,
        baseline: created,
        band: bandOf(created, config),
        open: open ?? null,
        readings: [{ t: new Date(latest.ts).getTime(), value: latest.value }],
      },
    ]);
  }
  await recomputeAssetState(unit.tx, tenantId, [asset.id], now);
  return { created, superseded, alerts };
}
