/**
 * Seeds the demo plant through the public API as the demo tenant's admin (issue 24): the assets of
 * demo/plant.ts in their tree with baselines, three maintenance plans (run hours, one calendar
 * plan coming due minutes after the seed, a weekly one), a webhook to the local receiver, a machine
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
import { DemoApiClient } from './api-client';
import { DEGRADING_PUMP, DEMO_AGENT, DEMO_ASSETS, DEMO_BRANDING, DEMO_SCHEDULED_REPORT, DEMO_WEBHOOK_EVENTS, RUN_HOURS_EVERY, RUN_HOURS_PLAN } from './plant';
import { DemoState, readDemoState } from './state';

const COMPRESSOR = 'Air compressor C-201';
const SOON_PLAN = 'Lubricate P-101 bearings (due minutes after the seed)';
const WEEKLY_PLAN = 'Weekly safety walk of Line 2';

interface Named {
  id: string;
  name: string;
}

export async function seedPlant(api: DemoApiClient, webhookUrl: string, previous: DemoState | null): Promise<{ state: DemoState; created: string[]; kept: string[] }> {
  const created: string[] = [];
  const kept: string[] = [];
  const ensure = async <T extends Named>(what: string, existing: T | undefined, create: () => Promise<T>): Promise<T> => {
    if (existing) {
      kept.push(what);
      return existing;
    }
    created.push(what);
    return create();
  };

  // Assets, parents first (DEMO_ASSETS is in that order), with their baselines.
  const assets = new Map((await api.all<Named>('/api/v1/assets')).map((a) => [a.name, a]));
  const assetIds = new Map<string, string>();
  for (const asset of DEMO_ASSETS) {
    const parentId = asset.parent === null ? null : assetIds.get(asset.parent)!;
    const row = await ensure(`asset ${asset.name}`, assets.get(asset.name), () =>
      api.call('POST', '/api/v1/assets', { name: asset.name, type: asset.type, parent_id: parentId, metadata: { demo: true } }),
    );
    assetIds.set(asset.name, row.id);
    if (asset.parameters.length === 0) continue;
    const baselines = new Set((await api.all<{ parameter: string }>(`/api/v1/assets/${row.id}/baselines`)).map((b) => b.parameter));
    for (const p of asset.parameters) {
      if (baselines.has(p.parameter)) continue;
      created.push(`baseline ${asset.name} ${p.parameter}`);
      await api.call('POST', `/api/v1/assets/${row.id}/baselines`, {
        parameter: p.parameter,
        baseline_value: p.baseline,
        tolerance_percent: p.tolerancePercent,
        measurement_unit: p.unit,
      });
    }
  }

  // Maintenance plans: by run hours (the gateway counts them), one due minutes from now, a weekly one.
  const plans = new Map((await api.all<Named>('/api/v1/maintenance/plans')).map((p) => [p.name, p]));
  const inMinutes = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();
  const runHoursPlan = await ensure(`plan ${RUN_HOURS_PLAN}`, plans.get(RUN_HOURS_PLAN), () =>
    api.call('POST', '/api/v1/maintenance/plans', {
      name: RUN_HOURS_PLAN,
      asset_ids: [assetIds.get(COMPRESSOR)],
      trigger: { type: 'counter', counter: 'operating_hours', unit: 'h', every: RUN_HOURS_EVERY, start_value: 0 },
      checklist: ['Replace the air filter', 'Check the belt tension', 'Drain the condensate'],
      priority: 'high',
    }),
  );
  await ensure(`plan ${SOON_PLAN}`, plans.get(SOON_PLAN), () =>
    api.call('POST', '/api/v1/maintenance/plans', {
      name: SOON_PLAN,
      asset_ids: [assetIds.get(DEGRADING_PUMP)],
      trigger: { type: 'calendar', every: 4, unit: 'weeks', start_at: inMinutes(2), mode: 'fixed' },
      checklist: ['Grease both bearings', 'Listen for noise'],
    }),
  );
  await ensure(`plan ${WEEKLY_PLAN}`, plans.get(WEEKLY_PLAN), () =>
    api.call('POST', '/api/v1/maintenance/plans', {
      name: WEEKLY_PLAN,
      asset_ids: [assetIds.get('Line 2 - Packaging')],
      trigger: { type: 'calendar', every: 1, unit: 'weeks', start_at: inMinutes(24 * 60), mode: 'fixed' },
    }),
  );

  // The webhook to the local receiver. Its secret is shown once: kept in the state file; when that
  // is lost, rotated to learn a new one.
  const hooks = await api.all<Named & { url: string }>('/api/v1/integrations/webhooks');
  const existingHook = hooks.find((h) => h.url === webhookUrl);
  let hook: Named;
  let secret: string;
  if (!existingHook) {
    created.push('webhook');
    const made = await api.call('POST', '/api/v1/integrations/webhooks', { url: webhookUrl, events: DEMO_WEBHOOK_EVENTS, description: 'Demo receiver (npm run up)' });
    [hook, secret] = [made, made.secret];
  } else {
    kept.push('webhook');
    hook = existingHook;
    const known = previous?.webhookId === hook.id ? previous.webhookSecret : undefined;
    secret = known ?? (await api.call('POST', `/api/v1/integrations/webhooks/${hook.id}/rotate-secret`)).secret;
  }

  const agents = new Map((await api.all<Named>('/api/v1/agents')).map((a) => [a.name, a]));
  await ensure(`agent ${DEMO_AGENT}`, agents.get(DEMO_AGENT), () =>
    api.call('POST', '/api/v1/agents', {
      name: DEMO_AGENT,
      type: 'machine',
      system_prompt: 'An alert was raised on a monitored asset. Say what to check first and whether to stop the machine.',
      trigger_config: { event_types: ['asset.alert.raised'], cooldown_minutes: 60 },
    }),
  );

  const brandings = new Map((await api.all<Named>('/api/v1/brandings')).map((b) => [b.name, b]));
  const branding = await ensure(`branding ${DEMO_BRANDING}`, brandings.get(DEMO_BRANDING), () =>
    api.call('POST', '/api/v1/brandings', {
      name: DEMO_BRANDING,
      company_name: 'North Works Manufacturing',
      primary_color: '#0B6E4F',
      accent_color: '#F2A541',
      footer_text: 'Demo data',
    }),
  );
  const scheduled = new Map((await api.all<Named>('/api/v1/scheduled-reports')).map((r) => [r.name, r]));
  await ensure(`scheduled report ${DEMO_SCHEDULED_REPORT}`, scheduled.get(DEMO_SCHEDULED_REPORT), () =>
    api.call('POST', '/api/v1/scheduled-reports', {
      name: DEMO_SCHEDULED_REPORT,
      report_type: 'open_alerts',
      format: 'pdf',
      branding_id: branding.id,
      schedule: { cron: '0 6 * * 1' },
      time_zone: 'UTC',
      recipients: ['maintenance@demo.example.com'],
    }),
  );
  // One report at once, so the object store has a file to look at in the first minute.
  if ((await api.call<{ total: number }>('GET', '/api/v1/reports?limit=1')).total === 0) {
    created.push('report');
    await api.call('POST', '/api/v1/reports', { type: 'asset_health', format: 'pdf', branding_id: branding.id });
  }

  const state: DemoState = {
    webhookId: hook.id,
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
  const api = new DemoApiClient(need('DEMO_API_ORIGIN'), need('DEMO_ADMIN_EMAIL'), need('DEMO_ADMIN_PASSWORD'));
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
