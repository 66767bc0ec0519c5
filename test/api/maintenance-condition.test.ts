/**
 * Condition maintenance plans end to end over real HTTP: gateway readings
 * (POST /machine/readings/batch) reach each plan's workflow as one signal per batch, and the plan
 * makes one work order per excursion, with its evidence on the history entry, the task and the
 * task.created event; completing it re-arms the plan.
 */
import { randomUUID } from 'node:crypto';
import { createTenant, expectError, startTestApi, TestApi, TestTenant } from '../support/api';
import { pumpWithBaseline } from '../support/pumps';
import { untilPasses } from '../support/until';

jest.setTimeout(120_000);

const M = '/api/v1/maintenance';
const MINUTE = 60_000;

let api: TestApi;
let tenant: TestTenant;
let other: TestTenant;

beforeAll(async () => {
  api = await startTestApi();
  [tenant, other] = await Promise.all([createTenant(api), createTenant(api)]);
});
afterAll(() => api.close());

const vibration = { type: 'condition', parameter: 'vibration', above: 3.5, for_minutes: 30 };

const createPlan = (t: TestTenant, body: Record<string, unknown>) => api.request(`${M}/plans`, { method: 'POST', token: t.token, json: { name: 'Check pump bearings', ...body } });

describe('condition plans from gateway readings', () => {
  it('refuses a parameter the asset has no baseline or failure limit for, naming it (create and update)', async () => {
    const pump = await pumpWithBaseline(api, tenant);
    const res = await createPlan(tenant, { asset_ids: [pump], trigger: { ...vibration, parameter: 'bearing_temp' } });
    expectError(res, 422, 'VALIDATION_ERROR');
    expect(res.body.detail).toContain('bearing_temp');
    expectError(await createPlan(tenant, { trigger: vibration }), 422, 'VALIDATION_ERROR'); // no asset to watch

    const plan = await createPlan(tenant, { asset_ids: [pump], trigger: vibration });
    expect(plan.status).toBe(201);
    const update = await api.request(`${M}/plans/${plan.body.id}`, { method: 'PUT', token: tenant.token, json: { trigger: { ...vibration, parameter: 'flow' } } });
    expectError(update, 422, 'VALIDATION_ERROR');
    expect(update.body.detail).toContain('flow');
  });

  it('a rising pump gets one condition work order with its evidence, a flat pump none, another tenant sees nothing', async () => {
    const [rising, flat] = [await pumpWithBaseline(api, tenant), await pumpWithBaseline(api, tenant)];
    const risingPlan = (await createPlan(tenant, { asset_ids: [rising], trigger: vibration, on_open_task: 'stack' })).body;
    const flatPlan = (await createPlan(tenant, { asset_ids: [flat], trigger: vibration, on_open_task: 'stack' })).body;

    // Two hours of readings every 5 minutes, sent as a gateway does: several batches.
    const start = Date.now() - 3 * 60 * MINUTE;
    const at = (i: number) => new Date(start + i * 5 * MINUTE).toISOString();
    const risingValue = (i: number) => Number((2 + i * 0.15).toFixed(2)); // crosses 3.5 at i = 11
    const readings = Array.from({ length: 24 }, (_, i) => [
      { event_id: randomUUID(), asset_id: rising, parameter: 'vibration', value: risingValue(i), timestamp: at(i) },
      { event_id: randomUUID(), asset_id: flat, parameter: 'vibration', value: 2, timestamp: at(i) },
    ]).flat();
    for (let b = 0; b < readings.length; b += 8) {
      const res = await api.request('/api/v1/machine/readings/batch', { method: 'POST', token: tenant.token, json: { readings: readings.slice(b, b + 8) } });
      expect(res.status).toBe(200);
    }

    const client = await api.deps.temporal.client();
    const evaluatedUpTo = (planId: string, asset: string, i = 23) =>
      untilPasses(async () => {
        const view = await client.workflow.getHandle(`maintenance-plan/${tenant.tenantId}/${planId}`).query('state');
        expect((view as { schedule: { condition: { assets: Record<string, { last_at: string }> } } }).schedule.condition.assets[asset]?.last_at).toBe(at(i));
      });
    await evaluatedUpTo(risingPlan.id, rising);
    await evaluatedUpTo(flatPlan.id, flat);

    const evidence = {
      asset_id: rising,
      parameter: 'vibration',
      limit: { above: 3.5 },
      deadband: 0.175,
      for_minutes: 30,
      first_reading: { at: at(11), value: risingValue(11) },
      last_reading: { at: at(17), value: risingValue(17) }, // the reading that completed the 30 minutes
    };
    // The state shows readings judged before the work order they fired is written: the history is awaited.
    const history = await untilPasses(async () => {
      const res = await api.request(`${M}/plans/${risingPlan.id}/history`, { token: tenant.token });
      expect(res.body.items).toEqual([expect.objectContaining({ cause: 'condition', outcome: 'created', evidence })]);
      return res;
    });
    expect(history.body.items[0]).not.toHaveProperty('trigger'); // API 1.x: `trigger` keeps its two values; `cause` names the others
    const task = await api.request(`${M}/tasks/${history.body.items[0].task_id}`, { token: tenant.token });
    expect(task.body).toMatchObject({ plan_id: risingPlan.id, trigger: 'condition', evidence, status: 'open' });
    const events = await api.deps.db('outbox_events').where({ tenant_id: tenant.tenantId, type: 'task.created' });
    expect(events.filter((e) => e.data.plan_id === risingPlan.id).map((e) => e.data)).toEqual([expect.objectContaining({ trigger: 'condition', evidence })]);
    expect((await api.request(`${M}/plans/${flatPlan.id}/history`, { token: tenant.token })).body.items).toEqual([]);

    // Completing the work order re-arms the plan: the pump still beyond the limit for the window makes a second one.
    expect((await api.request(`${M}/tasks/${task.body.id}/complete`, { method: 'POST', token: tenant.token, json: {} })).status).toBe(200);
    await untilPasses(async () => {
      const view = await client.workflow.getHandle(`maintenance-plan/${tenant.tenantId}/${risingPlan.id}`).query('state');
      expect((view as { schedule: { condition: { assets: Record<string, { fired: boolean }> } } }).schedule.condition.assets[rising]?.fired).toBe(false);
    });
    const more = Array.from({ length: 7 }, (_, k) => ({ event_id: randomUUID(), asset_id: rising, parameter: 'vibration', value: risingValue(24 + k), timestamp: at(24 + k) }));
    expect((await api.request('/api/v1/machine/readings/batch', { method: 'POST', token: tenant.token, json: { readings: more } })).status).toBe(200);
    await evaluatedUpTo(risingPlan.id, rising, 30);
    await untilPasses(async () => {
      const after = await api.request(`${M}/plans/${risingPlan.id}/history`, { token: tenant.token });
      expect(
        after.body.items.map((e: { evidence: { first_reading: { at: string }; last_reading: { at: string } } }) => [e.evidence.first_reading.at, e.evidence.last_reading.at]),
      ).toEqual([
        [at(24), at(30)],
        [at(11), at(17)],
      ]);
    });

    // The optimizer's basis says how the plan's work orders turned out (both too recent to judge yet:
    // the pump's alert was raised before them).
    const draft = await api.request(`${M}/plans/${risingPlan.id}/optimize`, { method: 'POST', token: tenant.token, json: {} });
    expect(draft.status).toBe(201);
    expect(draft.body.basis.condition_work_orders).toEqual({ window_days: 30, confirmed: 0, unconfirmed: 0, pending: 2, false_alarm_rate: null });

    // Another tenant: not the plan, not its history, not its task, and its readings reach nothing of ours.
    expectError(await api.request(`${M}/plans/${risingPlan.id}/history`, { token: other.token }), 404, 'NOT_FOUND');
    expectError(await api.request(`${M}/tasks/${task.body.id}`, { token: other.token }), 404, 'NOT_FOUND');
    expect((await api.request(`${M}/tasks`, { token: other.token })).body.items).toEqual([]);
    const foreign = await api.request('/api/v1/machine/readings/batch', {
      method: 'POST',
      token: other.token,
      json: { readings: [{ event_id: randomUUID(), asset_id: rising, parameter: 'vibration', value: 9, timestamp: at(31) }] },
    });
    expectError(foreign, 404, 'NOT_FOUND');
  });
});
