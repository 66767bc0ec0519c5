// A predictive trigger's forecast for one asset from its parameter's history: the prognosis of the
// general degradation model (domain/prognostics/degradation.ts) with `lead_days` as its horizon.
// Pure, but not exported from index.ts: the activity makes forecasts, and the workflow bundle
// stays free of the prognostics model.
import { DEGRADATION_MODEL_VERSION, projectParameter, type ParameterHistory, type ParameterProjection } from '../prognostics/degradation';
import { MS_PER_HOUR } from './instant';
import type { AssetForecast, PredictiveEvidence } from './predictive';
import type { PredictiveTrigger } from './types';

const MS_PER_DAY = 24 * MS_PER_HOUR;
/** The due instant is searched to the minute. */
const RESOLUTION_MS = 60_000;

/**
 * When the asset falls due: now, when the prognosis gives at least `min_probability` of reaching
 * the limit within `lead_days`; else the first later instant at which the same trend (no new
 * readings) gives it, found by bisection, since that probability only grows as the projected
 * crossing nears (for 0.5 that is the crossing minus lead_days). Null when the trend does not head
 * for the limit (or gives it no sooner than a year on); evidence null when the readings are too few.
 */
export function forecastAsset(trigger: Pick<PredictiveTrigger, 'lead_days' | 'min_probability'>, assetId: string, history: ParameterHistory, nowMs: number): AssetForecast {
  const project = (atMs: number) => projectParameter(history, atMs, trigger.lead_days);
  const now = project(nowMs);
  if ('insufficient' in now) return { asset_id: assetId, due_at: null, evidence: null };
  const evidence = evidenceOf(trigger, assetId, history, now, nowMs);
  const reaches = (atMs: number) => {
    const p = project(atMs);
    return !('insufficient' in p) && p.failure_probability >= trigger.min_probability;
  };
  if (now.failure_probability >= trigger.min_probability) return { asset_id: assetId, due_at: new Date(nowMs).toISOString(), evidence };
  if (now.crossing_at === null) return { asset_id: assetId, due_at: null, evidence };
  const horizonMs = nowMs + 365 * MS_PER_DAY;
  let lo = nowMs;
  let hi = Math.min(Date.parse(now.crossing_at), horizonMs);
  while (!reaches(hi)) {
    if (hi >= horizonMs) return { asset_id: assetId, due_at: null, evidence };
    lo = hi;
    hi = Math.min(hi + trigger.lead_days * MS_PER_DAY, horizonMs);
  }
  while (hi - lo > RESOLUTION_MS) {
    const mid = Math.floor((lo + hi) / 2);
    if (reaches(mid)) hi = mid;
    else lo = mid;
  }
  return { asset_id: assetId, due_at: new Date(hi).toISOString(), evidence };
}

function evidenceOf(
  trigger: Pick<PredictiveTrigger, 'lead_days' | 'min_probability'>,
  assetId: string,
  history: ParameterHistory,
  p: ParameterProjection,
  nowMs: number,
): PredictiveEvidence {
  const used = history.readings.filter((r) => r.t <= nowMs).map((r) => r.t);
  return {
    asset_id: assetId,
    parameter: history.parameter,
    model_version: DEGRADATION_MODEL_VERSION,
    limit: p.limit_kind === 'upper' ? { above: p.limit } : { below: p.limit },
    limit_source: p.limit_source,
    remaining_useful_life: p.rul_days,
    remaining_useful_life_interval: p.rul_interval_days ? [p.rul_interval_days[0], p.rul_interval_days[1]] : null,
    projected_crossing_at: p.crossing_at,
    probability: p.failure_probability,
    lead_days: trigger.lead_days,
    min_probability: trigger.min_probability,
    readings: {
      count: used.length,
      from: used.length ? new Date(Math.min(...used)).toISOString() : null,
      to: used.length ? new Date(Math.max(...used)).toISOString() : null,
    },
    predicted_at: new Date(nowMs).toISOString(),
  };
}
