/**
 * Seeds the demo plant through the public API as the demo tenant's admin (issue 24): the assets of
 * demo/plant.ts in their tree with baselines, four maintenance plans (run hours, one calendar
 * plan coming due minutes after the seed, a condition plan on the degrading pump, a weekly one), a webhook to the local receiver, a machine
 * agent on alerts, a branding, a scheduled report and one report right away. Idempotent: whatever
 * exists by name is kept, so a second start creates nothing.
 *
 * Writes the demo's state (ids, the webhook secret shown once) to DEMO_STATE_FILE for the gateway
 * and the receiver, and prints one JSON line: what it created and what it kept.
 *
 * Environment: DEMO_API_ORIGIN, DEMO_ADMIN_EMAIL, DEMO_ADMIN_PASSWORD, DEMO_WEBHOOK_URL,
 * DEMO_STATE_FILE.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ApiClient, paths } from '../client';
import { all, demoApiClient, ok } from './api-client';
import {
  CONDITION_LIMIT,
  CONDITION_MINUTES,
  CONDITION_PLAN,
  DEGRADING_PUMP,
  DEMO_AGENT,
  DEMO_ASSETS,
  DEMO_BRANDING,
  DEMO_SCHEDULED_REPORT,
  DEMO_WEBHOOK_EVENTS,
  PREDICTIVE_LEAD_DAYS,
  PREDICTIVE_MIN_PROBABILITY,
  PREDICTIVE_PLAN,
  RUN_HOURS_EVERY,
  RUN_HOURS_PLAN,
} from './plant';
import { DemoState, readDemoState } from './state';

const COMPRESSOR = 'Air compressor C-201';
type PlanBody = paths['/api/v1/maintenance/plans']['post']['requestBody']['content']['application/json'];
const SOON_PLAN = 'Lubricate P-101 bearings (due minutes after the seed)';
const WEEKLY_PLAN = 'Weekly safety walk of Line 2';

interface Named {
  id?: string;
  name?: string;
}

export async function seedPlant(api: ApiClient, webhookUrl: string, previous: DemoState | null): Promise<{ state: DemoState; created: string[]; kept: string[] }> {
  const created: string[] = [];
  const kept: string[] = [];
  const ensure = async <T extends Named>(what: string, existing: T | undefined, create: () => Promise<T>): Promise<T & { id: string }> => {
    if (existing) {
      kept.push(what);
      return existing as T & { id: string };
    }
    created.push(what);
    return (await create()) as T & { id: string };
  };
  const byName = <T extends Named>(rows: T[]) => new Map(rows.map((row) => [row.name, row]));

  // Assets, parents first (DEMO_ASSETS is in that order), with their baselines.
  const assets = byName(await all((query) => api.GET('/api/v1/assets', { params: { query } })));
  const assetIds = new Map<string, string>();
  for (const asset of DEMO_ASSETS) {
    const parentId = asset.parent === null ? null : assetIds.get(asset.parent)!;
    const row = await ensure(`asset ${asset.name}`, assets.get(asset.name), () =>
      ok(api.POST('/api/v1/assets', { body: { name: asset.name, type: asset.type, parent_id: parentId } })),
    );
    assetIds.set(asset.name, row.id);
    if (asset.parameters.length === 0) continue;
    const path = { asset_id: row.id };
    const baselines = new Set((await all((query) => api.GET('/api/v1/assets/{asset_id}/baselines', { params: { path, query } }))).map((b) => b.parameter));
    for (const p of asset.parameters) {
      if (baselines.has(p.parameter)) continue;
      created.push(`baseline ${asset.name} ${p.parameter}`);
      await ok(
        api.POST('/api/v1/assets/{asset_id}/baselines', {
          params: { path },
          body: { parameter: p.parameter, baseline_value: p.baseline, tolerance_percent: p.tolerancePercent, measurement_unit: p.unit },
        }),
      );
    }
  }

  // Maintenance plans: by run hours (the gateway counts them), one due minutes from now, two on the
  // degrading pump's vibration (its condition and its prognosis), a weekly one.
  const plans = byName(await all((query) => api.GET('/api/v1/maintenance/plans', { params: { query } })));
  const inMinutes = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();
  /** The plan of that name, created with `body` unless it exists. */
  const ensurePlan = (body: PlanBody) => ensure(`plan ${body.name}`, plans.get(body.name), () => ok(api.POST('/api/v1/maintenance/plans', { body })));
  const runHoursPlan = await ensurePlan({
    name: RUN_HOURS_PLAN,
    asset_ids: [assetIds.get(COMPRESSOR)!],
    trigger: { type: 'counter', counter: 'operating_hours', unit: 'h', every: RUN_HOURS_EVERY, start_value: 0 },
    checklist: ['Replace the air filter', 'Check the belt tension', 'Drain the condensate'],
    priority: 'high',
  });
  await ensurePlan({
    name: SOON_PLAN,
    asset_ids: [assetIds.get(DEGRADING_PUMP)!],
    trigger: { type: 'calendar', every: 4, unit: 'weeks', start_at: inMinutes(2), mode: 'fixed' },
    checklist: ['Grease both bearings', 'Listen for noise'],
  });
  await ensurePlan({
    name: CONDITION_PLAN,
    asset_ids: [assetIds.get(DEGRADING_PUMP)!],
    trigger: { type: 'condition', parameter: 'vibration', above: CONDITION_LIMIT, for_minutes: CONDITION_MINUTES },
    checklist: ['Measure the bearing vibration by hand', 'Check the coupling alignment'],
    priority: 'high',
  });
  await ensurePlan({
    name: PREDICTIVE_PLAN,
    asset_ids: [assetIds.get(DEGRADING_PUMP)!],
    trigger: { type: 'predictive', parameter: 'vibration', lead_days: PREDICTIVE_LEAD_DAYS, min_probability: PREDICTIVE_MIN_PROBABILITY },
    checklist: ['Plan the bearing replacement', 'Order the spare bearing set'],
    priority: 'high',
  });
  await ensurePlan({
    name: WEEKLY_PLAN,
    asset_ids: [assetIds.get('Line 2 - Packaging')!],
    trigger: { type: 'calendar', every: 1, unit: 'weeks', start_at: inMinutes(24 * 60), mode: 'fixed' },
  });

  // The webhook to the local receiver. Its secret is shown once: kept in the state file; when that
  // is lost, rotated to learn a new one.
  const hooks = await all((query) => api.GET('/api/v1/integrations/webhooks', { params: { query } }));
  const existingHook = hooks.find((h) => h.url === webhookUrl);
  let hookId: string;
  let secret: string;
  if (!existingHook) {
    created.push('webhook');
    const made = await ok(api.POST('/api/v1/integrations/webhooks', { body: { url: webhookUrl, events: DEMO_WEBHOOK_EVENTS, description: 'Demo receiver (npm run up)' } }));
    [hookId, secret] = [made.id!, made.secret!];
  } else {
    kept.push('webhook');
    hookId = existingHook.id!;
    const known = previous?.webhookId === hookId ? previous.webhookSecret : undefined;
    secret = known ?? (await ok(api.POST('/api/v1/integrations/webhooks/{webhook_id}/rotate-secret', { params: { path: { webhook_id: hookId } } }))).secret!;
  }

  const agents = byName(await all((query) => api.GET('/api/v1/agents', { params: { query } })));
  await ensure(`agent ${DEMO_AGENT}`, agents.get(DEMO_AGENT), () =>
    ok(
      api.POST('/api/v1/agents', {
        body: {
          name: DEMO_AGENT,
          type: 'machine',
          system_prompt: 'An alert was raised on a monitored asset. Say what to check first and whether to stop the machine.',
          trigger_config: { event_types: ['asset.alert.raised'], cooldown_minutes: 60 },
        },
      }),
    ),
  );

  const brandings = byName(await all((query) => api.GET('/api/v1/brandings', { params: { query } })));
  const branding = await ensure(`branding ${DEMO_BRANDING}`, brandings.get(DEMO_BRANDING), () =>
    ok(
      api.POST('/api/v1/brandings', {
        body: { name: DEMO_BRANDING, company_name: 'North Works Manufacturing', primary_color: '#0B6E4F', accent_color: '#F2A541', footer_text: 'Demo data' },
      }),
    ),
  );
  const scheduled = byName(await all((query) => api.GET('/api/v1/scheduled-reports', { params: { query } })));
  await ensure(`scheduled report ${DEMO_SCHEDULED_REPORT}`, scheduled.get(DEMO_SCHEDULED_REPORT), () =>
    ok(
      api.POST('/api/v1/scheduled-reports', {
        body: {
          name: DEMO_SCHEDULED_REPORT,
          report_type: 'open_alerts',
          format: 'pdf',
          branding_id: branding.id,
          schedule: { cron: '0 6 * * 1' },
          time_zone: 'UTC',
          recipients: ['maintenance@demo.example.com'],
        },
      }),
    ),
  );
  // One report at once, so the object store has a file to look at in the first minute.
  if ((await ok(api.GET('/api/v1/reports', { params: { query: { limit: 1 } } }))).total === 0) {
    created.push('report');
    await ok(api.POST('/api/v1/reports', { body: { type: 'asset_health', format: 'pdf', branding_id: branding.id } }));
  }

  const state: DemoState = {
    webhookId: hookId,
    webhookSecret: secret,
    assetIds: Object.fromEntries(assetIds),
    runHoursPlanId: runHoursPlan.id,
  };
  return { state, created, kept };
}

async function main(): Promise<void> {
  const need = (name: string) => {
    const value = process.env[name];
    if (!value) throw new Error(`${name} is required`);
    return value;
  };
  const stateFile = need('DEMO_STATE_FILE');
  const api = demoApiClient(need('DEMO_API_ORIGIN'), need('DEMO_ADMIN_EMAIL'), need('DEMO_ADMIN_PASSWORD'));
  const { state, created, kept } = await seedPlant(api, need('DEMO_WEBHOOK_URL'), readDemoState(stateFile));
  fs.mkdirSync(path.dirname(stateFile), { recursive: true });
  fs.writeFileSync(stateFile, JSON.stringify(state, null, 2) + '\n', { mode: 0o600 });
  process.stdout.write(`${JSON.stringify({ created: created.length, kept: kept.length, created_items: created })}\n`);
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
