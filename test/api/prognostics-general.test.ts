/**
 * The general prognostics model end to end (issue 20): readings through the gateway's batch
 * endpoint, a baseline, and GET /prognostics for a pump whose vibration rises (a finite RUL with
 * its evidence) and for one whose vibration is flat (no finite RUL, a low probability); the asset
 * type's corrective tasks as a failure prior, counted in the tenant only.
 */
import { randomUUID } from 'node:crypto';
import { createCorrectiveTask } from '../../db/queries/corrective-tasks';
import { createTenant, expectError, startTestApi, TestApi, TestTenant } from '../support/api';

const DAY = 86_400_000;
let api: TestApi;
let tenant: TestTenant;

beforeAll(async () => {
  api = await startTestApi();
  tenant = await createTenant(api);
});
afterAll(() => api?.close());

async function pumpWithVibration(level: (day: number) => number, type = 'pump', owner = tenant): Promise<string> {
  const created = await api.request('/api/v1/assets', { method: 'POST', token: owner.token, json: { name: `Pump ${randomUUID().slice(0, 6)}`, type } });
  const id = created.body.id;
  const baseline = await api.request(`/api/v1/assets/${id}/baselines`, {
    method: 'POST',
    token: owner.token,
    json: { parameter: 'vibration', baseline_value: 2.5, tolerance_percent: 20, measurement_unit: 'mm/s' },
  });
  expect(baseline.status).toBe(201);
  // 30 days, every 2 hours (361 readings, in batches of at most 500), with ±2 % of noise.
  const now = Date.now();
  const readings = Array.from({ length: 361 }, (_, i) => {
    const day = i / 12;
    const noise = 1 + 0.02 * Math.sin(i * 12.9898);
    return {
      event_id: `gw-${randomUUID()}`,
      asset_id: id,
      parameter: 'vibration',
      value: Math.round(level(day) * noise * 1000) / 1000,
      unit: 'mm/s',
      timestamp: new Date(now - (30 - day) * DAY).toISOString(),
      source: 'gw-1',
    };
  });
  const ingested = await api.request('/api/v1/machine/readings/batch', { method: 'POST', token: owner.token, json: { readings } });
  expect(ingested.status).toBe(200);
  return id;
}

it('projects a rising vibration to the edge of its baseline band, with the evidence', async () => {
  // From 2.0 to 2.8 mm/s over 30 days (0.0267 a day): the band's upper edge 3.0 in about 7.5 days.
  const pump = await pumpWithVibration((day) => 2 + (0.8 * day) / 30);
  const res = await api.request(`/api/v1/assets/${pump}/prognostics`, { token: tenant.token });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ status: 'ok', model_version: 'degradation-trend-v2', horizon_days: 30, reason: null });
  expect(res.body.remaining_useful_life).toBeGreaterThan(5);
  expect(res.body.remaining_useful_life).toBeLessThan(10);
  expect(res.body.failure_probability).toBeGreaterThan(0.9);
  expect(res.body.recommended_action).toBe('immediate_maintenance');
  expect(res.body.drivers[0]).toMatchObject({ parameter: 'vibration', shape: 'linear', limit: 3, limit_kind: 'upper', limit_source: 'baseline_band', readings: 361 });
  expect(res.body.drivers[0].days).toBeCloseTo(30, 0);
  expect(new Date(res.body.projected_crossing_at).getTime()).toBeGreaterThan(Date.now() + 5 * DAY);
  expect(res.body.evidence).toEqual({ parameters: 1, readings: 361, days: res.body.drivers[0].days });
});

it('projects to the failure limit of the predictive config where one is set, instead of the band edge', async () => {
  const type = `pump-${randomUUID().slice(0, 6)}`;
  const put = await api.request(`/api/v1/predictive-config/${type}`, { method: 'PUT', token: tenant.token, json: { failure_limits: { vibration: { upper: 2.9 } } } });
  expect(put.status).toBe(200);
  expect(put.body.failure_limits).toEqual({ vibration: { upper: 2.9 } });
  const pump = await pumpWithVibration((day) => 2 + (0.8 * day) / 30, type);
  const res = await api.request(`/api/v1/assets/${pump}/prognostics`, { token: tenant.token });
  expect(res.body.drivers[0]).toMatchObject({ parameter: 'vibration', limit: 2.9, limit_source: 'predictive_config' });
  // 0.1 below the band's edge at 0.0267 a day: about 3.75 days sooner than the 7.5 of the band.
  expect(res.body.remaining_useful_life).toBeGreaterThan(2);
  expect(res.body.remaining_useful_life).toBeLessThan(6);
  expectError(await api.request(`/api/v1/predictive-config/${type}`, { method: 'PUT', token: tenant.token, json: { failure_limits: { vibration: {} } } }), 422, 'VALIDATION_ERROR');
});

it('gives a flat vibration no finite RUL and a low probability', async () => {
  const pump = await pumpWithVibration(() => 2.5);
  const res = await api.request(`/api/v1/assets/${pump}/prognostics`, { token: tenant.token });
  expect(res.body).toMatchObject({ status: 'ok', remaining_useful_life: null, projected_crossing_at: null, recommended_action: 'continue_operation' });
  expect(res.body.failure_probability).toBeLessThanOrEqual(0.05);
});

it('keeps another tenant out', async () => {
  const pump = await pumpWithVibration(() => 2.5);
  const other = await createTenant(api);
  expectError(await api.request(`/api/v1/assets/${pump}/prognostics`, { token: other.token }), 404, 'NOT_FOUND');
});

/** Pumps of `type` registered a year and a month ago, with `repairs` corrective tasks opened on them (and one cancelled). */
async function fleetWithRepairs(owner: TestTenant, type: string, pumps: number, repairs: number): Promise<void> {
  const ids: string[] = [];
  for (let i = 0; i < pumps; i++) {
    const res = await api.request('/api/v1/assets', { method: 'POST', token: owner.token, json: { name: `Fleet pump ${i}`, type } });
    ids.push(res.body.id);
  }
  await api.deps
    .db('assets')
    .whereIn('id', ids)
    .update({ created_at: new Date(Date.now() - 400 * DAY) });
  await api.deps.db.transaction(async (tx) => {
    for (let i = 0; i <= repairs; i++) {
      const task = await createCorrectiveTask(tx, {
        tenantId: owner.tenantId,
        assetId: ids[i % pumps]!,
        title: `Repair ${i}`,
        priority: 'high',
        dueAt: new Date(),
        createdBy: 'machine_agent',
        agentId: randomUUID(),
      });
      if (i === repairs) await tx('maintenance_tasks').where({ id: task.id }).update({ status: 'cancelled' }); // opened by mistake: not a failure
    }
  });
}

it("adds the asset type's corrective history as a failure prior, from this tenant only", async () => {
  const type = `pump-${randomUUID().slice(0, 6)}`;
  // 4 pumps of the type for a year with 8 repairs: 2 per pump-year. Another tenant's pumps of the
  // same type name, repaired 40 times, are not this tenant's history.
  await fleetWithRepairs(tenant, type, 4, 8);
  const other = await createTenant(api);
  await fleetWithRepairs(other, type, 2, 40);
  const flat = await pumpWithVibration(() => 2.5, type);
  const res = await api.request(`/api/v1/assets/${flat}/prognostics`, { token: tenant.token });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ status: 'ok', remaining_useful_life: null, model_version: 'degradation-trend-v2' });
  expect(res.body.failure_history).toMatchObject({ asset_type: type, window_days: 365, assets: 5, corrective_tasks: 8 });
  expect(res.body.failure_history.exposure_days).toBeCloseTo(4 * 365, -1);
  expect(res.body.failure_history.failures_per_asset_year).toBeCloseTo(2, 1);
  // 1 - (1460 / 1490)^8.5 = 0.16: the flat trend's few percent joined to it.
  expect(res.body.trend_failure_probability).toBeLessThanOrEqual(0.05);
  expect(res.body.failure_history.failure_probability).toBeCloseTo(0.16, 2);
  expect(res.body.failure_probability).toBeGreaterThanOrEqual(res.body.failure_history.failure_probability);
  expect(res.body.failure_probability).toBeCloseTo(1 - (1 - res.body.trend_failure_probability) * (1 - res.body.failure_history.failure_probability), 2);

  // A type without corrective tasks has no prior: the trend's probability alone.
  const plain = await pumpWithVibration(() => 2.5, `pump-${randomUUID().slice(0, 6)}`);
  const alone = (await api.request(`/api/v1/assets/${plain}/prognostics`, { token: tenant.token })).body;
  expect(alone.failure_history).toBeNull();
  expect(alone.failure_probability).toBe(alone.trend_failure_probability);
});
