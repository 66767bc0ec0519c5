/**
 * A simulated plant gateway for the demo (issue 24), one more process under `npm run up`: every
 * DEMO_GATEWAY_INTERVAL_MS (3 s) it posts one reading per monitored parameter of the demo plant
 * through POST /api/v1/machine/readings/batch, and the compressor's run hours to its counter plan.
 * Everything is near its baseline except the vibration of the degrading pump, which rises by
 * DEMO_DEGRADATION_PER_TICK of its baseline per tick (default 0.3 %) after a quiet start: after about
 * three minutes its prognostics project the crossing of its band minutes ahead, after about four it
 * leaves the band, an alert is raised, health drops and the machine agent fires; meanwhile the
 * run-hours plan comes due and creates a work order.
 *
 * Environment: DEMO_API_ORIGIN, DEMO_ADMIN_EMAIL, DEMO_ADMIN_PASSWORD, DEMO_STATE_FILE; optional
 * DEMO_GATEWAY_INTERVAL_MS, DEMO_DEGRADATION_PER_TICK.
 */
import { randomUUID } from 'node:crypto';
import { demoApiClient, ok } from './api-client';
import { DEGRADING_PUMP, DEMO_ASSETS, degradedVibration, RUN_HOURS_AT_START, RUN_HOURS_PER_TICK } from './plant';
import { createLogger } from '../infra/logger';
import { readDemoState } from './state';

const log = createLogger('info', { component: 'demo-gateway' });

const BACKFILL_MINUTES = 20;
const BACKFILL_EVERY_MS = 20_000;

/** A normal sample (Box-Muller): sensor noise. */
const gaussian = () => Math.sqrt(-2 * Math.log(1 - Math.random())) * Math.cos(2 * Math.PI * Math.random());
const round = (value: number) => Math.round(value * 1000) / 1000;

export function readingsForTick(assetIds: Record<string, string>, tick: number, degradationPerTick: number, at: Date) {
  const readings = [];
  for (const asset of DEMO_ASSETS) {
    const assetId = Object.hasOwn(assetIds, asset.name) ? assetIds[asset.name] : undefined;
    if (!assetId) continue;
    for (const p of asset.parameters) {
      const degrading = asset.name === DEGRADING_PUMP && p.parameter === 'vibration';
      const level = degrading ? degradedVibration(p.baseline, tick, degradationPerTick) : p.baseline;
      readings.push({
        event_id: `demo-${randomUUID()}`,
        asset_id: assetId,
        parameter: p.parameter,
        value: round(level * (1 + p.noise * gaussian())),
        unit: p.unit,
        timestamp: at.toISOString(),
        source: 'demo-gateway',
      });
    }
  }
  return readings;
}

async function main(): Promise<void> {
  const need = (name: string) => {
    const value = process.env[name];
    if (!value) throw new Error(`${name} is required`);
    return value;
  };
  const state = readDemoState(need('DEMO_STATE_FILE'));
  if (!state) throw new Error('no demo state: run the demo seed first');
  const api = demoApiClient(need('DEMO_API_ORIGIN'), need('DEMO_ADMIN_EMAIL'), need('DEMO_ADMIN_PASSWORD'));
  const intervalMs = Number(process.env.DEMO_GATEWAY_INTERVAL_MS ?? 3_000);
  const degradation = Number(process.env.DEMO_DEGRADATION_PER_TICK ?? 0.003);

  // Run hours go on from the last reading the plan has (a restarted gateway must not count back).
  const plan = { plan_id: state.runHoursPlanId };
  const last = await ok(api.GET('/api/v1/maintenance/plans/{plan_id}/counter/history', { params: { path: plan, query: { limit: 1 } } }));
  let runHours = Math.max(Number(last.items?.[0]?.value ?? 0), RUN_HOURS_AT_START);
  // A gateway that connects for the first time uploads the history it buffered: the last
  // BACKFILL_MINUTES of every sensor, all near baseline, so trends have a past to start from.
  const pumpId = Object.hasOwn(state.assetIds, DEGRADING_PUMP) ? state.assetIds[DEGRADING_PUMP] : undefined;
  if (pumpId && (await ok(api.GET('/api/v1/assets/{asset_id}/readings', { params: { path: { asset_id: pumpId }, query: { limit: 1 } } }))).total === 0) {
    const now = Date.now();
    const history = [];
    for (let ago = BACKFILL_MINUTES * 60_000; ago > 0; ago -= BACKFILL_EVERY_MS) history.push(...readingsForTick(state.assetIds, 0, 0, new Date(now - ago)));
    for (let i = 0; i < history.length; i += 500) await ok(api.POST('/api/v1/machine/readings/batch', { body: { readings: history.slice(i, i + 500) } }));
    log.info({ readings: history.length, minutes: BACKFILL_MINUTES }, 'demo gateway: uploaded its buffered history');
  }
  let stopping = false;
  process.once('SIGTERM', () => (stopping = true));
  process.once('SIGINT', () => (stopping = true));
  log.info({ interval_ms: intervalMs, run_hours: runHours }, 'demo gateway started');

  for (let tick = 0; !stopping; tick++) {
    try {
      const summary = await ok(api.POST('/api/v1/machine/readings/batch', { body: { readings: readingsForTick(state.assetIds, tick, degradation, new Date()) } }));
      runHours = round(runHours + RUN_HOURS_PER_TICK);
      // The document declares no schema for this answer yet: the gateway reads only what it logs.
      const counted = (await ok(
        api.POST('/api/v1/maintenance/plans/{plan_id}/counter', {
          params: { path: plan },
          headers: { 'Idempotency-Key': `demo-run-hours-${runHours}` },
          body: { value: runHours, source: 'demo-gateway' },
        }),
      )) as unknown as { execution?: { task_code?: string | null } | null };
      if (summary.alerts_raised! > 0 || summary.alerts_resolved! > 0 || counted.execution) {
        log.info(
          { tick, alerts_raised: summary.alerts_raised, alerts_resolved: summary.alerts_resolved, run_hours: runHours, work_order: counted.execution?.task_code ?? null },
          'demo gateway',
        );
      }
    } catch (err) {
      // The API restarting, a token expiring: the next tick tries again.
      log.warn({ tick, error: (err as Error).message.slice(0, 200) }, 'demo gateway: tick failed');
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
