import { cycleSeries } from '../../domain/assets/cycles';
import { PredictiveConfig } from '../../domain/assets/predictive-config';
import { FD001_MODEL, prognose, type CycleRecord, type RulModel } from '../../domain/prognostics';
import type { InsufficientPrognosis, Prognosis } from '../../domain/prognostics';
import { Queryable } from '../knex';
import { cycleAverages } from '../queries/readings';

/** The model the endpoint and the digital twin use. */
export const PROGNOSTICS_MODEL: RulModel = FD001_MODEL;
/** SPEC.md: failure probability within 30 days. */
export const FAILURE_WINDOW_DAYS = 30;
/** Cycles fetched beyond the model's window, so a dropped incomplete cycle still leaves a full window. */
const CYCLE_MARGIN = 5;
const SECONDS_PER_DAY = 86_400;

export type AssetPrognosis = Prognosis | InsufficientPrognosis | { readonly status: 'not_configured'; readonly model_version: string };

/** The asset's readings as the model's cycle series (only the newest cycles the model can use). */
export async function assetCycleSeries(db: Queryable, tenantId: string, assetId: string, config: PredictiveConfig): Promise<CycleRecord[]> {
  const parameters = Object.keys(config.model_inputs);
  const averages = await cycleAverages(
    db,
    tenantId,
    assetId,
    parameters,
    config.cycle_length_days * SECONDS_PER_DAY,
    PROGNOSTICS_MODEL.feature_spec.window + CYCLE_MARGIN,
  );
  return cycleSeries(averages, config.model_inputs);
}

export function prognoseSeries(series: readonly CycleRecord[], config: PredictiveConfig): AssetPrognosis {
  if (Object.keys(config.model_inputs).length === 0) return { status: 'not_configured', model_version: PROGNOSTICS_MODEL.model_version };
  return prognose({
    series,
    cycle_length_days: config.cycle_length_days,
    horizon_days: FAILURE_WINDOW_DAYS,
    thresholds: config.action_thresholds,
    model: PROGNOSTICS_MODEL,
  });
}
