// The predictive trigger's state in the plan's workflow: per asset, the instant its prognosis
// makes it due (a durable timer waits for the earliest), and whether its work order was made.
// Pure and JSON-only (it runs in the workflow and travels through continueAsNew); the forecasts
// themselves are made by an activity (predictive-forecast.ts, which needs the readings).
//
// - A forecast with a due instant at or before now fires: one work order, due `lead_days` before
//   the projected crossing (never before the decision), with the forecast as its evidence.
// - Fired: nothing fires again until re-armed: by a completed work order (the readings before the
//   completion no longer count: the repair changed the asset) or by forecasts that have not seen the
//   parameter heading for its limit for `lead_days` on end. The persistence is the predictive
//   hysteresis: a noisy trend that flattens for one forecast and turns up again the next is one
//   excursion, not a work order (or a skipped due) per flip.
import type { IsoTimestamp, PredictiveTrigger } from './types';
import { MS_PER_HOUR } from './instant';

const MS_PER_DAY = 24 * MS_PER_HOUR;

/** What a predictive decision saw (plan history entry, task and task.created `evidence`). */
export interface PredictiveEvidence {
  asset_id: string;
  parameter: string;
  model_version: string;
  /** The limit the prognosis projects to (as a condition's: above or below) and where it comes from. */
  limit: { above: number } | { below: number };
  limit_source: 'predictive_config' | 'baseline_band';
  /** Days until the trend reaches the limit, and its 90 % interval (upper end null: unbounded). */
  remaining_useful_life: number | null;
  remaining_useful_life_interval: [number, number | null] | null;
  projected_crossing_at: IsoTimestamp | null;
  /** Probability of reaching the limit within lead_days, as the prognosis gave it at `predicted_at`. */
  probability: number;
  lead_days: number;
  min_probability: number;
  /** The readings the prognosis was fitted on. */
  readings: { count: number; from: IsoTimestamp | null; to: IsoTimestamp | null };
  predicted_at: IsoTimestamp;
}

/** One asset's forecast: when it falls due (null: not heading for its limit, or too few readings). */
export interface AssetForecast {
  asset_id: string;
  due_at: IsoTimestamp | null;
  /** Null when the readings were too few to fit a trend on. */
  evidence: PredictiveEvidence | null;
}

export interface AssetPredictiveState {
  /** When the asset falls due by its latest forecast (null while fired or not heading for its limit). */
  due_at: IsoTimestamp | null;
  fired: boolean;
  /** The latest forecast (shown by the preview). */
  evidence: PredictiveEvidence | null;
  /** Readings before this instant are not used (a completed work order re-armed the asset). */
  since: IsoTimestamp | null;
  /** Fired, and every forecast since this instant saw no trend toward the limit (absent: none such). */
  away_since?: IsoTimestamp | null;
}

export interface PredictiveState {
  parameter: string;
  /** By asset id (a plain object: it travels through continueAsNew). */
  assets: Record<string, AssetPredictiveState>;
}

export function initialPredictiveState(trigger: Pick<PredictiveTrigger, 'parameter'>): PredictiveState {
  return { parameter: trigger.parameter, assets: {} };
}

/** A changed parameter starts afresh; a changed lead or probability keeps the state (the next forecast re-judges it). */
export function predictiveAfterTriggerChange(state: PredictiveState | null, next: PredictiveTrigger): PredictiveState {
  return state !== null && state.parameter === next.parameter ? state : initialPredictiveState(next);
}

const EMPTY: AssetPredictiveState = { due_at: null, fired: false, evidence: null, since: null };

/** When the work order is due: lead_days before the projected crossing, never before the decision. */
export function workOrderDueAt(evidence: PredictiveEvidence, decidedAt: Date): IsoTimestamp {
  const crossing = evidence.projected_crossing_at === null ? decidedAt.getTime() : Date.parse(evidence.projected_crossing_at);
  return new Date(Math.max(decidedAt.getTime(), crossing - evidence.lead_days * MS_PER_DAY)).toISOString();
}

/** The state after new forecasts; the evidence of each asset that fell due (at or before `now`). */
export function onForecasts(state: PredictiveState, forecasts: readonly AssetForecast[], now: Date): { state: PredictiveState; fired: PredictiveEvidence[] } {
  const assets = { ...state.assets };
  const fired: PredictiveEvidence[] = [];
  for (const f of [...forecasts].sort((a, b) => a.asset_id.localeCompare(b.asset_id))) {
    const s = assets[f.asset_id] ?? EMPTY;
    if (f.evidence === null) {
      assets[f.asset_id] = { ...s, due_at: null };
      continue;
    }
    if (f.due_at === null) {
      // Heading away: re-armed once it has stayed so for lead_days (at once when it had not fired).
      const awaySince = s.fired ? (s.away_since ?? now.toISOString()) : null;
      const rearmed = awaySince === null || now.getTime() - Date.parse(awaySince) >= f.evidence.lead_days * MS_PER_DAY;
      assets[f.asset_id] = rearmed
        ? { ...s, due_at: null, fired: false, evidence: f.evidence, away_since: null }
        : { ...s, due_at: null, evidence: f.evidence, away_since: awaySince };
      continue;
    }
    if (s.fired) {
      assets[f.asset_id] = { ...s, evidence: f.evidence, away_since: null };
      continue;
    }
    const due = Date.parse(f.due_at) <= now.getTime();
    if (due) fired.push(f.evidence);
    assets[f.asset_id] = { ...s, due_at: due ? null : f.due_at, fired: due, evidence: f.evidence };
  }
  return { state: { ...state, assets }, fired };
}

/** A completed work order re-arms its asset (null: every asset); readings before `at` no longer count. */
export function rearmPredictive(state: PredictiveState, assetId: string | null, at: IsoTimestamp): PredictiveState {
  const assets = { ...state.assets };
  for (const [id, s] of Object.entries(assets)) if ((assetId === null || id === assetId) && s.fired) assets[id] = { ...EMPTY, since: at };
  return { ...state, assets };
}

/** The earliest instant an asset falls due (the workflow's durable timer), or null. */
export function predictedDueAt(state: PredictiveState): IsoTimestamp | null {
  const due = Object.values(state.assets)
    .filter((s) => !s.fired && s.due_at !== null)
    .map((s) => Date.parse(s.due_at as string));
  return due.length ? new Date(Math.min(...due)).toISOString() : null;
}

/** Per asset, the instant from which its readings count (only the re-armed ones). */
export function predictiveSince(state: PredictiveState): Record<string, IsoTimestamp> {
  const since: Record<string, IsoTimestamp> = {};
  for (const [assetId, s] of Object.entries(state.assets)) if (s.since !== null) since[assetId] = s.since;
  return since;
}
