import { Reading } from '../../domain/assets/excursion';
import { PredictiveConfig } from '../../domain/assets/predictive-config';
import { TREND_WINDOW } from '../../domain/assets/trend';
import { insertMachineEvents, MachineEventInput } from '../../db/queries/machine-events';
import { AssetState, assetStatesStatement } from '../../db/queries/asset-state';
import { insertReadingsStatement, LatestReading, latestReadingsStatement, ReadingInput, RecentWindow, seriesKey } from '../../db/queries/readings';
import { Queryable } from '../../db/knex';
import { MonitoringState, monitoringStateColumns, monitoringStateOf } from './monitoring-state';
import { applyJudgements, SeriesJudgement } from './judge';
import { BaselinedSeries, judgeLate } from './late';
import { bandOf } from '../../db/queries/baselines';
import { computeAssetStates } from './recompute';
import { LockedAssets, MonitoringUnit } from './unit';
import { isoTime } from '../../domain/time';

export interface ReadingsSummary {
  received: number;
  stored: number;
  /** Readings whose sender event id was already stored (not stored again). */
  duplicates: number;
  /** Stored readings older than the newest one already known for their series: judged at their own time. */
  late: number;
  alerts_raised: number;
  alerts_resolved: number;
}

const key = seriesKey;

/**
 * The gateway's reading pipeline, in the caller's transaction: store the batch idempotently, judge
 * the new readings of each baselined series against its band (raising, continuing or resolving its
 * alert) and its late ones at their own time (late.ts), move each series' latest reading, and
 * recompute the touched assets' health and condition.
 * `assets` holds every asset of the batch, locked by the caller (lockAssetTypes) and checked to belong to the tenant.
 */
export async function ingestReadings(unit: MonitoringUnit, assets: LockedAssets, readings: readonly ReadingInput[], now: Date): Promise<ReadingsSummary> {
  const tenantId = unit.scope.tenantId;
  const assetTypes = assets.types;
  const { stored: storedIds, state } = await insertAndReadState(unit.tx, tenantId, readings, assetTypes);
  const summary: ReadingsSummary = {
    received: readings.length,
    stored: storedIds.size,
    duplicates: readings.length - storedIds.size,
    late: 0,
    alerts_raised: 0,
    alerts_resolved: 0,
  };
  if (storedIds.size === 0) return summary;

  // The readings stored now: the first occurrence of each stored event id, grouped by series.
  const bySeries = new Map<string, ReadingInput[]>();
  for (const r of readings) {
    if (!storedIds.delete(r.sender_event_id)) continue;
    const list = bySeries.get(key(r));
    if (list) list.push(r);
    else bySeries.set(key(r), [r]);
  }
  const touchedAssets = [...new Set([...bySeries.values()].map(([first]) => (first as ReadingInput).asset_id))];

  const { baselines: assetBaselines, configs, inspections } = state;
  const latest = new Map(state.latest.map((r) => [key(r), r]));
  // The state holds every unresolved alert of the assets; only those of the touched series are judged.
  const alertOf = new Map(state.alerts.filter((a) => bySeries.has(key(a))).map((a) => [key(a), a]));

  // Per series: the readings newer than its latest one, in device-time order, move the latest
  // reading and its window; older (late) ones are judged at their own time after them.
  const newerBySeries = new Map<string, Reading[]>();
  const lateBySeries = new Map<string, Reading[]>();
  const moved: LatestReading[] = [];
  for (const [k, rs] of bySeries) {
    const before = latest.get(k);
    const since = before ? new Date(before.ts).getTime() : -Infinity;
    const newer = rs.filter((r) => r.ts.getTime() > since).sort((x, y) => x.ts.getTime() - y.ts.getTime());
    const late = rs.filter((r) => r.ts.getTime() <= since);
    summary.late += late.length;
    if (late.length > 0)
      lateBySeries.set(
        k,
        late.map((r) => ({ t: r.ts.getTime(), value: r.value })),
      );
    if (newer.length === 0) continue;
    newerBySeries.set(
      k,
      newer.map((r) => ({ t: r.ts.getTime(), value: r.value })),
    );
    const last = newer[newer.length - 1] as ReadingInput;
    const window: RecentWindow = [...(before?.recent ?? []), ...newer.map((r): [number, number] => [r.ts.getTime(), r.value])].slice(-TREND_WINDOW);
    const row: LatestReading = { asset_id: last.asset_id, parameter: last.parameter, ts: last.ts, value: last.value, unit: last.unit, source: last.source, recent: window };
    latest.set(k, row);
    moved.push(row);
  }

  const baselined: BaselinedSeries = new Map(
    assetBaselines.map((baseline) => {
      const config = configs.get(assetTypes.get(baseline.asset_id) as string) as PredictiveConfig;
      return [key(baseline), { baseline, band: bandOf(baseline, config) }];
    }),
  );
  const judgements: SeriesJudgement[] = [...newerBySeries].flatMap(([k, newer]) => {
    const series = baselined.get(k);
    if (!series) return [];
    return [{ assetId: series.baseline.asset_id, parameter: series.baseline.parameter, ...series, open: alertOf.get(k) ?? null, readings: newer }];
  });
  const counts = await applyJudgements(unit, judgements);
  const lateCounts = await judgeLate(unit, lateBySeries, baselined);
  summary.alerts_raised = counts.raised + lateCounts.raised;
  summary.alerts_resolved = counts.resolved + lateCounts.resolved;

  const states = computeAssetStates(touchedAssets, { assetTypes, configs, baselines: assetBaselines, latest: [...latest.values()], inspections });
  await saveSeriesAndStates(unit.tx, tenantId, moved, states, now);
  return summary;
}

/**
 * insertReadings and the monitoring state of all the batch's assets in one statement (issue 19: one
 * round trip fewer per batch). The insert writes none of the state's tables, so the state read in
 * its statement (whose snapshot is taken after the caller's lock, as the separate read's was) is
 * the one a read after it would see; the state of assets without a stored reading is read and not used.
 */
async function insertAndReadState(
  db: Queryable,
  tenantId: string,
  readings: readonly ReadingInput[],
  assetTypes: ReadonlyMap<string, string>,
): Promise<{ stored: Set<string>; state: MonitoringState }> {
  const insert = insertReadingsStatement(tenantId, readings);
  const types = [...assetTypes.values()];
  const state = monitoringStateColumns(tenantId, [...assetTypes.keys()], types);
  const { rows } = await db.raw(`with stored as (${insert.statement}) select (select coalesce(array_agg(sender_event_id), '{}') from stored) as stored, ${state.columns}`, [
    ...insert.bindings,
    ...state.bindings,
  ]);
  const row = rows[0];
  return { stored: new Set(row.stored as string[]), state: monitoringStateOf(row, types) };
}

/**
 * upsertLatestReadings and saveAssetStates in one statement (issue 19: one round trip fewer per batch).
 * Their rows do not overlap, so running them as parts of one statement changes nothing they do.
 */
async function saveSeriesAndStates(db: Queryable, tenantId: string, moved: readonly LatestReading[], states: readonly AssetState[], at: Date): Promise<void> {
  const latest = latestReadingsStatement(tenantId, moved);
  const assetStates = assetStatesStatement(tenantId, states, at);
  await db.raw(`with latest as (${latest.statement}), ${assetStates.ctes} ${assetStates.statement}`, [...latest.bindings, ...assetStates.bindings]);
}

export interface EventsSummary {
  received: number;
  stored: number;
  duplicates: number;
}

/**
 * Stores machine events idempotently; each newly stored event also enters the outbox under its own
 * type (reserved domains are refused by the caller), so machine agents and webhooks can react.
 */
export async function ingestMachineEvents(unit: MonitoringUnit, events: readonly MachineEventInput[]): Promise<EventsSummary> {
  const stored = await insertMachineEvents(unit.tx, unit.scope.tenantId, events);
  for (const e of stored) {
    unit.emit(
      e.event_type,
      { machine_event_id: e.id, asset_id: e.asset_id, severity: e.severity, occurred_at: isoTime(e.ts), data: e.data },
      { occurredAt: new Date(e.ts), idempotencyKey: `machine-event:${e.sender_event_id}` },
    );
  }
  return { received: events.length, stored: stored.length, duplicates: events.length - stored.length };
}
