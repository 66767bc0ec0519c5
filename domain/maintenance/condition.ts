// The condition trigger's evaluator: persistence over `for_minutes` plus hysteresis, per asset.
// Pure and JSON-only (it runs in the plan's workflow and travels through continueAsNew).
//
// - Hysteresis in value: a reading is beyond past the limit, back inside only past the limit minus
//   the deadband (default 5 % of the limit); in between it keeps the side it was on, so a sensor
//   flapping around the limit stays in one excursion.
// - Armed: an excursion starts at the first reading beyond the limit; a reading back inside ends
//   it. The reading that completes `for_minutes` beyond fires: one work order, whose evidence is
//   the excursion's first reading and that one.
// - Fired: nothing fires again, however many readings follow, until the readings stay inside for
//   `for_minutes`: that re-arms it (hysteresis in time).
import type { ConditionTrigger, IsoTimestamp } from './types';
import { MS_PER_HOUR } from './instant';

const MS_PER_MINUTE = MS_PER_HOUR / 60;

export interface ConditionPoint {
  at: IsoTimestamp;
  value: number;
}

/**
 * Consecutive readings of one asset on the same side of the limit, oldest first: the readings
 * reach the workflow compressed to these (a flood of readings is a handful of runs).
 */
export interface ConditionRun {
  beyond: boolean;
  first: ConditionPoint;
  last: ConditionPoint;
}

export interface AssetConditionState {
  /** The current excursion's first reading (null while inside). */
  since: ConditionPoint | null;
  /** A work order was made for the current excursion: none again until re-armed. */
  fired: boolean;
  /** While fired: when the readings came back inside (re-arms after for_minutes inside). */
  inside_since: IsoTimestamp | null;
  /** The newest reading evaluated: the next evaluation reads after it. */
  last_at: IsoTimestamp | null;
}

export interface ConditionState {
  parameter: string;
  /** By asset id (a plain object, not a Map: it travels through continueAsNew). */
  assets: Record<string, AssetConditionState>;
}

/** What a condition decision saw (plan history entry, task and task.created `evidence`). */
export interface ConditionEvidence {
  asset_id: string;
  parameter: string;
  limit: { above: number } | { below: number };
  deadband: number;
  for_minutes: number;
  first_reading: ConditionPoint;
  last_reading: ConditionPoint;
}

export function initialConditionState(trigger: Pick<ConditionTrigger, 'parameter'>): ConditionState {
  return { parameter: trigger.parameter, assets: {} };
}

/** A changed parameter starts afresh; a changed limit or window keeps the state (it re-judges on the next readings). */
export function conditionAfterTriggerChange(state: ConditionState | null, next: ConditionTrigger): ConditionState {
  return state !== null && state.parameter === next.parameter ? state : initialConditionState(next);
}

/** The band inside the limit where a reading keeps its side: the trigger's, else 5 % of the limit. */
export function deadbandOf(trigger: Pick<ConditionTrigger, 'above' | 'below' | 'deadband'>): number {
  // 12 significant digits: 5 % of 3.5 is 0.175, not 0.17500000000000002.
  return trigger.deadband ?? Number(Math.abs((trigger.above ?? trigger.below ?? 0) * DEFAULT_DEADBAND_SHARE).toPrecision(12));
}

export const DEFAULT_DEADBAND_SHARE = 0.05;

/** Beyond the limit, back inside past the deadband, or (in the deadband) the side it was on. */
export function sideOf(trigger: Pick<ConditionTrigger, 'above' | 'below' | 'deadband'>, value: number, wasBeyond: boolean): boolean {
  const band = deadbandOf(trigger);
  if (trigger.above !== undefined) return value > trigger.above ? true : value < trigger.above - band ? false : wasBeyond;
  const below = trigger.below as number;
  return value < below ? true : value > below + band ? false : wasBeyond;
}

/** Where an asset's next readings start: beyond or inside, and the excursion's first reading when its window is still to complete. */
export interface ConditionPrior {
  beyond: boolean;
  window_from: IsoTimestamp | null;
}

/**
 * Readings of one asset (any order) compressed to runs on either side of the limit. A run beyond
 * the limit ends at the reading that completes the window, so the evidence's last reading is the
 * one that made the plan due, however the readings were batched.
 */
export function toRuns(
  trigger: Pick<ConditionTrigger, 'above' | 'below' | 'deadband' | 'for_minutes'>,
  points: readonly ConditionPoint[],
  prior: ConditionPrior | null = null,
): ConditionRun[] {
  const windowMs = trigger.for_minutes * MS_PER_MINUTE;
  const sorted = [...points].sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
  const runs: ConditionRun[] = [];
  let side = prior?.beyond ?? false;
  let start = prior?.window_from ? Date.parse(prior.window_from) : null; // null while beyond: nothing left to complete
  let closed = false; // the last run ended at its window's completing reading
  for (const p of sorted) {
    const beyond = sideOf(trigger, p.value, side);
    if (beyond !== side) start = beyond ? Date.parse(p.at) : null;
    side = beyond;
    const current = runs[runs.length - 1];
    if (current && current.beyond === beyond && !closed) current.last = p;
    else runs.push({ beyond, first: p, last: p });
    closed = beyond && start !== null && Date.parse(p.at) - start >= windowMs;
    if (closed) start = null;
  }
  return runs;
}

const EMPTY: AssetConditionState = { since: null, fired: false, inside_since: null, last_at: null };

/**
 * Applies one asset's new runs (readings after its `last_at`; older ones are ignored) and returns
 * its new state and the evidence of each excursion that fired (normally none or one).
 */
export function applyConditionRuns(
  trigger: ConditionTrigger,
  assetId: string,
  previous: AssetConditionState | undefined,
  runs: readonly ConditionRun[],
): { state: AssetConditionState; fired: ConditionEvidence[] } {
  const windowMs = trigger.for_minutes * MS_PER_MINUTE;
  let s: AssetConditionState = previous ?? EMPTY;
  const fired: ConditionEvidence[] = [];
  for (const run of runs) {
    if (s.last_at !== null && Date.parse(run.last.at) <= Date.parse(s.last_at)) continue;
    const last_at = run.last.at;
    if (!run.beyond) {
      const insideSince = s.fired ? (s.inside_since ?? run.first.at) : null;
      const rearmed = s.fired && Date.parse(run.last.at) - Date.parse(insideSince as string) >= windowMs;
      s = rearmed ? { ...EMPTY, last_at } : { ...s, since: s.fired ? s.since : null, inside_since: insideSince, last_at };
      continue;
    }
    const since = s.since ?? run.first;
    const persisted = Date.parse(run.last.at) - Date.parse(since.at) >= windowMs;
    if (!s.fired && persisted) {
      fired.push({
        asset_id: assetId,
        parameter: trigger.parameter,
        limit: limitOf(trigger),
        deadband: deadbandOf(trigger),
        for_minutes: trigger.for_minutes,
        first_reading: since,
        last_reading: run.last,
      });
      s = { since, fired: true, inside_since: null, last_at };
    } else {
      s = { ...s, since, inside_since: null, last_at };
    }
  }
  return { state: s, fired };
}

/** The condition state after new runs of several assets; the evidence of every excursion that fired. */
export function onConditionRuns(
  trigger: ConditionTrigger,
  state: ConditionState,
  runsByAsset: Readonly<Record<string, readonly ConditionRun[]>>,
): { state: ConditionState; fired: ConditionEvidence[] } {
  const assets = { ...state.assets };
  const fired: ConditionEvidence[] = [];
  for (const assetId of Object.keys(runsByAsset).sort()) {
    const r = applyConditionRuns(trigger, assetId, assets[assetId], runsByAsset[assetId] ?? []);
    assets[assetId] = r.state;
    fired.push(...r.fired);
  }
  return { state: { ...state, assets }, fired };
}

/**
 * A completed work order re-arms its asset (`null`: every asset): its next readings beyond the
 * limit start a new excursion, so a repair that did not help makes another work order after the
 * window. The cursor is kept (readings already judged are not judged again).
 */
export function rearmCondition(state: ConditionState, assetId: string | null): ConditionState {
  const assets = { ...state.assets };
  for (const [id, s] of Object.entries(assets)) if ((assetId === null || id === assetId) && s.fired) assets[id] = { ...EMPTY, last_at: s.last_at };
  return { ...state, assets };
}

/** Each asset's side and open window (toRuns' `prior`) after its evaluated readings. */
export function conditionPriors(state: ConditionState): Record<string, ConditionPrior> {
  const priors: Record<string, ConditionPrior> = {};
  for (const [assetId, s] of Object.entries(state.assets)) {
    const beyond = s.since !== null && s.inside_since === null;
    priors[assetId] = { beyond, window_from: beyond && !s.fired ? (s.since as ConditionPoint).at : null };
  }
  return priors;
}

/** Where each asset's next evaluation starts (its newest evaluated reading). */
export function conditionCursor(state: ConditionState): Record<string, IsoTimestamp> {
  const cursor: Record<string, IsoTimestamp> = {};
  for (const [assetId, s] of Object.entries(state.assets)) if (s.last_at !== null) cursor[assetId] = s.last_at;
  return cursor;
}

function limitOf(trigger: ConditionTrigger): ConditionEvidence['limit'] {
  return trigger.above !== undefined ? { above: trigger.above } : { below: trigger.below as number };
}
