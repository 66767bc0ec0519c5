import { randomUUID } from 'node:crypto';
import { Knex } from 'knex';
import { withBenchTenant } from './bench-tenant';
import { AppDeps } from '../api/context';
import { insertReadings, ReadingInput } from '../db/queries/readings';
import { createDb } from '../db/knex';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { requestListener } from '../api/listen';
import { bareReplay, describeStatements, recordStatements, statementsTouching } from './recorded-sql';
import { verdict } from './report';
import { meets, TARGETS } from './targets';

/**
 * Assets benchmark (issue 6), bounded to about a minute:
 * - readings per second through the gateway (POST /machine/readings/batch, 500 per batch, with
 *   baselines on every series, so alerting and health/condition recomputation run), next to a
 *   plain batch insert of the same rows into sensor_readings (insertReadings, one statement per
 *   500), and their ratio (an earlier anchor, no longer a target). Measured twice: one sender sending batches one after the
 *   other (every batch covers all 12 assets), and 4 senders at once, each a gateway for its own 3
 *   assets (the plain insert then runs 4 at once too);
 * - the one sender's batches against the same-work floor (the statements one gateway batch ran,
 *   replayed by a bare Koa + pg handler), in turns, batch for batch (target >= 0.7);
 * - GET /dashboard latency (p50/p99) once the tenant holds at least 100 000 readings.
 * The token must be a `manage_assets` + `view_dashboard` user (an admin) of an enterprise tenant
 * (the run makes a few hundred requests). It adds assets and readings to that tenant.
 */

export interface AssetsBenchContext {
  baseUrl: string;
  token: string;
  db: Knex;
  /** For the same-work floor's bare pg pool (the API's own database user). */
  databaseUrl: string;
}

const BATCH = 500;
/** Gateway readings per second against the same-work floor's, one sender. */
const ASSETS = 12;
const SENDERS = 4;
const PARAMETERS = ['temperature', 'pressure', 'vibration', 'speed'] as const;
const BASELINE: Record<(typeof PARAMETERS)[number], number> = { temperature: 70, pressure: 6, vibration: 3, speed: 1500 };
/**
 * The gateway against its floor: batches of each in turn, one at a time, after untimed turns (as
 * bench/report.ts timedTurns). Each side once after the other, 24 batches, swung 0.67-0.98 over
 * full runs of the same code (2026-11-28): the gateway's phase came first and paid its JIT warm-up,
 * and each saw a different moment of the machine.
 */
const FLOOR_TURNS = 60;
const FLOOR_WARMUP_TURNS = 20;
/** The 4 senders' phase: batches in all (across senders), and a time budget. */
const MAX_GATEWAY_BATCHES = 24;
const GATEWAY_BUDGET_MS = 12_000;
const DASHBOARD_READINGS = 100_000;
const DASHBOARD_BUDGET_MS = 10_000;
const MAX_DASHBOARD_REQUESTS = 300;

function tenantOf(token: string): string {
  const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { tenant_id?: string };
  if (!claims.tenant_id) throw new Error('the token carries no tenant_id');
  return claims.tenant_id;
}

/** One authenticated JSON call of a bench's API; throws on a status of 300 or above. */
export async function call(ctx: Pick<AssetsBenchContext, 'baseUrl' | 'token'>, path: string, init: { method?: string; json?: unknown } = {}): Promise<any> {
  const res = await fetch(`${ctx.baseUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: { Authorization: `Bearer ${ctx.token}`, ...(init.json !== undefined ? { 'Content-Type': 'application/json' } : {}) },
    body: init.json !== undefined ? JSON.stringify(init.json) : undefined,
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${init.method ?? 'GET'} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

/**
 * Batch `index` of a deterministic stream: readings spread over every (asset, parameter), one second
 * apart in device time starting `start`, inside the ±10 % band except for one sustained excursion
 * per 10 000 readings (the first asset's temperature runs 20 % high for 2 500 readings), so alerts
 * are raised and resolved at a plausible rate.
 */
function batchReadings(assetIds: readonly string[], start: number, index: number, runId: string): ReadingInput[] {
  return Array.from({ length: BATCH }, (_, i) => {
    const n = index * BATCH + i;
    const parameter = PARAMETERS[n % PARAMETERS.length] as (typeof PARAMETERS)[number];
    const asset = assetIds[Math.floor(n / PARAMETERS.length) % assetIds.length] as string;
    const excursion = asset === assetIds[0] && parameter === 'temperature' && Math.floor(n / 2_500) % 4 === 1;
    const wave = Math.sin(n / 37) * 0.06 + (excursion ? 0.2 : 0);
    return {
      asset_id: asset,
      parameter,
      ts: new Date(start + n * 1000),
      value: round(BASELINE[parameter] * (1 + wave), 4),
      unit: null,
      source: 'bench',
      sender_event_id: `${runId}-${n}`,
    };
  });
}

interface PhaseResult {
  readings: number;
  seconds: number;
  batchMs: number[];
  alertsRaised: number;
  /** CPU of the bench process (the API or the floor's handler, and the sender) per batch. */
  cpuMsPerBatch: number;
}

/** One batch through the gateway: what it stored and how many alerts it raised. */
async function postBatch(ctx: AssetsBenchContext, batch: readonly ReadingInput[]): Promise<{ stored: number; alerts_raised: number }> {
  const readings = batch.map((r) => ({
    event_id: r.sender_event_id,
    asset_id: r.asset_id,
    parameter: r.parameter,
    value: r.value,
    timestamp: r.ts.toISOString(),
    source: r.source,
  }));
  return call(ctx, '/api/v1/machine/readings/batch', { method: 'POST', json: { readings } });
}

/** Each sender posts its own stream's batches one after the other; senders run at the same time (the wall time counts). */
async function gatewayPhase(ctx: AssetsBenchContext, streams: ((b: number) => ReadingInput[])[]): Promise<PhaseResult> {
  const result: PhaseResult = { readings: 0, seconds: 0, batchMs: [], alertsRaised: 0, cpuMsPerBatch: 0 };
  const perSender = Math.floor(MAX_GATEWAY_BATCHES / streams.length);
  const started = Date.now();
  const cpuBefore = process.cpuUsage();
  await Promise.all(
    streams.map(async (stream) => {
      for (let b = 0; b < perSender && Date.now() - started < GATEWAY_BUDGET_MS; b++) {
        const t0 = performance.now();
        const summary = await postBatch(ctx, stream(b));
        result.batchMs.push(performance.now() - t0);
        result.readings += summary.stored;
        result.alertsRaised += summary.alerts_raised;
      }
    }),
  );
  result.seconds = (Date.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  result.cpuMsPerBatch = (cpu.user + cpu.system) / 1000 / Math.max(1, result.batchMs.length);
  return result;
}

/** The same rows (fresh event ids) by plain batch inserts, with the same number of batches and concurrency. */
async function plainPhase(ctx: AssetsBenchContext, tenantId: string, streams: ((b: number) => ReadingInput[])[], batches: number): Promise<PhaseResult> {
  const perSender = Math.ceil(batches / streams.length);
  const started = Date.now();
  const counts = await Promise.all(
    streams.map(async (stream) => {
      let stored = 0;
      for (let b = 0; b < perSender; b++) {
        stored += (
          await insertReadings(
            ctx.db,
            tenantId,
            stream(b).map((r) => ({ ...r, sender_event_id: `${r.sender_event_id}-plain` })),
          )
        ).size;
      }
      return stored;
    }),
  );
  return { readings: counts.reduce((x, y) => x + y, 0), seconds: (Date.now() - started) / 1000, batchMs: [], alertsRaised: 0, cpuMsPerBatch: 0 };
}

export async function runAssetsBench(ctx: AssetsBenchContext): Promise<Record<string, number | string>> {
  const tenantId = tenantOf(ctx.token);
  const runId = `bench-${randomUUID().slice(0, 8)}`;
  const started = Date.now();

  const assetIds: string[] = [];
  for (let i = 0; i < ASSETS; i++) {
    const asset = await call(ctx, '/api/v1/assets', { method: 'POST', json: { name: `${runId} pump ${i}`, type: 'bench-pump' } });
    assetIds.push(asset.id);
    for (const parameter of PARAMETERS) {
      await call(ctx, `/api/v1/assets/${asset.id}/baselines`, { method: 'POST', json: { parameter, baseline_value: BASELINE[parameter], tolerance_percent: 10 } });
    }
  }

  // Device time: each phase has its own day, all well before now (future readings are refused).
  const day = 86_400_000;
  const origin = Date.now() - 4 * day;
  const single = [(b: number) => batchReadings(assetIds, origin, b, `${runId}-s`)];
  const shards = Array.from({ length: SENDERS }, (_, k) => assetIds.filter((_, i) => i % SENDERS === k));
  const concurrent = shards.map((assets, k) => (b: number) => batchReadings(assets, origin + day, b, `${runId}-c${k}`));

  // The floor's day comes before the gateway's: its batch is recorded first, and the gateway's
  // readings, sent in turns with its replays, stay each series' latest as in a plant.
  const floorDay = origin - day;
  const floor = await withFloorServer(ctx, tenantId, assetIds, floorDay);
  let gatewaySingle: PhaseResult;
  let floorPhase: PhaseResult;
  try {
    [gatewaySingle, floorPhase] = await batchesInTurns([
      (b) => postBatch(ctx, single[0](b)),
      (b) => postBatch({ ...ctx, baseUrl: floor.baseUrl }, batchReadings(assetIds, floorDay, b, `${runId}-f`)),
    ]);
  } finally {
    await floor.close();
  }
  const plainSingle = await plainPhase(ctx, tenantId, single, gatewaySingle.batchMs.length);
  const gatewayConcurrent = await gatewayPhase(ctx, concurrent);
  const plainConcurrent = await plainPhase(ctx, tenantId, concurrent, gatewayConcurrent.batchMs.length);
  const rps = (p: PhaseResult) => p.readings / p.seconds;

  // Top the tenant up to 100 000 readings (plain inserts, a later day), then time the dashboard.
  const [{ count }] = await ctx.db('sensor_readings').where({ tenant_id: tenantId }).count({ count: '*' });
  let readingsInTenant = Number(count);
  for (let b = 0; readingsInTenant < DASHBOARD_READINGS; b++) {
    readingsInTenant += (await insertReadings(ctx.db, tenantId, batchReadings(assetIds, origin + 2 * day, b, `${runId}-fill`))).size;
  }
  await analyzeAsOwner(ctx.db, 'sensor_readings');

  const dashboardMs: number[] = [];
  const dashboardStart = Date.now();
  while (dashboardMs.length < MAX_DASHBOARD_REQUESTS && Date.now() - dashboardStart < DASHBOARD_BUDGET_MS) {
    const t0 = performance.now();
    await call(ctx, '/api/v1/dashboard');
    dashboardMs.push(performance.now() - t0);
  }
  dashboardMs.sort((x, y) => x - y);
  const batchMs = [...gatewaySingle.batchMs].sort((x, y) => x - y);
  const singleRatio = rps(gatewaySingle) / rps(plainSingle);
  const floorRatio = rps(gatewaySingle) / rps(floorPhase);

  return {
    gateway_readings_per_s: round(rps(gatewaySingle), 0),
    plain_insert_readings_per_s: round(rps(plainSingle), 0),
    gateway_to_plain_ratio: round(singleRatio, 3),
    gateway_4_senders_readings_per_s: round(rps(gatewayConcurrent), 0),
    plain_insert_4_at_once_readings_per_s: round(rps(plainConcurrent), 0),
    gateway_to_plain_ratio_4_senders: round(rps(gatewayConcurrent) / rps(plainConcurrent), 3),
    // The same-work floor: a bare Koa + pg handler running the statements one gateway batch ran.
    floor_readings_per_s: round(rps(floorPhase), 0),
    floor_statements_per_batch: floor.statements(),
    gateway_to_floor_ratio: round(floorRatio, 3),
    // Where the difference is: CPU of the bench process per batch (API or bare handler, and the sender).
    gateway_cpu_ms_per_batch: round(gatewaySingle.cpuMsPerBatch, 1),
    floor_cpu_ms_per_batch: round(floorPhase.cpuMsPerBatch, 1),
    // One sender (one gateway posting its batches one after the other), in turns with the floor's.
    floor_turns: FLOOR_TURNS,
    target_gateway_vs_floor: `>= ${TARGETS.ingest.line} of the same-work floor: ${verdict(meets(TARGETS.ingest, floorRatio))}`,
    batch_size: BATCH,
    gateway_batches: gatewaySingle.batchMs.length + gatewayConcurrent.batchMs.length,
    gateway_batch_p50_ms: round(percentile(batchMs, 50), 1),
    gateway_batch_p99_ms: round(percentile(batchMs, 99), 1),
    series_with_baselines: ASSETS * PARAMETERS.length,
    gateway_alerts_raised: gatewaySingle.alertsRaised + gatewayConcurrent.alertsRaised,
    readings_in_tenant: readingsInTenant,
    dashboard_requests: dashboardMs.length,
    dashboard_p50_ms: round(percentile(dashboardMs, 50), 1),
    dashboard_p99_ms: round(percentile(dashboardMs, 99), 1),
    total_seconds: round((Date.now() - started) / 1000, 1),
  };
}

/**
 * The same benchmark on a set of dependencies (bench/run.ts): serves the API on a loopback port,
 * provisions an enterprise tenant, signs its admin in, runs runAssetsBench, and closes the server.
 */
export function runAssetsBenchOn(deps: AppDeps): Promise<Record<string, number | string>> {
  return withBenchTenant(deps, 'Assets', ({ baseUrl, token }) => runAssetsBench({ baseUrl, token, db: deps.db, databaseUrl: deps.config.databaseUrl }));
}

/**
 * The gateway's same-work floor: the statements one gateway batch ran (its transaction around the
 * readings insert: baseline state, alert upserts, health), recorded from the API's knex, replayed
 * by a bare Koa handler over a bare pg pool for each batch it is sent (the body read and parsed,
 * nothing validated or judged). The recorded batch's sender event ids get a fresh suffix per
 * replay, so each replay stores its rows.
 */
async function withFloorServer(ctx: AssetsBenchContext, tenantId: string, assetIds: string[], origin: number) {
  const recordedTag = `${randomUUID().slice(0, 8)}-recorded`;
  // The first batch of the floor's own day (after every reading stored so far); each replay is the next batch in time.
  const recordedBatch = batchReadings(assetIds, origin, 0, recordedTag);
  const { result: recorded, statements } = await recordStatements(ctx.db, () => postBatch(ctx, recordedBatch));
  if (recorded.stored !== BATCH) throw new Error(`the recorded batch stored ${recorded.stored} of ${BATCH}`);
  const batchStatements = statementsTouching(statements, 'sensor_readings');
  const baselines: Array<{ id: string }> = await ctx
    .db('asset_baselines')
    .where({ tenant_id: tenantId })
    .select('id')
    .catch(() => []);
  const replay = bareReplay(ctx.databaseUrl, tenantId, batchStatements, [tenantId, ...assetIds, ...baselines.map((b) => b.id)], {
    tags: [recordedTag],
    shiftDatesMs: BATCH * 1000,
  });
  const app = new Koa();
  app.use(async (koa) => {
    const chunks: Buffer[] = [];
    for await (const chunk of koa.req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { readings: unknown[] };
    await replay.run();
    koa.body = { stored: body.readings.length, alerts_raised: 0 };
  });
  const server = createServer(requestListener(app.callback()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    statements: () => `${batchStatements.length} (${describeStatements(batchStatements)}); time: ${replay.timeByStatement()}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await replay.close();
    },
  };
}

/**
 * One sender's batches to each target in turn (batch b of every target, then b + 1), timed after
 * FLOOR_WARMUP_TURNS untimed turns: rows, alerts, time and the bench process's CPU per target.
 */
async function batchesInTurns(targets: Array<(b: number) => Promise<{ stored: number; alerts_raised: number }>>): Promise<PhaseResult[]> {
  const results = targets.map(() => ({ readings: 0, seconds: 0, batchMs: [] as number[], alertsRaised: 0, cpuMsPerBatch: 0 }));
  for (let b = 0; b < FLOOR_WARMUP_TURNS + FLOOR_TURNS; b++) {
    for (const [k, post] of targets.entries()) {
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      const summary = await post(b);
      if (b < FLOOR_WARMUP_TURNS) continue;
      const result = results[k] as PhaseResult;
      const ms = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      result.batchMs.push(ms);
      result.seconds += ms / 1000;
      result.readings += summary.stored;
      result.alertsRaised += summary.alerts_raised;
      result.cpuMsPerBatch += (cpu.user + cpu.system) / 1000 / FLOOR_TURNS;
    }
  }
  return results;
}

/** ANALYZE is the owner's: the app's role (ctx.db) would only get a warning. The stack's owner URL when there is one. */
async function analyzeAsOwner(appDb: Knex, table: string): Promise<void> {
  const ownerUrl = process.env.DATABASE_MIGRATION_URL;
  const owner = ownerUrl ? createDb(ownerUrl, { min: 0, max: 1 }) : appDb;
  try {
    await owner.raw('analyze ??', [table]);
  } finally {
    if (owner !== appDb) await owner.destroy();
  }
}
