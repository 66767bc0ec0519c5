import { cycleSeries, missingSensors } from '../../domain/assets/cycles';
import { PredictiveConfig } from '../../domain/assets/predictive-config';
import { cyclesUsed, describeInsufficient, FD001_MODEL, prognose, type CycleRecord, type RulModel } from '../../domain/prognostics';
import type { InsufficientPrognosis, Prognosis } from '../../domain/prognostics';
import { prognoseDegradation, type DegradationInsufficient, type DegradationPrognosis, type ParameterHistory } from '../../domain/prognostics/degradation';
import { FAILURE_HISTORY_WINDOW_DAYS } from '../../domain/prognostics/failure-prior';
import { Queryable } from '../../db/knex';
import { activeBaselines } from '../../db/queries/baselines';
import { typeFailureHistory } from '../../db/queries/failure-history';
import { cycleAverages, recentReadings } from '../../db/queries/readings';
import { bandOf } from './recompute';

/** The model the endpoint and the digital twin use. */
export const PROGNOSTICS_MODEL: RulModel = FD001_MODEL;
/** SPEC.md: failure probability within 30 days. */
export const FAILURE_WINDOW_DAYS = 30;
/** Cycles fetched beyond what the model reads, so a dropped incomplete cycle still leaves a full window. */
const CYCLE_MARGIN = 5;
const SECONDS_PER_DAY = 86_400;

export type AssetPrognosis = Prognosis | InsufficientPrognosis | { readonly status: 'not_configured'; readonly model_version: string };

export interface AssetSeries {
  /** Complete cycles, oldest first (only the newest ones the model can use). */
  readonly series: CycleRecord[];
  /** Model sensors with no mapped parameter or no reading in the window (empty without any data). */
  readonly missing_sensors: string[];
}

/** The asset's readings as the model's cycle series. */
export async function assetCycleSeries(db: Queryable, tenantId: string, assetId: string, config: PredictiveConfig): Promise<AssetSeries> {
  const parameters = Object.keys(config.model_inputs);
  const averages = await cycleAverages(
    db,
    tenantId,
    assetId,
    parameters,
    config.cycle_length_days * SECONDS_PER_DAY,
    // The whole history the features read (the window and the engine's own baseline before it).
    cyclesUsed(PROGNOSTICS_MODEL.feature_spec) + CYCLE_MARGIN,
  );
  return {
    series: cycleSeries(averages, config.model_inputs),
    missing_sensors: missingSensors(averages, config.model_inputs, PROGNOSTICS_MODEL.feature_spec.sensors),
  };
}

export function prognoseSeries(input: AssetSeries, config: PredictiveConfig): AssetPrognosis {
  if (Object.keys(config.model_inputs).length === 0) return { status: 'not_configured', model_version: PROGNOSTICS_MODEL.model_version };
  if (input.missing_sensors.length > 0) {
    // Said before the cycle count: no amount of history helps while a sensor is never fed.
    const insufficient = { reason: 'missing_sensors' as const, sensors: input.missing_sensors };
    return { status: 'insufficient_data', insufficient, message: describeInsufficient(insufficient), model_version: PROGNOSTICS_MODEL.model_version };
  }
  return prognose({
    series: input.series,
    cycle_length_days: config.cycle_length_days,
    horizon_days: FAILURE_WINDOW_DAYS,
    thresholds: config.action_thresholds,
    model: PROGNOSTICS_MODEL,
  });
}

/** Readings per parameter the general model fits (the newest ones). */
export const DEGRADATION_READINGS_PER_PARAMETER = 5_000;

/**
 * The general model for an asset without a turbofan mapping (domain/prognostics/degradation.ts):
 * every parameter with a failure limit in the predictive config or an active baseline (its band's
 * edges), with its newest readings, and the asset type's corrective history as a failure prior.
 */
export async function degradationPrognosis(
  db: Queryable,
  tenantId: string,
  assetId: string,
  config: PredictiveConfig,
  now = new Date(),
): Promise<DegradationPrognosis | DegradationInsufficient> {
  const [histories, failureHistory] = await Promise.all([
    parameterHistories(db, tenantId, assetId, config),
    typeFailureHistory(db, tenantId, config.asset_type, FAILURE_HISTORY_WINDOW_DAYS, now),
  ]);
  return prognoseDegradation(histories, { nowMs: now.getTime(), horizonDays: FAILURE_WINDOW_DAYS, thresholds: config.action_thresholds, failureHistory });
}

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
