import { PredictiveConfig } from '../../domain/assets/predictive-config';
import type { ParameterHistory } from '../../domain/prognostics/degradation';
import { Queryable } from '../knex';
import { activeBaselines, bandOf } from './baselines';
import { recentReadings } from './readings';

/** Readings per parameter the general model fits (the newest ones). */
export const DEGRADATION_READINGS_PER_PARAMETER = 5_000;

/**
 * The asset's parameters with a limit (`only`: those of them) and their newest readings (after
 * `since` when given): the limit is the predictive config's failure limit, else the edges of the
 * active baseline's band. What the general model and the predictive maintenance trigger project.
 */
export async function parameterHistories(
  db: Queryable,
  tenantId: string,
  assetId: string,
  config: PredictiveConfig,
  options: { only?: readonly string[]; since?: Date | null } = {},
): Promise<ParameterHistory[]> {
  const bands = new Map((await activeBaselines(db, tenantId, [assetId])).map((b) => [b.parameter, bandOf(b, config)]));
  const configured = new Map(Object.entries(config.failure_limits));
  const parameters = [...new Set([...configured.keys(), ...bands.keys()])].filter((p) => !options.only || options.only.includes(p));
  const sinceMs = options.since ? options.since.getTime() : -Infinity;
  const readings = await recentReadings(
    db,
    tenantId,
    parameters.map((parameter) => ({ asset_id: assetId, parameter })),
    DEGRADATION_READINGS_PER_PARAMETER,
  );
  return parameters.map((parameter) => {
    const limits = configured.get(parameter);
    const band = bands.get(parameter);
    return {
      parameter,
      readings: readings.filter((r) => r.parameter === parameter && new Date(r.ts).getTime() > sinceMs).map((r) => ({ t: new Date(r.ts).getTime(), y: r.value })),
      upper: limits ? (limits.upper ?? null) : (band?.upper ?? null),
      lower: limits ? (limits.lower ?? null) : (band?.lower ?? null),
      limit_source: limits ? ('predictive_config' as const) : ('baseline_band' as const),
    };
  });
}
