/**
 * The first run's demo (issue 24), end to end on the suite's stack: the receiver and the gateway
 * run as the processes `npm run up` starts (from dist/demo), the seed goes through the public API
 * as the tenant's admin. Within a bounded time: the plant is there, readings keep arriving, the
 * degrading pump raises an alert and the machine agent runs on it, a webhook delivery is recorded
 * as delivered and one as retried after a refused first attempt, the run-hours plan creates a work
 * order, and the pump's prognostics give it a finite remaining life. A second seed creates nothing. The gateway runs faster than under `npm run up`
 * (500 ms ticks, a steeper degradation); the receiver's retry comes after the real 30 s timer.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import runnerLib = require('../../scripts/lib/process-runner.cjs');
import { DEGRADING_PUMP, DEMO_AGENT, DEMO_ASSETS, PREDICTIVE_PLAN, RUN_HOURS_PLAN } from '../../demo/plant';
import { createTenant, startTestApi, TestApi, TestTenant } from '../support/api';
import { until } from '../support/until';

jest.setTimeout(240_000);

const ROOT = path.resolve(__dirname, '../..');
const runner = new runnerLib.ProcessRunner({ log: () => undefined, graceMs: 5_000 });
let api: TestApi;
let tenant: TestTenant;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  api = await startTestApi();
  tenant = await createTenant(api);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'industrial-ops-demo-'));
  env = {
    ...process.env,
    DEMO_API_ORIGIN: api.baseUrl,
    DEMO_ADMIN_EMAIL: tenant.email,
    DEMO_ADMIN_PASSWORD: tenant.password,
    DEMO_STATE_FILE: path.join(dir, 'demo.json'),
  } as Record<string, string>;
  const receiver = runner.start('receiver', process.execPath, [path.join(ROOT, 'dist/demo/webhook-receiver.js')], {
    env: { ...env, DEMO_WEBHOOK_PORT: '0' },
    echo: false,
    logFile: path.join(ROOT, '.run/demo-receiver.log'),
  });
  const listening = await runnerLib.waitForLine(receiver, (line) => line.includes('demo webhook receiver listening'), 30_000, 'the receiver URL');
  env.DEMO_WEBHOOK_URL = JSON.parse(listening).url;
});

afterAll(async () => {
  await runner.stopAll();
  await api?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

async function seed(): Promise<{ created: number; kept: number; created_items: string[] }> {
  const lines = await runner.run('seed', process.execPath, [path.join(ROOT, 'dist/demo/seed-plant.js')], { env, echo: false });
  return JSON.parse(lines.filter((line) => line.startsWith('{')).pop()!);
}

const get = async (p: string) => {
  const res = await api.request(p, { token: tenant.token });
  expect(res.status).toBe(200);
  return res.body;
};

it('seeds a plant whose data moves: alert, agent run, work order, deliveries with a retry; a second seed adds nothing', async () => {
  const first = await seed();
  expect(first.kept).toBe(0);
  expect(first.created_items).toEqual(expect.arrayContaining([`asset ${DEGRADING_PUMP}`, `plan ${RUN_HOURS_PLAN}`, 'webhook', `agent ${DEMO_AGENT}`, 'report']));

  const tree = await get('/api/v1/assets?limit=100');
  expect(tree.total).toBe(DEMO_ASSETS.length);
  const pump = tree.items.find((a: { name: string }) => a.name === DEGRADING_PUMP);
  expect(pump.parent_id).toBe(tree.items.find((a: { name: string }) => a.name === 'Line 1 - Extrusion').id);

  runner.start('gateway', process.execPath, [path.join(ROOT, 'dist/demo/gateway.js')], {
    env: { ...env, DEMO_GATEWAY_INTERVAL_MS: '500', DEMO_DEGRADATION_PER_TICK: '0.04' },
    echo: false,
    logFile: path.join(ROOT, '.run/demo-gateway.log'),
  });
  const readings = () =>
    api.deps
      .db('sensor_readings')
      .where({ tenant_id: tenant.tenantId })
      .count({ n: '*' })
      .then((rows) => Number(rows[0]!.n));
  const early = await until(readings, (n) => n > 0, 'the first readings', 30_000, 200);
  await until(readings, (n) => n > early, 'more readings', 30_000, 200);

  // The degrading pump leaves its vibration band: an alert, a lower health, the agent's run.
  const alerts = await until(
    () => get(`/api/v1/assets/${pump.id}/alerts?status=unresolved`),
    (page) => page.total > 0,
    'an alert on the degrading pump',
    60_000,
    500,
  );
  expect(alerts.items[0]).toMatchObject({ parameter: 'vibration', direction: 'above' });
  const health = await get(`/api/v1/assets/${pump.id}/health`);
  expect(health.health_score).toBeLessThan(100);
  await until(
    () =>
      api.deps
        .db('machine_agent_runs')
        .where({ tenant_id: tenant.tenantId })
        .count({ n: '*' })
        .then((rows) => Number(rows[0]!.n)),
    (n) => n >= 1,
    'the machine agent to run on the alert',
    60_000,
    500,
  );

  // The run-hours plan comes due: a work order.
  const tasks = await until(
    () => get('/api/v1/maintenance/tasks?limit=100'),
    (page) => page.total >= 1,
    'a work order from run hours',
    60_000,
    500,
  );
  expect(tasks.items.some((t: { plan_id: string | null }) => t.plan_id !== null)).toBe(true);

  // Deliveries: verified and accepted, and one refused on its first attempt and accepted 30 s later.
  const deliveries = () => api.deps.db('webhook_deliveries').where({ tenant_id: tenant.tenantId }).select('delivery_id', 'attempt', 'status');
  const log = await until(
    deliveries,
    (rows) => rows.some((r) => r.attempt === 2 && r.status === 'succeeded') && rows.some((r) => r.attempt === 1 && r.status === 'succeeded'),
    'a delivered and a retried delivery',
    90_000,
    1_000,
  );
  const retried = log.find((r) => r.attempt === 2 && r.status === 'succeeded')!;
  expect(log).toContainEqual({ delivery_id: retried.delivery_id, attempt: 1, status: 'failed' });
  const receiverLines = fs
    .readFileSync(path.join(ROOT, '.run/demo-receiver.log'), 'utf8')
    .split('\n')
    .filter((l) => l.includes('webhook delivery'));
  expect(receiverLines.every((l) => l.includes('"signature":"ok"') && l.includes('"standard_webhooks":"ok"'))).toBe(true);

  // Its prognostics: a finite remaining life (0 once its trend is past the band edge), driven by the
  // vibration, fitted over the gateway's uploaded history and what followed.
  const prognostics = await until(
    () => get(`/api/v1/assets/${pump.id}/prognostics`),
    (p) => typeof p.remaining_useful_life === 'number',
    'a finite remaining life',
    60_000,
    1_000,
  );
  expect(prognostics).toMatchObject({ status: 'ok', model_version: 'degradation-trend-v2' });
  expect(prognostics.drivers[0]).toMatchObject({ parameter: 'vibration', limit_kind: 'upper' });

  // Its predictive plan: a work order from that prognosis, with what the prognosis saw.
  const predictivePlan = (await get('/api/v1/maintenance/plans?limit=100')).items.find((p: { name: string }) => p.name === PREDICTIVE_PLAN);
  const predicted = await until(
    () => get(`/api/v1/maintenance/plans/${predictivePlan.id}/history`),
    (page) => page.total >= 1,
    'a predictive work order',
    60_000,
    1_000,
  );
  expect(predicted.items[0]).toMatchObject({
    cause: 'predictive',
    outcome: 'created',
    evidence: { asset_id: pump.id, parameter: 'vibration', model_version: 'degradation-trend-v2' },
  });

  // A second start seeds nothing twice.
  const second = await seed();
  expect(second).toMatchObject({ created: 0 });
  expect((await get('/api/v1/assets?limit=100')).total).toBe(DEMO_ASSETS.length);
  expect((await get('/api/v1/integrations/webhooks')).total).toBe(1);
});
