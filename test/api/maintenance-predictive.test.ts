/**
 * Predictive maintenance plans end to end over real HTTP: gateway readings reach the plans of a
 * rising and a flat pump; the rising one gets one predictive and one condition work order with
 * their evidence, the flat one none; the preview and the plan show a projected due time; another
 * tenant sees nothing.
 */
import { randomUUID } from 'node:crypto';
import { createTenant, expectError, startTestApi, TestApi, TestTenant } from '../support/api';
import { pumpWithBaseline } from '../support/pumps';
import { untilPasses } from '../support/until';

jest.setTimeout(120_000);

const M = '/api/v1/maintenance';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let api: TestApi;
let tenant: TestTenant;
let other: TestTenant;

beforeAll(async () => {
  api = await startTestApi();
  [tenant, other] = await Promise.all([createTenant(api), createTenant(api)]);
});
afterAll(() => api.close());

const predictive = { type: 'predictive', parameter: 'vibration', lead_days: 14, min_probability: 0.5 };

const createPlan = (t: TestTenant, body: Record<string, unknown>) =>
  api.request(`${M}/plans`, { method: 'POST', token: t.token, json: { name: 'Overhaul pump', on_open_task: 'stack', ...body } });

describe('predictive plans from gateway readings', () => {
  it('validates the trigger: a parameter without baseline or failure limit is a 422 naming it; bad figures name their field', async () => {
    const pump = await pumpWithBaseline(api, tenant);
    const res = await createPlan(tenant, { asset_ids: [pump], trigger: { ...predictive, parameter: 'bearing_temp' } });
    expectError(res, 422, 'VALIDATION_ERROR');
    expect(res.body.detail).toContain('bearing_temp');
    expectError(await createPlan(tenant, { trigger: predictive }), 422, 'VALIDATION_ERROR'); // no asset to watch
    const bad = await createPlan(tenant, { asset_ids: [pump], trigger: { ...predictive, lead_days: 0, min_probability: 2 } });
    expectError(bad, 422, 'VALIDATION_ERROR');
    expect(bad.body.detail).toMatch(/lead_days/);

    const plan = await createPlan(tenant, { asset_ids: [pump], trigger: predictive });
    expect(plan.status).toBe(201);
    expect(plan.body.trigger).toEqual(predictive);
    const update = await api.request(`${M}/plans/${plan.body.id}`, { method: 'PUT', token: tenant.token, json: { trigger: { ...predictive, parameter: 'flow' } } });
    expectError(update, 422, 'VALIDATION_ERROR');
    expect(update.body.detail).toContain('flow');
    const edited = await api.request(`${M}/plans/${plan.body.id}`, { method: 'PUT', token: tenant.token, json: { trigger: { ...predictive, lead_days: 7 } } });
    expect(edited.body.trigger).toEqual({ ...predictive, lead_days: 7 });
  });

  it('a rising pump gets one predictive and one condition work order with their evidence, a flat pump none, another tenant sees nothing', async () => {
    const [rising, flat] = [await pumpWithBaseline(api, tenant), await pumpWithBaseline(api, tenant)];
    const condition = { type: 'condition', parameter: 'vibration', above: 2.6, for_minutes: 60 };
    const plansOf = async (asset: string) => ({
      predictive: (await createPlan(tenant, { asset_ids: [asset], trigger: predictive })).body,
      condition: (await createPlan(tenant, { asset_ids: [asset], trigger: condition })).body,
    });
    const [risingPlans, flatPlans] = [await plansOf(rising), await plansOf(flat)];
    // A later-due prediction: lead 0.5 days on a crossing about a day ahead.
    const later = (await createPlan(tenant, { asset_ids: [rising], trigger: { ...predictive, lead_days: 0.5 } })).body;

    // Four days of readings every two hours, sent as a gateway does: rising 0.2 a day towards the band edge 3.
    const start = Date.now() - 4 * DAY;
    const at = (i: number) => new Date(start + i * 2 * HOUR).toISOString();
    const wobble = (i: number) => 0.02 * Math.sin(i * 1.7);
    const readings = Array.from({ length: 49 }, (_, i) => [
      { event_id: randomUUID(), asset_id: rising, parameter: 'vibration', value: Number((2 + (0.2 * i) / 12 + wobble(i)).toFixed(3)), timestamp: at(i) },
      { event_id: randomUUID(), asset_id: flat, parameter: 'vibration', value: Number((2 + wobble(i)).toFixed(3)), timestamp: at(i) },
    ]).flat();
    for (let b = 0; b < readings.length; b += 20) {
      const res = await api.request('/api/v1/machine/readings/batch', { method: 'POST', token: tenant.token, json: { readings: readings.slice(b, b + 20) } });
      expect(res.status).toBe(200);
    }

    const historyOf = async (planId: string) => (await api.request(`${M}/plans/${planId}/history`, { token: tenant.token })).body.items;
    await untilPasses(async () => expect(await historyOf(risingPlans.predictive.id)).toHaveLength(1));
    await untilPasses(async () => expect(await historyOf(risingPlans.condition.id)).toHaveLength(1));

    const [entry] = await historyOf(risingPlans.predictive.id);
    expect(entry).toMatchObject({ cause: 'predictive', outcome: 'created' });
    expect(entry).not.toHaveProperty('trigger'); // API 1.x: `trigger` keeps its two values
    const evidence = entry.evidence;
    expect(evidence).toMatchObject({
      asset_id: rising,
      parameter: 'vibration',
      model_version: 'degradation-trend-v2',
      limit: { above: 3 },
      limit_source: 'baseline_band',
      lead_days: 14,
      min_probability: 0.5,
      readings: { from: at(0) },
    });
    // The batch whose readings first gave the probability made it: the readings up to then.
    expect(evidence.readings.to).toBe(at(evidence.readings.count - 1));
    expect(evidence.probability).toBeGreaterThanOrEqual(0.5);
    expect(evidence.remaining_useful_life).toBeGreaterThan(0);
    expect(evidence.remaining_useful_life).toBeLessThan(14);
    expect(evidence.remaining_useful_life_interval).toHaveLength(2);
    const task = (await api.request(`${M}/tasks/${entry.task_id}`, { token: tenant.token })).body;
    expect(task).toMatchObject({ plan_id: risingPlans.predictive.id, trigger: 'predictive', evidence, status: 'open' });
    const events = await api.deps.db('outbox_events').where({ tenant_id: tenant.tenantId, type: 'task.created' });
    expect(events.filter((e) => e.data.plan_id === risingPlans.predictive.id).map((e) => e.data)).toEqual([expect.objectContaining({ trigger: 'predictive', evidence })]);
    expect((await historyOf(risingPlans.condition.id))[0]).toMatchObject({ cause: 'condition', evidence: { asset_id: rising, limit: { above: 2.6 } } });

    // The flat pump's plans forecast (a trend going nowhere) and make nothing.
    const client = await api.deps.temporal.client();
    await untilPasses(async () => {
      const view = (await client.workflow.getHandle(`maintenance-plan/${tenant.tenantId}/${flatPlans.predictive.id}`).query('state')) as {
        schedule: { predictive: { assets: Record<string, { evidence: { remaining_useful_life: number | null } | null; due_at: string | null }> } };
      };
      expect(view.schedule.predictive.assets[flat]).toMatchObject({ evidence: { remaining_useful_life: null }, due_at: null });
    });
    expect(await historyOf(flatPlans.predictive.id)).toEqual([]);
    expect(await historyOf(flatPlans.condition.id)).toEqual([]);

    // The later plan: due lead_days before the projected crossing, shown by the plan and its preview.
    await untilPasses(async () => expect((await api.request(`${M}/plans/${later.id}`, { token: tenant.token })).body.next_due_cause).toBe('predictive'));
    // Read again when the plan projected anew between the two reads (a periodic re-evaluation): the
    // row's next_due_at and the preview must agree on one projection.
    const { plan, preview } = await untilPasses(async () => {
      const plan = (await api.request(`${M}/plans/${later.id}`, { token: tenant.token })).body;
      expect(plan.next_due_trigger).toBeNull();
      const preview = (await api.request(`${M}/plans/${later.id}/preview`, { token: tenant.token })).body;
      expect(preview).toMatchObject({ due_projected: true, task: { trigger: 'predictive', due_at: plan.next_due_at } });
      return { plan, preview };
    });
    const [forecast] = preview.forecasts;
    expect(forecast).toMatchObject({ asset_id: rising, lead_days: 0.5 });
    expect(Math.abs(Date.parse(plan.next_due_at) - (Date.parse(forecast.projected_crossing_at) - DAY / 2))).toBeLessThan(HOUR);
    expect(Date.parse(plan.next_due_at)).toBeGreaterThan(Date.now());
    expect(await historyOf(later.id)).toEqual([]);

    // Another tenant: not the plans, their history, preview or tasks.
    expectError(await api.request(`${M}/plans/${risingPlans.predictive.id}/history`, { token: other.token }), 404, 'NOT_FOUND');
    expectError(await api.request(`${M}/plans/${later.id}/preview`, { token: other.token }), 404, 'NOT_FOUND');
    expectError(await api.request(`${M}/tasks/${task.id}`, { token: other.token }), 404, 'NOT_FOUND');
    expect((await api.request(`${M}/tasks`, { token: other.token })).body.items).toEqual([]);
  });
});
