/**
 * Machine agents end to end: an event posted to /internal/events is dispatched from the outbox by
 * the worker (from dist/), runs the machine agent once, and the run is listed by
 * GET /api/v1/agents/{id}/runs; events inside the cooldown add no run.
 */
import { randomUUID } from 'node:crypto';
import { FULL_SERVICE_GRANT, signInternalToken } from '../../domain/auth/tokens';
import { createTenant, expectError, startTestApi, TestApi, TestTenant } from '../support/api';
import { until } from '../support/until';

jest.setTimeout(60_000);

let api: TestApi;
let tenant: TestTenant;
let other: TestTenant;
let internalToken: string;

beforeAll(async () => {
  api = await startTestApi();
  [tenant, other] = await Promise.all([createTenant(api), createTenant(api)]);
  internalToken = signInternalToken('test-suite', api.deps.config.secrets.internalJwt, FULL_SERVICE_GRANT);
});
afterAll(async () => api?.close());

async function machineAgent(t: TestTenant, eventTypes: string[]): Promise<string> {
  const res = await api.request('/api/v1/agents', {
    method: 'POST',
    token: t.token,
    json: { name: 'Vibration watcher', type: 'machine', system_prompt: 'Watch vibration alarms.', trigger_config: { event_types: eventTypes, cooldown_minutes: 60 } },
  });
  expect(res.status).toBe(201);
  return res.body.id;
}

async function postEvent(t: TestTenant, type: string, data: Record<string, unknown>): Promise<string> {
  const res = await api.request('/internal/events', { method: 'POST', token: internalToken, json: { tenant_id: t.tenantId, type, data } });
  expect(res.status).toBe(202);
  return res.body.id;
}

async function dispatched(eventIds: string[]): Promise<void> {
  const left = async () => Number((await api.deps.db('outbox_events').whereIn('id', eventIds).whereNull('dispatched_at').count({ n: '*' }))[0].n);
  await until(left, (n) => n === 0, 'the events to be dispatched', 20_000);
}

async function runsOf(t: TestTenant, agentId: string, query = '') {
  return api.request(`/api/v1/agents/${agentId}/runs${query}`, { token: t.token });
}

describe('GET /api/v1/agents/:agent_id/runs', () => {
  it('lists one run for a burst of events inside the cooldown, per asset', async () => {
    const agentId = await machineAgent(tenant, ['vibration.threshold_exceeded']);
    const [pump, fan] = [randomUUID(), randomUUID()];
    const first = await postEvent(tenant, 'vibration.threshold_exceeded', { asset_id: pump, rms_mm_s: 9.1 });
    const ignored = await postEvent(tenant, 'asset.updated', { asset_id: pump });
    const fanEvent = await postEvent(tenant, 'vibration.threshold_exceeded', { asset_id: fan });

    const res = await until(
      () => runsOf(tenant, agentId),
      (r) => r.status !== 200 || r.body.total >= 2,
      'two runs',
      { timeoutMs: 20_000, intervalMs: 200 },
    );
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(2);
    const byEvent = new Map(res.body.items.map((r: any) => [r.event_id, r]));
    expect(byEvent.get(first)).toMatchObject({
      agent_id: agentId,
      asset_id: pump,
      event_type: 'vibration.threshold_exceeded',
      action: 'notified',
      engine: 'built-in',
      suppressed_events: 0,
      reply_text: expect.stringContaining(`Event vibration.threshold_exceeded on asset ${pump} (rms_mm_s=9.1)`),
    });
    expect(byEvent.get(fanEvent)).toMatchObject({ asset_id: fan });
    expect(byEvent.has(ignored)).toBe(false);
    expect(Object.keys(res.body.items[0]).sort()).toEqual([
      'action',
      'agent_id',
      'asset_id',
      'created_at',
      'engine',
      'event_id',
      'event_type',
      'id',
      'notification_id',
      'reply_text',
      'suppressed_events',
      'task_id',
    ]);

    // A burst inside the pump's cooldown: dispatched, but no new run.
    const burst = await Promise.all(Array.from({ length: 5 }, (_, i) => postEvent(tenant, 'vibration.threshold_exceeded', { asset_id: pump, seq: i })));
    await dispatched(burst);
    // The dispatcher counts them on the pump's run in the transaction that marks them dispatched, and
    // signals none of them, so once they are dispatched no run can follow.
    const pumpRuns = await runsOf(tenant, agentId, `?asset_id=${pump}`);
    expect(pumpRuns.body.items.map((r: any) => [r.event_id, r.suppressed_events])).toEqual([[first, 5]]);
    expect((await runsOf(tenant, agentId)).body.total).toBe(2);

    const pumpOnly = await runsOf(tenant, agentId, `?asset_id=${pump}&limit=1`);
    expect(pumpOnly.body).toMatchObject({ total: 1, skip: 0, limit: 1 });
    expect(pumpOnly.body.items[0].event_id).toBe(first);
    expectError(await runsOf(tenant, agentId, '?asset_id=not-a-uuid'), 422, 'VALIDATION_ERROR');
  });

  it("answers 404 for another tenant's agent and an unknown id", async () => {
    const agentId = await machineAgent(tenant, ['alert.raised']);
    expectError(await runsOf(other, agentId), 404, 'NOT_FOUND');
    expectError(await runsOf(tenant, randomUUID()), 404, 'NOT_FOUND');
    expectError(await runsOf(tenant, 'nope'), 404, 'NOT_FOUND');
  });
});
