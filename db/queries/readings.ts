import { Knex } from 'knex';
import { Queryable } from '../knex';
import { tenantScope } from '../tenant-scope';
import { pgArray } from './pg-array';
import { isoTime } from '../../domain/time';

/** One sensor reading as the gateway received it (device time). */
export interface ReadingInput {
  readonly asset_id: string;
  readonly parameter: string;
  readonly ts: Date;
  readonly value: number;
  readonly unit: string | null;
  readonly source: string | null;
  readonly sender_event_id: string;
}

export interface SeriesKey {
  readonly asset_id: string;
  readonly parameter: string;
}

/** A series as a map key. */
export const seriesKey = (s: SeriesKey): string => `${s.asset_id}|${s.parameter}`;

const columnArrays = (readings: readonly ReadingInput[]) => [
  pgArray(readings.map((r) => r.asset_id)),
  pgArray(readings.map((r) => r.parameter)),
  pgArray(readings.map((r) => r.ts.toISOString())),
  pgArray(readings.map((r) => r.value)),
  pgArray(readings.map((r) => r.unit)),
  pgArray(readings.map((r) => r.source)),
  pgArray(readings.map((r) => r.sender_event_id)),
];

/**
 * Inserts a batch in one statement (one array parameter per column), skipping sender event ids
 * already stored for the tenant (also within the batch: the first occurrence wins). Returns the
 * sender event ids stored by this call, so a repeated batch returns none.
 */
export async function insertReadings(db: Queryable, tenantId: string, readings: readonly ReadingInput[]): Promise<Set<string>> {
  if (readings.length === 0) return new Set();
  const { statement, bindings } = insertReadingsStatement(tenantId, readings);
  const { rows } = await db.raw(statement, bindings);
  return new Set(rows.map((r: { sender_event_id: string }) => r.sender_event_id));
}

/** The statement of insertReadings (returning the stored sender event ids), so a caller can run it as a CTE of a larger statement. */
export function insertReadingsStatement(tenantId: string, readings: readonly ReadingInput[]): { statement: string; bindings: Knex.RawBinding[] } {
  return {
    statement: `insert into sensor_readings (tenant_id, asset_id, parameter, ts, value, unit, source, sender_event_id)
     select ?::uuid, r.* from unnest(?::uuid[], ?::text[], ?::timestamptz[], ?::float8[], ?::text[], ?::text[], ?::text[]) as r
     on conflict (tenant_id, sender_event_id) do nothing
     returning sender_event_id`,
    bindings: [tenantId, ...columnArrays(readings)],
  };
}

/** [epoch ms, value] pairs, oldest first. */
export type RecentWindow = [number, number][];

export interface LatestReading {
  asset_id: string;
  parameter: string;
  ts: Date;
  value: number;
  unit: string | null;
  source: string | null;
  /** The newest readings of the series in device-time order, the latest one last (late readings are not in it). */
  recent: RecentWindow;
}

/** The newest reading (device time) of each series of the given assets, with its recent window. */
export async function latestReadings(db: Queryable, tenantId: string, assetIds: readonly string[]): Promise<LatestReading[]> {
  if (assetIds.length === 0) return [];
  return tenantScope(db, tenantId)
    .table('asset_parameter_latest')
    .whereRaw('asset_id = any(?::uuid[])', [pgArray(assetIds)])
    .select('asset_id', 'parameter', 'ts', 'value', 'unit', 'source', 'recent')
    .orderBy([{ column: 'asset_id' }, { column: 'parameter' }]);
}

/** Records the newest reading and window of each series, unless a newer reading is already recorded. */
export async function upsertLatestReadings(db: Queryable, tenantId: string, latest: readonly LatestReading[]): Promise<void> {
  if (latest.length === 0) return;
  const { statement, bindings } = latestReadingsStatement(tenantId, latest);
  await db.raw(statement, bindings);
}

/** The statement of upsertLatestReadings, so a caller can run it as a CTE of a larger statement. */
export function latestReadingsStatement(tenantId: string, latest: readonly LatestReading[]): { statement: string; bindings: Knex.RawBinding[] } {
  return {
    statement: `insert into asset_parameter_latest as l (tenant_id, asset_id, parameter, ts, value, unit, source, recent, updated_at)
     select ?::uuid, r.*, now() from unnest(?::uuid[], ?::text[], ?::timestamptz[], ?::float8[], ?::text[], ?::text[], ?::jsonb[]) as r
     on conflict (tenant_id, asset_id, parameter) do update
       set ts = excluded.ts, value = excluded.value, unit = excluded.unit, source = excluded.source, recent = excluded.recent, updated_at = now()
       where excluded.ts >= l.ts`,
    bindings: [
      tenantId,
      pgArray(latest.map((r) => r.asset_id)),
      pgArray(latest.map((r) => r.parameter)),
      pgArray(latest.map((r) => isoTime(r.ts))),
      pgArray(latest.map((r) => r.value)),
      pgArray(latest.map((r) => r.unit)),
      pgArray(latest.map((r) => r.source)),
      pgArray(latest.map((r) => JSON.stringify(r.recent))),
    ],
  };
}

export interface SeriesPoint {
  asset_id: string;
  parameter: string;
  ts: Date;
  value: number;
}

/** The newest `perSeries` readings of each given series, one index range scan per series. */
export async function recentReadings(db: Queryable, tenantId: string, series: readonly SeriesKey[], perSeries: number): Promise<SeriesPoint[]> {
  if (series.length === 0) return [];
  const { rows } = await db.raw(
    `select k.asset_id, k.parameter, r.ts, r.value
       from unnest(?::uuid[], ?::text[]) as k(asset_id, parameter)
       cross join lateral (
         select s.ts, s.value from sensor_readings s
          where s.tenant_id = ? and s.asset_id = k.asset_id and s.parameter = k.parameter
          order by s.ts desc limit ?
       ) r`,
    [pgArray(series.map((s) => s.asset_id)), pgArray(series.map((s) => s.parameter)), tenantId, perSeries],
  );
  return rows.map((r: SeriesPoint) => ({ ...r, value: Number(r.value) }));
}

export interface CycleBucket {
  cycle: number;
  parameter: string;
  value: number;
}

/**
 * Readings of an asset's parameters averaged per cycle of `cycleSeconds`. Cycle 1 starts at the
 * first reading of any of the parameters (the asset's age in cycles as far as the data knows);
 * only the newest `lastCycles` cycles are returned.
 */
export async function cycleAverages(
  db: Queryable,
  tenantId: string,
  assetId: string,
  parameters: readonly string[],
  cycleSeconds: number,
  lastCycles: number,
): Promise<CycleBucket[]> {
  if (parameters.length === 0) return [];
  const { rows } = await db.raw(
    `with bounds as (
       select min(f.ts) as first_ts, max(l.ts) as last_ts
         from unnest(?::text[]) as p(parameter)
         cross join lateral (select ts from sensor_readings s where s.tenant_id = ? and s.asset_id = ? and s.parameter = p.parameter order by ts asc limit 1) f
         cross join lateral (select ts from sensor_readings s where s.tenant_id = ? and s.asset_id = ? and s.parameter = p.parameter order by ts desc limit 1) l
     )
     select floor(extract(epoch from s.ts - b.first_ts) / ?)::bigint + 1 as cycle, s.parameter, avg(s.value) as value
       from bounds b
       join sensor_readings s
         on s.tenant_id = ? and s.asset_id = ? and s.parameter = any(?::text[])
        and s.ts >= greatest(b.first_ts, b.first_ts + (floor(extract(epoch from b.last_ts - b.first_ts) / ?) - ?) * make_interval(secs => ?))
      group by 1, 2
      order by 1, 2`,
    [pgArray(parameters), tenantId, assetId, tenantId, assetId, cycleSeconds, tenantId, assetId, pgArray(parameters), cycleSeconds, lastCycles - 1, cycleSeconds],
  );
  return rows.map((r: { cycle: string; parameter: string; value: string }) => ({ cycle: Number(r.cycle), parameter: r.parameter, value: Number(r.value) }));
}

/**
 * The stored readings of each series from its `since` on (late readings judged at their time),
 * one index range scan per series.
 */
export async function readingsSince(db: Queryable, tenantId: string, series: ReadonlyArray<SeriesKey & { since: Date }>): Promise<SeriesPoint[]> {
  if (series.length === 0) return [];
  const { rows } = await db.raw(
    `select s.asset_id, s.parameter, s.ts, s.value
       from unnest(?::uuid[], ?::text[], ?::timestamptz[]) as k(asset_id, parameter, since)
       join sensor_readings s on s.tenant_id = ? and s.asset_id = k.asset_id and s.parameter = k.parameter and s.ts >= k.since
      order by s.ts`,
    [pgArray(series.map((s) => s.asset_id)), pgArray(series.map((s) => s.parameter)), pgArray(series.map((s) => s.since.toISOString())), tenantId],
  );
  return rows.map((r: SeriesPoint) => ({ ...r, value: Number(r.value) }));
}
