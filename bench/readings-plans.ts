import { randomUUID } from 'node:crypto';
import { AppDeps } from '../api/context';
import { workflowIds } from '../infra/workflow-ids';
import { call } from './assets';
import { withBenchTenant, type BenchTenant } from './bench-tenant';

/**
 * Readings into condition and predictive plans (bounded to about a minute): the same gateway
 * ingest (POST /machine/readings/batch, 500 vibration readings per batch, rising, over 4 pumps with
 * a baseline) once into pumps no plan watches and once into pumps each watched by a condition and a
 * predictive plan, readings per second of each and their ratio; then, for one predictive plan, the
 * signals and history events its workflow took during that 10 000-reading flood (coalesced: one
 * signal per batch at most, one evaluation per signal or fewer).
 */

const BATCH = 500;
const FLOOD = 10_000;
const PUMPS = 4;
const BUDGET_MS = 30_000;
const CATCH_UP_MS = 30_000;

async function pumps(api: BenchTenant, label: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < PUMPS; i++) {
    const asset = await call(api, '/api/v1/assets', { method: 'POST', json: { name: `${label} pump ${i}`, type: 'pump' } });
    await call(api, `/api/v1/assets/${asset.id}/baselines`, {
      method: 'POST',
      json: { parameter: 'vibration', baseline_value: 2.5, tolerance_percent: 20, measurement_unit: 'mm/s' },
    });
    ids.push(asset.id);
  }
  return ids;
}

/** Pumps each watched by a condition and a predictive plan on their vibration: the pumps and the plans' ids. */
export async function watchedPumps(api: BenchTenant): Promise<{ assetIds: string[]; plans: string[] }> {
  const assetIds = await pumps(api, 'Watched');
  const plans: string[] = [];
  for (const assetId of assetIds) {
    for (const trigger of [
      { type: 'condition', parameter: 'vibration', above: 3, for_minutes: 10 },
      { type: 'predictive', parameter: 'vibration', lead_days: 1, min_probability: 0.5 },
    ]) {
      plans.push((await call(api, '/api/v1/maintenance/plans', { method: 'POST', json: { name: `${trigger.type} ${assetId}`, asset_ids: [assetId], trigger } })).id);
    }
  }
  return { assetIds, plans };
}

/** The flood: batches over the pumps one after the other, vibration rising from 2.5 past the band; readings per second. */
export async function flood(api: BenchTenant, assetIds: readonly string[], runId: string): Promise<{ readings: number; seconds: number }> {
  const start = Date.now() - FLOOD * 1000;
  const started = Date.now();
  let stored = 0;
  for (let b = 0; b * BATCH < FLOOD && Date.now() - started < BUDGET_MS; b++) {
    const readings = Array.from({ length: BATCH }, (_, i) => {
      const n = b * BATCH + i;
      return {
        event_id: `${runId}-${n}`,
        asset_id: assetIds[n % assetIds.length],
        parameter: 'vibration',
        value: Math.round((2.5 + (1.5 * n) / FLOOD + Math.sin(n / 7) * 0.05) * 1e4) / 1e4,
        timestamp: new Date(start + n * 1000).toISOString(),
        source: 'bench',
      };
    });
    stored += (await call(api, '/api/v1/machine/readings/batch', { method: 'POST', json: { readings } })).stored;
  }
  return { readings: stored, seconds: (Date.now() - started) / 1000 };
}

export async function runReadingsPlansBenchOn(deps: AppDeps): Promise<Record<string, number | string>> {
  return withBenchTenant(deps, 'Readings-plans', async (api) => {
    const runId = `rp-${randomUUID().slice(0, 8)}`;
    const plain = await pumps(api, 'Unwatched');
    const { assetIds: watched, plans } = await watchedPumps(api);
    const without = await flood(api, plain, `${runId}-a`);
    const withPlans = await flood(api, watched, `${runId}-b`);

    // One predictive plan's workflow: once its history has stopped growing for 2 s (at most 30 s), count.
    const client = await deps.temporal.client();
    const handle = client.workflow.getHandle(workflowIds.maintenancePlan(api.tenantId, plans[1]!));
    const waitFrom = Date.now();
    let events = (await handle.fetchHistory()).events ?? [];
    for (let stableSince = Date.now(); Date.now() - stableSince < 2_000 && Date.now() - waitFrom < CATCH_UP_MS;) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      const now = (await handle.fetchHistory()).events ?? [];
      if (now.length !== events.length) stableSince = Date.now();
      events = now;
    }
    const signals = events.filter((e) => e.workflowExecutionSignaledEventAttributes).length;
    const activities = events.filter((e) => e.activityTaskScheduledEventAttributes).length;
    const tasks = await call(api, `/api/v1/maintenance/tasks?limit=100`);
    const rate = (p: { readings: number; seconds: number }) => Math.round(p.readings / p.seconds);
    return {
      readings_per_s_without_plans: rate(without),
      readings_per_s_with_plans: rate(withPlans),
      ratio_with_to_without: Math.round((rate(withPlans) / rate(without)) * 100) / 100,
      plans_watching: plans.length,
      flood_readings: withPlans.readings,
      flood_batches: Math.ceil(withPlans.readings / BATCH),
      one_plan_signals: signals,
      one_plan_history_events: events.length,
      one_plan_forecast_activities: activities,
      work_orders_made: tasks.total,
    };
  });
}
