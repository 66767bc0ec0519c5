import { randomUUID } from 'node:crypto';
import { createTenant, startTestApi, TestApi, TestTenant } from '../support/api';
import { untilPasses } from '../support/until';

jest.setTimeout(600_000);
let api: TestApi;
let tenant: TestTenant;
beforeAll(async () => {
  api = await startTestApi();
  tenant = await createTenant(api);
});
afterAll(() => api.close());

async function pump(): Promise<string> {
  const a = await api.request('/api/v1/assets', { method: 'POST', token: tenant.token, json: { name: `P ${randomUUID().slice(0, 4)}`, type: 'pump' } });
  await api.request(`/api/v1/assets/${a.body.id}/baselines`, { method: 'POST', token: tenant.token, json: { parameter: 'vibration', baseline_value: 2, tolerance_percent: 50 } });
  return a.body.id;
}

async function flood(asset: string, n: number, batch: number): Promise<{ ms: number; last: string }> {
  const start = Date.now() - 2 * n * 1000;
  const t0 = Date.now();
  let last = '';
  for (let b = 0; b < n; b += batch) {
    const readings = Array.from({ length: batch }, (_, k) => {
      const i = b + k;
      last = new Date(start + i * 1000).toISOString();
      return { event_id: randomUUID(), asset_id: asset, parameter: 'vibration', value: i % 50 < 25 ? 4 : 2, timestamp: last };
    });
    const res = await api.request('/api/v1/machine/readings/batch', { method: 'POST', token: tenant.token, json: { readings } });
    expect(res.status).toBe(200);
  }
  return { ms: Date.now() - t0, last };
}

it('measures', async () => {
  const N = 10_000;
  const B = 500;
  const plain = await pump();
  await flood(plain, 1000, B); // warm-up
  const without = await flood(plain, N, B);
  const watched = await pump();
  const plan = await api.request('/api/v1/maintenance/plans', {
    method: 'POST',
    token: tenant.token,
    json: { name: 'c', asset_ids: [watched], trigger: { type: 'condition', parameter: 'vibration', above: 3.5, for_minutes: 10 } },
  });
  expect(plan.status).toBe(201);
  const withPlan = await flood(watched, N, B);
  const client = await api.deps.temporal.client();
  const handle = client.workflow.getHandle(`maintenance-plan/${tenant.tenantId}/${plan.body.id}`);
  const t1 = Date.now();
  await untilPasses(async () => {
    const view: any = await handle.query('state');
    expect(view.schedule.condition.assets[watched]?.last_at).toBe(withPlan.last);
  }, 300_000);
  const drained = Date.now() - t1;
  const events = (await handle.fetchHistory()).events ?? [];
  const signals = events.filter((e) => e.workflowExecutionSignaledEventAttributes).length;
  const executions = await api.deps.db('maintenance_executions').where({ plan_id: plan.body.id }).count('* as n');
  console.log(
    JSON.stringify({
      readings: N,
      batch: B,
      without_plan_readings_per_s: Math.round((N / without.ms) * 1000),
      with_condition_plan_readings_per_s: Math.round((N / withPlan.ms) * 1000),
      plan_caught_up_after_last_batch_ms: drained,
      signals,
      history_events: events.length,
      executions: executions[0],
    }),
  );
});
