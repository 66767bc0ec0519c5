import { cycleSeries, missingSensors } from '../../domain/assets/cycles';
import { PredictiveConfig } from '../../domain/assets/predictive-config';
import { cyclesUsed, describeInsufficient, FD001_MODEL, prognose, type CycleRecord, type RulModel } from '../../domain/prognostics';
import type { InsufficientPrognosis, Prognosis } from '../../domain/prognostics';
import { prognoseDegradation, type DegradationInsufficient, type DegradationPrognosis } from '../../domain/prognostics/degradation';
import { FAILURE_HISTORY_WINDOW_DAYS } from '../../domain/prognostics/failure-prior';
import { Queryable } from '../../db/knex';
import { typeFailureHistory } from '../../db/queries/failure-history';
import { cycleAverages } from '../../db/queries/readings';
import { parameterHistories } from '../../db/queries/parameter-histories';

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
