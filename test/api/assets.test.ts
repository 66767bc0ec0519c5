import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parseCmapss, parseRulFile } from '../../domain/prognostics/cmapss';
import { FD001_MODEL, prognose } from '../../domain/prognostics';
import { createTenant, createUser, expectError, startTestApi, TestApi, TestTenant } from '../support/api';

let api: TestApi;
let a: TestTenant;
let b: TestTenant;

beforeAll(async () => {
  api = await startTestApi();
  [a, b] = await Promise.all([createTenant(api), createTenant(api)]);
});
afterAll(() => api.close());

const DAY = 86_400_000;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
const eventId = () => `evt-${randomUUID()}`;

async function createAsset(t: TestTenant, body: Record<string, unknown>): Promise<string> {
  const res = await api.request('/api/v1/assets', { method: 'POST', token: t.token, json: body });
  expect(res.status).toBe(201);
  return res.body.id;
}

function reading(assetId: string, parameter: string, value: number, msAgo: number, extra: Record<string, unknown> = {}) {
  return { event_id: eventId(), asset_id: assetId, parameter, value, timestamp: ago(msAgo), ...extra };
}

async function ingest(t: TestTenant, readings: unknown[]) {
  const res = await api.request('/api/v1/machine/readings/batch', { method: 'POST', token: t.token, json: { readings } });
  expect(res.status).toBe(200);
  return res.body;
}

async function setBaseline(t: TestTenant, assetId: string, body: Record<string, unknown>) {
  const res = await api.request(`/api/v1/assets/${assetId}/baselines`, { method: 'POST', token: t.token, json: body });
  expect(res.status).toBe(201);
  return res.body;
}

const outbox = (t: TestTenant, type: string) => api.deps.db('outbox_events').where({ tenant_id: t.tenantId, type }).orderBy('created_at');

describe('GET /assets/tree', () => {
  let tenant: TestTenant;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    tenant = await createTenant(api);
    ids.root = await createAsset(tenant, { name: 'Plant', type: 'site' });
    ids.lineB = await createAsset(tenant, { name: 'Line B', type: 'line', parent_id: ids.root });
    ids.lineA = await createAsset(tenant, { name: 'Line A', type: 'line', parent_id: ids.root });
    ids.pump = await createAsset(tenant, { name: 'Pump', type: 'pump', parent_id: ids.lineA });
    ids.motor = await createAsset(tenant, { name: 'Motor', type: 'motor', parent_id: ids.pump });
    ids.other = await createAsset(tenant, { name: 'Depot', type: 'site' });
  });

  const shape = (nodes: any[]): unknown => nodes.map((n) => ({ name: n.name, truncated: n.children_truncated, children: shape(n.children) }));

  it('nests children to the requested depth, flagging cut-off children, in one recursive query', async () => {
    const queries: string[] = [];
    const listener = (q: { sql: string }) => queries.push(q.sql);
    api.deps.db.on('query', listener);
    const res = await api.request(`/api/v1/assets/tree?root_id=${ids.root}&depth=2`, { token: tenant.token });
    api.deps.db.off('query', listener);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ root_id: ids.root, depth: 2 });
    expect(shape(res.body.items)).toEqual([
      {
        name: 'Plant',
        truncated: false,
        children: [
          { name: 'Line A', truncated: true, children: [] },
          { name: 'Line B', truncated: false, children: [] },
        ],
      },
    ]);
    expect(res.body.items[0]).toMatchObject({ id: ids.root, type: 'site', parent_id: null });
    const assetQueries = queries.filter((sql) => /\bassets\b/.test(sql));
    expect(assetQueries).toHaveLength(1);
    expect(assetQueries[0]).toMatch(/with recursive/);
  });

  it('defaults to depth 5 and lists every root without root_id', async () => {
    const res = await api.request('/api/v1/assets/tree', { token: tenant.token });
    expect(res.status).toBe(200);
    expect(res.body.depth).toBe(5);
    expect(shape(res.body.items)).toEqual([
      { name: 'Depot', truncated: false, children: [] },
      {
        name: 'Plant',
        truncated: false,
        children: [
          { name: 'Line A', truncated: false, children: [{ name: 'Pump', truncated: false, children: [{ name: 'Motor', truncated: false, children: [] }] }] },
          { name: 'Line B', truncated: false, children: [] },
        ],
      },
    ]);
  });

  it('depth 1 is the root alone; depth outside 1..10 is a 422; an unknown or foreign root a 404', async () => {
    const one = await api.request(`/api/v1/assets/tree?root_id=${ids.pump}&depth=1`, { token: tenant.token });
    expect(shape(one.body.items)).toEqual([{ name: 'Pump', truncated: true, children: [] }]);
    expectError(await api.request('/api/v1/assets/tree?depth=0', { token: tenant.token }), 422, 'VALIDATION_ERROR');
    expectError(await api.request('/api/v1/assets/tree?depth=11', { token: tenant.token }), 422, 'VALIDATION_ERROR');
    expect((await api.request('/api/v1/assets/tree?depth=10', { token: tenant.token })).status).toBe(200);
    expectError(await api.request(`/api/v1/assets/tree?root_id=${randomUUID()}`, { token: tenant.token }), 404, 'NOT_FOUND');
    expectError(await api.request(`/api/v1/assets/tree?root_id=${ids.root}`, { token: b.token }), 404, 'NOT_FOUND');
    expectError(await api.request('/api/v1/assets/tree?root_id=not-a-uuid', { token: tenant.token }), 422, 'VALIDATION_ERROR');
  });

  it('refuses a parent that would close a cycle (409)', async () => {
    const res = await api.request(`/api/v1/assets/${ids.lineA}`, { method: 'PUT', token: tenant.token, json: { parent_id: ids.motor } });
    expectError(res, 409, 'CONFLICT');
    const self = await api.request(`/api/v1/assets/${ids.pump}`, { method: 'PUT', token: tenant.token, json: { parent_id: ids.pump } });
    expectError(self, 409, 'CONFLICT');
  });

  it('refuses deleting an asset with children (409) unless asked to re-parent them', async () => {
    expectError(await api.request(`/api/v1/assets/${ids.pump}`, { method: 'DELETE', token: tenant.token }), 409, 'CONFLICT');
    const del = await api.request(`/api/v1/assets/${ids.pump}`, { method: 'DELETE', token: tenant.token, json: { children: 'reparent' } });
    expect(del.status).toBe(204);
    const motor = await api.request(`/api/v1/assets/${ids.motor}`, { token: tenant.token });
    expect(motor.body.parent_id).toBe(ids.lineA);
  });
});

describe('machine gateway', () => {
  let pump: string;
  beforeAll(async () => {
    pump = await createAsset(a, { name: 'Gateway pump', type: 'pump' });
  });

  it('stores a batch once: the same batch again stores nothing (idempotent by event_id)', async () => {
    const readings = [1, 2, 3].map((i) => reading(pump, 'flow', 10 + i, i * 60_000, { unit: 'm3/h', source: 'plc-7' }));
    const dup = { ...readings[0] };
    expect(await ingest(a, [...readings, dup])).toEqual({ received: 4, stored: 3, duplicates: 1, late: 0, alerts_raised: 0, alerts_resolved: 0 });
    expect(await ingest(a, readings)).toEqual({ received: 3, stored: 0, duplicates: 3, late: 0, alerts_raised: 0, alerts_resolved: 0 });
    const rows = await api.deps.db('sensor_readings').where({ tenant_id: a.tenantId, asset_id: pump, parameter: 'flow' }).orderBy('ts');
    expect(rows.map((r) => [r.value, r.unit, r.source])).toEqual([
      [13, 'm3/h', 'plc-7'],
      [12, 'm3/h', 'plc-7'],
      [11, 'm3/h', 'plc-7'],
    ]);
    const listed = await api.request(`/api/v1/assets/${pump}/readings?parameter=flow`, { token: a.token });
    expect(listed.body).toMatchObject({ total: 3, items: [{ value: 11, event_id: readings[0]?.event_id }, { value: 12 }, { value: 13 }] });
  });

  it('accepts a single reading and late, out-of-order readings', async () => {
    const single = await api.request('/api/v1/machine/readings', { method: 'POST', token: a.token, json: reading(pump, 'rpm', 1500, 1000) });
    expect(single.body).toMatchObject({ received: 1, stored: 1 });
    const late = await ingest(a, [reading(pump, 'rpm', 1400, DAY), reading(pump, 'rpm', 1450, 2 * DAY)]);
    expect(late).toMatchObject({ stored: 2, late: 2 });
    const latest = await api.deps.db('asset_parameter_latest').where({ tenant_id: a.tenantId, asset_id: pump, parameter: 'rpm' }).first();
    expect(latest.value).toBe(1500);
  });

  it('validates the batch: size, future timestamps, unknown or foreign assets', async () => {
    const tooMany = Array.from({ length: 501 }, (_, i) => reading(pump, 'flow', i, 1000));
    expectError(await api.request('/api/v1/machine/readings/batch', { method: 'POST', token: a.token, json: { readings: tooMany } }), 422, 'VALIDATION_ERROR');
    const future = { ...reading(pump, 'flow', 1, 0), timestamp: new Date(Date.now() + 3_600_000).toISOString() };
    expectError(await api.request('/api/v1/machine/readings', { method: 'POST', token: a.token, json: future }), 422, 'VALIDATION_ERROR');
    const unknown = await api.request('/api/v1/machine/readings/batch', {
      method: 'POST',
      token: a.token,
      json: { readings: [reading(pump, 'flow', 1, 1000), reading(randomUUID(), 'flow', 1, 1000)] },
    });
    expectError(unknown, 404, 'NOT_FOUND');
    const foreign = await api.request('/api/v1/machine/readings', { method: 'POST', token: b.token, json: reading(pump, 'flow', 1, 1000) });
    expectError(foreign, 404, 'NOT_FOUND');
    const missingEventId = { asset_id: pump, parameter: 'flow', value: 1, timestamp: ago(1000) };
    expectError(await api.request('/api/v1/machine/readings', { method: 'POST', token: a.token, json: missingEventId }), 422, 'VALIDATION_ERROR');
  });

  it('stores machine events once and publishes each to the outbox under its own type', async () => {
    const events = [
      { event_id: eventId(), asset_id: pump, type: 'vibration.threshold_exceeded', timestamp: ago(5000), severity: 'warning', data: { axis: 'x', mm_s: 7.1 } },
      { event_id: eventId(), asset_id: pump, type: 'machine.stopped', timestamp: ago(4000) },
    ];
    const first = await api.request('/api/v1/machine/events/batch', { method: 'POST', token: a.token, json: { events } });
    expect(first.body).toEqual({ received: 2, stored: 2, duplicates: 0 });
    const again = await api.request('/api/v1/machine/events/batch', { method: 'POST', token: a.token, json: { events } });
    expect(again.body).toEqual({ received: 2, stored: 0, duplicates: 2 });
    const published = await outbox(a, 'vibration.threshold_exceeded');
    expect(published).toHaveLength(1);
    expect(published[0].data).toMatchObject({ asset_id: pump, severity: 'warning', data: { axis: 'x', mm_s: 7.1 } });
    const listed = await api.request(`/api/v1/machine/events?asset_id=${pump}`, { token: a.token });
    expect(listed.body.items.map((e: any) => e.type)).toEqual(['machine.stopped', 'vibration.threshold_exceeded']);
    const forged = await api.request('/api/v1/machine/events', { method: 'POST', token: a.token, json: { ...events[0], event_id: eventId(), type: 'asset.alert.raised' } });
    expectError(forged, 422, 'VALIDATION_ERROR');
  });

  it('needs manage_assets', async () => {
    const viewer = await createUser(api, a.tenantId, 'viewer');
    expectError(await api.request('/api/v1/machine/readings', { method: 'POST', token: viewer.token, json: reading(pump, 'flow', 1, 1000) }), 403, 'FORBIDDEN');
  });
});

describe('baselines, alerts and health', () => {
  let asset: string;
  beforeAll(async () => {
    asset = await createAsset(a, { name: 'Compressor', type: 'compressor' });
  });

  const healthRow = () => api.deps.db('asset_health').where({ tenant_id: a.tenantId, asset_id: asset }).first();
  const alertsOf = async (query = '') => (await api.request(`/api/v1/assets/${asset}/alerts${query}`, { token: a.token })).body;

  it('raises an alert outside the band, deduplicates it while the excursion lasts, resolves it when readings return inside', async () => {
    const baseline = await setBaseline(a, asset, { parameter: 'temperature', baseline_value: 100, tolerance_percent: 10, measurement_unit: 'C' });
    expect(baseline).toMatchObject({
      asset_id: asset,
      parameter: 'temperature',
      baseline_value: 100,
      tolerance_percent: 10,
      measurement_unit: 'C',
      active: true,
      superseded_at: null,
    });

    // 115 is 1.5 × the tolerance out: alert raised, health 51 (fair).
    expect(await ingest(a, [reading(asset, 'temperature', 100, 50 * 60_000), reading(asset, 'temperature', 115, 40 * 60_000)])).toMatchObject({
      stored: 2,
      alerts_raised: 1,
      alerts_resolved: 0,
    });
    const health1 = await healthRow();
    expect(health1).toMatchObject({ health_score: 51, status: 'fair' });
    const healthRes = await api.request(`/api/v1/assets/${asset}/health`, { token: a.token });
    expect(healthRes.body).toEqual({
      health_score: 51,
      status: 'fair',
      factors: [expect.objectContaining({ name: 'temperature', kind: 'parameter', score: 51, value: 115, deviation_percent: 15, trend: 'stable' })],
      last_updated: new Date(health1.last_updated).toISOString(),
    });

    // Still outside: the same alert continues (peak 120, last 112); health follows the latest reading (112 → 63).
    expect(await ingest(a, [reading(asset, 'temperature', 120, 30 * 60_000), reading(asset, 'temperature', 112, 20 * 60_000)])).toMatchObject({
      alerts_raised: 0,
      alerts_resolved: 0,
    });
    const open = await alertsOf('?status=unresolved');
    expect(open.total).toBe(1);
    expect(open.items[0]).toMatchObject({
      parameter: 'temperature',
      status: 'open',
      direction: 'above',
      value: 115,
      peak_value: 120,
      last_value: 112,
      severity: 'warning',
      baseline_value: 100,
      lower_bound: 90,
      upper_bound: 110,
      resolved_at: null,
    });
    const health2 = await healthRow();
    expect(health2).toMatchObject({ health_score: 63, status: 'fair' });
    expect(new Date(health2.last_updated).getTime()).toBeGreaterThan(new Date(health1.last_updated).getTime());

    // A late reading (older than the newest one) within the excursion is judged at its time: it is
    // the excursion's peak (critical), and the newer last reading stays.
    expect(await ingest(a, [reading(asset, 'temperature', 150, 35 * 60_000)])).toMatchObject({ stored: 1, late: 1, alerts_raised: 0, alerts_resolved: 0 });
    expect((await alertsOf()).items[0]).toMatchObject({ status: 'open', value: 115, peak_value: 150, severity: 'critical', last_value: 112 });

    // Back inside: resolved; health 85 (good).
    const back = reading(asset, 'temperature', 105, 10 * 60_000);
    expect(await ingest(a, [back])).toMatchObject({ alerts_raised: 0, alerts_resolved: 1 });
    const [resolved] = (await alertsOf()).items;
    expect(resolved).toMatchObject({ status: 'resolved', resolved_value: 105, resolved_at: back.timestamp, peak_value: 150 });
    expect(await healthRow()).toMatchObject({ health_score: 85, status: 'good' });

    const raisedEvents = await outbox(a, 'asset.alert.raised');
    const resolvedEvents = await outbox(a, 'asset.alert.resolved');
    expect(raisedEvents.map((e) => e.data)).toEqual([
      expect.objectContaining({
        alert_id: resolved.id,
        asset_id: asset,
        parameter: 'temperature',
        value: 115,
        baseline_value: 100,
        tolerance_percent: 10,
        direction: 'above',
        severity: 'warning',
      }),
    ]);
    expect(resolvedEvents.map((e) => e.data)).toEqual([expect.objectContaining({ alert_id: resolved.id, asset_id: asset, value: 105, peak_value: 150 })]);
  });

  it("judges a gateway's buffered readings at their own time: the excursion it buffered raises its alert, resolved by the next reading inside", async () => {
    const press = await createAsset(a, { name: 'Press after an outage', type: 'compressor' });
    await setBaseline(a, press, { parameter: 'pressure', baseline_value: 100, tolerance_percent: 10 });
    const alertsOfPress = async () => (await api.request(`/api/v1/assets/${press}/alerts`, { token: a.token })).body.items;
    const at = (minutesAgo: number, value: number) => reading(press, 'pressure', value, minutesAgo * 60_000);
    // Live readings before and after the outage: nothing to say.
    expect(await ingest(a, [at(60, 100), at(5, 101)])).toMatchObject({ stored: 2, late: 0, alerts_raised: 0 });

    // The buffer of the outage, flushed late: 125 and 118 outside, 104 back inside.
    const [started, outside, back] = [at(40, 125), at(30, 118), at(20, 104)];
    const flushed = await ingest(a, [at(50, 103), started, outside, back]);
    expect(flushed).toEqual({ received: 4, stored: 4, duplicates: 0, late: 4, alerts_raised: 1, alerts_resolved: 1 });
    const [alert] = await alertsOfPress();
    expect(alert).toMatchObject({
      status: 'resolved',
      direction: 'above',
      severity: 'critical',
      value: 125,
      peak_value: 125,
      last_value: 118,
      raised_at: started.timestamp,
      last_reading_at: outside.timestamp,
      resolved_at: back.timestamp,
      resolved_value: 104,
    });
    const raised = (await outbox(a, 'asset.alert.raised')).filter((e) => e.data.alert_id === alert.id);
    expect(raised.map((e) => [e.data.raised_at, new Date(e.occurred_at).toISOString()])).toEqual([[started.timestamp, started.timestamp]]);
    const resolved = (await outbox(a, 'asset.alert.resolved')).filter((e) => e.data.alert_id === alert.id);
    expect(resolved.map((e) => e.data.resolved_at)).toEqual([back.timestamp]);

    // A late excursion whose end is a reading stored before it: resolved at that reading (5 minutes ago, 101).
    const alone = at(10, 80);
    expect(await ingest(a, [alone])).toMatchObject({ late: 1, alerts_raised: 1, alerts_resolved: 1 });
    expect((await alertsOfPress()).find((x: any) => x.raised_at === alone.timestamp)).toMatchObject({ direction: 'below', status: 'resolved', resolved_value: 101 });

    // Within the resolved alert's course (35 minutes ago, before its resolution): its peak, never reopened.
    expect(await ingest(a, [at(35, 140), at(25, 100)])).toMatchObject({ late: 2, alerts_raised: 0, alerts_resolved: 0 });
    expect((await alertsOfPress()).find((x: any) => x.id === alert.id)).toMatchObject({ status: 'resolved', peak_value: 140, resolved_at: back.timestamp });
    expect(await api.deps.db('asset_alerts').where({ tenant_id: a.tenantId, asset_id: press }).whereNot('status', 'resolved')).toHaveLength(0);
  });

  it('serialises batches of the same asset: batches sent at once raise one alert for one excursion', async () => {
    const pump = await createAsset(a, { name: 'Pump at once', type: 'compressor' });
    await setBaseline(a, pump, { parameter: 'flow', baseline_value: 10, tolerance_percent: 10 });
    const batches = Array.from({ length: 4 }, (_, k) => [reading(pump, 'flow', 13 + k, (10 - k) * 60_000), reading(pump, 'flow', 14, (10 - k) * 60_000 - 1000)]);
    const results = await Promise.all(batches.map((readings) => ingest(a, readings)));
    expect(results.reduce((n, r) => n + r.alerts_raised, 0)).toBe(1);
    const open = await api.deps.db('asset_alerts').where({ tenant_id: a.tenantId, asset_id: pump, parameter: 'flow' }).whereNot('status', 'resolved');
    expect(open).toHaveLength(1);
  });

  it('acknowledging keeps the excursion deduplicated until readings resolve it', async () => {
    expect(await ingest(a, [reading(asset, 'temperature', 79, 5 * 60_000)])).toMatchObject({ alerts_raised: 1 });
    const [alert] = (await alertsOf('?status=open')).items;
    expect(alert).toMatchObject({ direction: 'below', severity: 'critical', value: 79 });

    const ack = await api.request(`/api/v1/assets/${asset}/alerts/${alert.id}/acknowledge`, { method: 'POST', token: a.token, json: { note: 'crew on site' } });
    expect(ack.status).toBe(200);
    expect(ack.body).toMatchObject({ id: alert.id, status: 'acknowledged', acknowledged_by: a.adminUserId, acknowledge_note: 'crew on site' });
    const again = await api.request(`/api/v1/assets/${asset}/alerts/${alert.id}/acknowledge`, { method: 'POST', token: a.token, json: {} });
    expect(again.body.acknowledged_at).toBe(ack.body.acknowledged_at);

    expect(await ingest(a, [reading(asset, 'temperature', 85, 4 * 60_000)])).toMatchObject({ alerts_raised: 0 });
    expect(await ingest(a, [reading(asset, 'temperature', 100, 3 * 60_000)])).toMatchObject({ alerts_resolved: 1 });
    const after = (await alertsOf()).items.find((x: any) => x.id === alert.id);
    expect(after).toMatchObject({ status: 'resolved', acknowledged_at: ack.body.acknowledged_at, peak_value: 79 });

    // (The first test's alert became critical too, by its late peak.)
    const tenantWide = await api.request(`/api/v1/assets/alerts?asset_id=${asset}&severity=critical`, { token: a.token });
    expect(tenantWide.body.items.map((x: any) => x.id)).toContain(alert.id);
    const warnings = await api.request(`/api/v1/assets/alerts?asset_id=${asset}&severity=warning`, { token: a.token });
    expect(warnings.body.items.map((x: any) => x.id)).not.toContain(alert.id);
    expectError(await api.request(`/api/v1/assets/${asset}/alerts/${randomUUID()}/acknowledge`, { method: 'POST', token: a.token, json: {} }), 404, 'NOT_FOUND');
  });

  it('keeps baseline history, and judges the latest reading against a new baseline at once', async () => {
    const raisedBefore = (await outbox(a, 'asset.alert.raised')).length;
    const newer = await setBaseline(a, asset, { parameter: 'temperature', baseline_value: 200, tolerance_percent: 10 });
    // The latest reading (100) is far outside 180..220.
    const open = await alertsOf('?status=open');
    expect(open.items).toHaveLength(1);
    expect(open.items[0]).toMatchObject({ value: 100, baseline_value: 200, severity: 'critical' });
    expect(await outbox(a, 'asset.alert.raised')).toHaveLength(raisedBefore + 1);

    const active = await api.request(`/api/v1/assets/${asset}/baselines`, { token: a.token });
    expect(active.body.items.map((x: any) => [x.id, x.baseline_value, x.active])).toEqual([[newer.id, 200, true]]);
    const history = await api.request(`/api/v1/assets/${asset}/baselines?history=true`, { token: a.token });
    expect(history.body.items.map((x: any) => [x.baseline_value, x.active, x.superseded_at === null])).toEqual([
      [200, true, true],
      [100, false, false],
    ]);
    expect(await healthRow()).toMatchObject({ health_score: 0, status: 'critical' });
  });

  it('applies the predictive config alert sensitivity from the next reading', async () => {
    const type = `fan-${randomUUID().slice(0, 8)}`;
    const fan = await createAsset(a, { name: 'Fan', type });
    await setBaseline(a, fan, { parameter: 'vibration', baseline_value: 100, tolerance_percent: 10 });
    expect(await ingest(a, [reading(fan, 'vibration', 107, 60_000)])).toMatchObject({ alerts_raised: 0 });
    const put = await api.request(`/api/v1/predictive-config/${type}`, { method: 'PUT', token: a.token, json: { alert_sensitivity: 2 } });
    expect(put.status).toBe(200);
    // Tolerance 10 % / 2 = 5 %: 107 is now outside 95..105.
    expect(await ingest(a, [reading(fan, 'vibration', 107, 30_000)])).toMatchObject({ alerts_raised: 1 });
  });
});

describe('condition and inspections', () => {
  let valve: string;
  beforeAll(async () => {
    valve = await createAsset(a, { name: 'Valve', type: 'valve' });
    await setBaseline(a, valve, { parameter: 'pressure', baseline_value: 50, tolerance_percent: 20, measurement_unit: 'bar' });
  });

  const condition = async () => (await api.request(`/api/v1/assets/${valve}/condition`, { token: a.token })).body;
  const conditionRow = () => api.deps.db('asset_conditions').where({ tenant_id: a.tenantId, asset_id: valve }).first();

  it('is recalculated after a reading', async () => {
    expect(await condition()).toMatchObject({ overall_condition: 'good', parameters: [], last_inspection: null });
    const r = reading(valve, 'pressure', 55, 60_000, { unit: 'bar' });
    await ingest(a, [r, reading(valve, 'humidity', 40, 60_000)]);
    const c = await condition();
    expect(c).toMatchObject({ overall_condition: 'good', last_inspection: null });
    expect(c.parameters).toEqual([
      {
        parameter: 'humidity',
        latest_value: 40,
        unit: null,
        measured_at: expect.any(String),
        baseline_value: null,
        tolerance_percent: null,
        deviation_percent: null,
        status: 'no_baseline',
        condition: null,
      },
      {
        parameter: 'pressure',
        latest_value: 55,
        unit: 'bar',
        measured_at: r.timestamp,
        baseline_value: 50,
        tolerance_percent: 20,
        deviation_percent: 10,
        status: 'within_tolerance',
        condition: 'good',
      },
    ]);
    expect((await conditionRow()).overall_condition).toBe('good');

    await ingest(a, [reading(valve, 'pressure', 66, 50_000)]); // 1.6 × the tolerance
    expect((await condition()).overall_condition).toBe('poor');
    await ingest(a, [reading(valve, 'pressure', 55, 40_000)]);
    expect((await conditionRow()).overall_condition).toBe('good');
  });

  it('is recalculated after an inspection, which also enters health', async () => {
    const performedAt = new Date(Date.now() - 2 * DAY);
    const res = await api.request(`/api/v1/assets/${valve}/inspections`, {
      method: 'POST',
      token: a.token,
      json: { condition: 'poor', performed_at: performedAt.toISOString(), notes: 'seat wear' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ asset_id: valve, condition: 'poor', notes: 'seat wear', performed_at: performedAt.toISOString(), recorded_by: a.adminUserId });
    const c = await condition();
    expect(c).toMatchObject({ overall_condition: 'poor', last_inspection: performedAt.toISOString().slice(0, 10) });
    expect(await conditionRow()).toMatchObject({ overall_condition: 'poor' });
    // pressure 55 scores 85, the poor inspection 40: min(0.7 × 85 + 0.3 × 40, 40 + 25) = 65
    const health = await api.request(`/api/v1/assets/${valve}/health`, { token: a.token });
    expect(health.body).toMatchObject({ health_score: 65, status: 'fair' });
    expect(health.body.factors.map((f: any) => [f.name, f.score])).toEqual([
      ['pressure', 85],
      ['inspection', 40],
    ]);

    await api.request(`/api/v1/assets/${valve}/inspections`, { method: 'POST', token: a.token, json: { condition: 'good' } });
    expect(await condition()).toMatchObject({ overall_condition: 'good', last_inspection: new Date().toISOString().slice(0, 10) });
    const list = await api.request(`/api/v1/assets/${valve}/inspections`, { token: a.token });
    expect(list.body.items.map((i: any) => i.condition)).toEqual(['good', 'poor']);
    const health2 = await api.request(`/api/v1/assets/${valve}/health`, { token: a.token });
    expect(health2.body.factors[1]).toMatchObject({ name: 'inspection', score: 100, trend: 'improving' });

    // A reading recomputes both from the inspections the reading pipeline reads itself: the same figures.
    await ingest(a, [reading(valve, 'pressure', 55, 20_000)]);
    const health3 = await api.request(`/api/v1/assets/${valve}/health`, { token: a.token });
    expect(health3.body.factors.map((f: any) => f.name)).toEqual(['pressure', 'inspection']);
    expect(health3.body.factors[1]).toEqual(health2.body.factors[1]);
    expect(await condition()).toMatchObject({ overall_condition: 'good', last_inspection: new Date().toISOString().slice(0, 10) });
  });

  it('takes next_inspection and open_work_orders from the maintenance plans and tasks of the asset', async () => {
    // next_inspection from inspection plans and tasks only: test/api/inspection-tasks.test.ts.
    const present = await api.deps.db.raw(`select to_regclass('maintenance_plans') is not null as plans, to_regclass('maintenance_tasks') is not null as tasks`);
    const { plans, tasks } = present.rows[0];
    const due = new Date(Date.now() + 10 * DAY);
    if (plans) {
      await api.deps.db('maintenance_plans').insert({
        tenant_id: a.tenantId,
        name: 'Valve PM',
        status: 'active',
        asset_ids: [valve],
        trigger: JSON.stringify({ type: 'calendar' }),
        next_due_at: due,
        task_kind: 'inspection',
      });
    }
    if (tasks) {
      await api.deps.db('maintenance_tasks').insert([
        { tenant_id: a.tenantId, asset_ids: [valve], task_code: `PM-${randomUUID().slice(0, 6)}`, title: 'Valve PM', status: 'open', due_at: due, kind: 'preventive' },
        {
          tenant_id: a.tenantId,
          asset_ids: [valve],
          task_code: `PM-${randomUUID().slice(0, 6)}`,
          title: 'Valve PM',
          status: 'done',
          due_at: due,
          completed_at: new Date(),
          kind: 'preventive',
        },
      ]);
    }
    const c = await condition();
    expect(c.next_inspection).toBe(plans ? due.toISOString().slice(0, 10) : null);
    expect(c.open_work_orders).toBe(tasks ? 1 : 0);
  });
});

describe('predictive config', () => {
  it('validates the body (422)', async () => {
    const put = (json: unknown) => api.request('/api/v1/predictive-config/pump', { method: 'PUT', token: a.token, json });
    const cases = [
      { model_inputs: { temp: 's99' } },
      { model_inputs: { temp: 's2', other: 's2' } },
      { model_inputs: { 'bad name!': 's2' } },
      { cycle_length_days: 0 },
      { alert_sensitivity: 0 },
      { action_thresholds: { immediate_rul_days: 40, schedule_rul_days: 30 } },
      { action_thresholds: { immediate_probability: 0.1, schedule_probability: 0.3 } },
      { operational_parameters: { torque: 'x' } },
      { unknown_field: 1 },
    ];
    for (const body of cases) expectError(await put(body), 422, 'VALIDATION_ERROR');
  });

  it('answers the defaults until configured, stores a config, and removes it', async () => {
    const type = `press-${randomUUID().slice(0, 8)}`;
    const before = await api.request(`/api/v1/predictive-config/${type}`, { token: a.token });
    expect(before.body).toMatchObject({ asset_type: type, configured: false, model_inputs: {}, cycle_length_days: 1, alert_sensitivity: 1 });
    const put = await api.request(`/api/v1/predictive-config/${type}`, {
      method: 'PUT',
      token: a.token,
      json: { model_inputs: { hpc_temp: 's3' }, cycle_length_days: 0.5, action_thresholds: { schedule_rul_days: 20 }, operational_parameters: { load: 'motor_load' } },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      asset_type: type,
      configured: true,
      model_inputs: { hpc_temp: 's3' },
      cycle_length_days: 0.5,
      action_thresholds: { immediate_probability: 0.5, immediate_rul_days: 7, schedule_probability: 0.2, schedule_rul_days: 20, monitor_rul_days: 90 },
      alert_sensitivity: 1,
      operational_parameters: { load: 'motor_load' },
    });
    expect((await api.request(`/api/v1/predictive-config/${type}`, { token: a.token })).body).toEqual(put.body);
    const list = await api.request('/api/v1/predictive-config', { token: a.token });
    expect(list.body.items.map((c: any) => c.asset_type)).toContain(type);
    expect((await api.request('/api/v1/predictive-config', { token: b.token })).body.items.map((c: any) => c.asset_type)).not.toContain(type);
    expect((await api.request(`/api/v1/predictive-config/${type}`, { method: 'DELETE', token: a.token })).status).toBe(204);
    expectError(await api.request(`/api/v1/predictive-config/${type}`, { method: 'DELETE', token: a.token }), 404, 'NOT_FOUND');
  });
});

describe('prognostics and the digital twin', () => {
  const dataDir = path.join(__dirname, '..', '..', 'data', 'cmapss');
  const engine1 = parseCmapss(fs.readFileSync(path.join(dataDir, 'test_FD001.txt'), 'utf8'))[0]!;
  const trueRul = parseRulFile(fs.readFileSync(path.join(dataDir, 'RUL_FD001.txt'), 'utf8'))[0]!;
  const sensors = FD001_MODEL.feature_spec.sensors;
  const modelInputs = Object.fromEntries(sensors.map((s) => [`sensor_${s}`, s]));
  let type: string;

  /** Engine cycles as readings: cycle k at (40 - k) days ago plus an hour, one reading per sensor. */
  function engineReadings(assetId: string, cycles: number) {
    return engine1.records
      .slice(0, cycles)
      .flatMap((record) => sensors.map((s) => reading(assetId, `sensor_${s}`, record.sensors[s] as number, (40 - record.cycle) * DAY - 3_600_000)));
  }

  beforeAll(async () => {
    type = `turbofan-${randomUUID().slice(0, 8)}`;
    const put = await api.request(`/api/v1/predictive-config/${type}`, {
      method: 'PUT',
      token: a.token,
      json: { model_inputs: modelInputs, cycle_length_days: 1, operational_parameters: { temperature: 'sensor_s4' } },
    });
    expect(put.status).toBe(200);
  });

  it('answers with the general model, saying what is missing, for an asset type without model inputs and without baselines', async () => {
    const asset = await createAsset(a, { name: 'Unmapped', type: `nothing-${randomUUID().slice(0, 8)}` });
    const res = await api.request(`/api/v1/assets/${asset}/prognostics`, { token: a.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'insufficient_data',
      remaining_useful_life: null,
      failure_probability: null,
      recommended_action: 'collect_more_data',
      confidence: 0,
      confidence_level: 'low',
      model_version: 'degradation-trend-v2',
      reason: { code: 'no_limits' },
    });
  });

  it('says so, with no number, with too few cycles of history', async () => {
    const asset = await createAsset(a, { name: 'Young engine', type });
    await ingest(a, engineReadings(asset, 10));
    const res = await api.request(`/api/v1/assets/${asset}/prognostics`, { token: a.token });
    expect(res.body).toMatchObject({
      status: 'insufficient_data',
      remaining_useful_life: null,
      failure_probability: null,
      confidence_level: 'low',
      reason: { code: 'too_few_cycles', required_cycles: 30, available_cycles: 10, message: 'needs 30 cycles of history, has 10' },
      inputs: { cycles_available: 10, cycles_required: 30, cycle_length_days: 1 },
    });
  });

  it('names the model sensors that no reading feeds', async () => {
    const asset = await createAsset(a, { name: 'Partly wired engine', type });
    const wired = new Set(['s2', 's3', 's4']);
    await ingest(
      a,
      engineReadings(asset, 31).filter((r) => wired.has(r.parameter.replace('sensor_', ''))),
    );
    const res = await api.request(`/api/v1/assets/${asset}/prognostics`, { token: a.token });
    expect(res.body).toMatchObject({
      status: 'insufficient_data',
      remaining_useful_life: null,
      reason: { code: 'missing_sensors', sensors: sensors.filter((s) => !wired.has(s)) },
      inputs: { cycles_available: 0 },
    });
  });

  it('reads the whole history the model uses: a long-lived engine answers as the model does on all its cycles', async () => {
    // The longest test engine; its early cycles are the baseline the history features compare the
    // last window with, so an endpoint that loaded only the last window would answer differently.
    const engines = parseCmapss(fs.readFileSync(path.join(dataDir, 'test_FD001.txt'), 'utf8'));
    const longest = engines.reduce((a, b) => (b.records.length > a.records.length ? b : a));
    expect(longest.records.length).toBeGreaterThan(200);
    const asset = await createAsset(a, { name: 'Long-lived engine', type });
    const last = longest.records.length;
    const readings = longest.records.flatMap((record) =>
      sensors.map((s) => reading(asset, `sensor_${s}`, record.sensors[s] as number, (last + 1 - record.cycle) * DAY - 3_600_000)),
    );
    for (let i = 0; i < readings.length; i += 500) await ingest(a, readings.slice(i, i + 500));
    const res = await api.request(`/api/v1/assets/${asset}/prognostics`, { token: a.token });
    const whole = prognose({ series: longest.records.map((r) => ({ cycle: r.cycle, sensors: r.sensors })), cycle_length_days: 1, horizon_days: 30 });
    const lastWindow = prognose({ series: longest.records.slice(-35).map((r) => ({ cycle: r.cycle, sensors: r.sensors })), cycle_length_days: 1, horizon_days: 30 });
    if (whole.status !== 'ok' || lastWindow.status !== 'ok') throw new Error('expected predictions');
    expect(lastWindow.remaining_useful_life_cycles).not.toBe(whole.remaining_useful_life_cycles);
    expect(res.body).toMatchObject({ status: 'ok', remaining_useful_life_cycles: whole.remaining_useful_life_cycles, inputs: { cycles_available: last } });
  });

  it('predicts from a seeded FD001 engine exactly as the model does on the same cycles', async () => {
    const asset = await createAsset(a, { name: 'Engine 1', type });
    const readings = engineReadings(asset, engine1.records.length);
    expect(readings).toHaveLength(31 * 14);
    await ingest(a, readings);
    const res = await api.request(`/api/v1/assets/${asset}/prognostics`, { token: a.token });
    const expected = prognose({ series: engine1.records.map((r) => ({ cycle: r.cycle, sensors: r.sensors })), cycle_length_days: 1, horizon_days: 30 });
    expect(expected.status).toBe('ok');
    if (expected.status !== 'ok') return;
    expect(res.body).toMatchObject({
      status: 'ok',
      remaining_useful_life: expected.remaining_useful_life,
      remaining_useful_life_cycles: expected.remaining_useful_life_cycles,
      failure_probability: expected.failure_probability,
      recommended_action: expected.recommended_action,
      confidence: expected.confidence,
      confidence_level: expected.confidence_level,
      model_version: FD001_MODEL.model_version,
      reason: null,
      inputs: { cycles_available: 31 },
    });
    // Engine 1 of the test set has 112 cycles left; the model caps at 125.
    expect(Math.abs(res.body.remaining_useful_life - trueRul)).toBeLessThan(30);

    // What-if: the twin runs the same model with the inputs changed, and stores the result.
    const sim = await api.request(`/api/v1/assets/${asset}/digital-twin/simulate`, {
      method: 'POST',
      token: a.token,
      json: { changes: { temperature: 0.5 }, label: 'hotter HPC' },
    });
    expect(sim.status).toBe(201);
    expect(sim.body).toMatchObject({ label: 'hotter HPC', changes: { temperature: 0.5 }, model_version: FD001_MODEL.model_version });
    expect(sim.body.result.changes).toEqual([{ target: 'temperature', parameter: 'sensor_s4', percent: 0.5, model_sensor: 's4' }]);
    expect(sim.body.result.baseline).toMatchObject({ status: 'ok', remaining_useful_life: expected.remaining_useful_life });
    expect(sim.body.result.scenario.status).toBe('ok');
    // The twin changes the last `window` cycles ("from now on"); older cycles keep their readings.
    const changedFrom = engine1.records.length - FD001_MODEL.feature_spec.window;
    const hotter = prognose({
      series: engine1.records.map((r, i) => ({ cycle: r.cycle, sensors: i < changedFrom ? r.sensors : { ...r.sensors, s4: (r.sensors.s4 as number) * 1.005 } })),
      cycle_length_days: 1,
      horizon_days: 30,
    });
    expect(hotter.status === 'ok' && sim.body.result.scenario.remaining_useful_life).toBe(hotter.status === 'ok' && hotter.remaining_useful_life);
    const twin = await api.request(`/api/v1/assets/${asset}/digital-twin`, { token: a.token });
    expect(twin.body.last_simulation).toMatchObject({ id: sim.body.id, label: 'hotter HPC' });
    expect(twin.body.operational_parameters.temperature).toMatchObject({ parameter: 'sensor_s4', value: engine1.records[30]!.sensors.s4 });
    expect(twin.body.active_sensors).toHaveLength(14);
    const sims = await api.request(`/api/v1/assets/${asset}/digital-twin/simulations`, { token: a.token });
    expect(sims.body.total).toBe(1);
  });

  it('the twin lists current readings and anomalies against baselines and against recent behaviour', async () => {
    const mixer = await createAsset(a, { name: 'Mixer', type: 'mixer' });
    await setBaseline(a, mixer, { parameter: 'temperature', baseline_value: 60, tolerance_percent: 10 });
    const vib = [10, 11, 9, 10, 11, 9, 10, 11, 9, 10].map((v, i) => reading(mixer, 'vibration', v, (20 - i) * 60_000));
    await ingest(a, [...vib, reading(mixer, 'vibration', 25, 60_000), reading(mixer, 'temperature', 75, 60_000), reading(mixer, 'speed', 1200, 60_000, { unit: 'rpm' })]);
    const twin = await api.request(`/api/v1/assets/${mixer}/digital-twin`, { token: a.token });
    expect(twin.status).toBe(200);
    expect(twin.body.active_sensors.map((s: any) => [s.parameter, s.value, s.stale])).toEqual([
      ['speed', 1200, false],
      ['temperature', 75, false],
      ['vibration', 25, false],
    ]);
    expect(twin.body.operational_parameters).toMatchObject({ speed: { value: 1200, unit: 'rpm' }, temperature: { value: 75 }, load: null, pressure: null });
    expect(twin.body.last_simulation).toBeNull();
    expect(twin.body.anomalies.map((x: any) => [x.kind, x.parameter, x.severity])).toEqual([
      ['baseline_deviation', 'temperature', 'critical'],
      ['behaviour_shift', 'vibration', 'critical'],
    ]);
  });
});

describe('GET /dashboard', () => {
  it('computes the KPIs of the tenant on known data', async () => {
    const t = await createTenant(api);
    const x = await createAsset(t, { name: 'X', type: 'pump' });
    const y = await createAsset(t, { name: 'Y', type: 'pump' });
    await createAsset(t, { name: 'Z', type: 'pump' });
    await setBaseline(t, x, { parameter: 'temperature', baseline_value: 100, tolerance_percent: 10 });
    await ingest(t, [reading(x, 'temperature', 115, 60_000)]);
    await api.request(`/api/v1/assets/${y}/inspections`, { method: 'POST', token: t.token, json: { condition: 'critical' } });

    const [webhook] = await api.deps
      .db('webhooks')
      .insert({ tenant_id: t.tenantId, url: 'https://hooks.example.com/x', events: ['asset.*'], status: 'paused', secret_encrypted: 'unused' })
      .returning('id');
    const attempt = (status: string, createdAt = new Date()) => ({
      tenant_id: t.tenantId,
      webhook_id: webhook.id,
      delivery_id: randomUUID(),
      event_id: randomUUID(),
      event_type: 'asset.alert.raised',
      attempt: 1,
      status,
      created_at: createdAt,
    });
    await api.deps
      .db('webhook_deliveries')
      .insert([attempt('succeeded'), attempt('succeeded'), attempt('succeeded'), attempt('failed'), attempt('failed', new Date(Date.now() - 8 * DAY))]);

    const res = await api.request('/api/v1/dashboard', { token: t.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      assets: { total: 3, by_health_status: { critical: 1, poor: 0, fair: 1, good: 0, excellent: 1 }, not_assessed: 1 },
      alerts: { open: 1, unacknowledged: 1, critical: 0 },
      webhooks: { success_rate: 75, attempts: 4, window_days: 7 },
      agents: { conversations_today: 0 },
    });
    expect(res.body.maintenance).toMatchObject({ open_tasks: expect.any(Number), overdue_tasks: expect.any(Number), compliance_this_month: { period_start: expect.any(String) } });

    // Another tenant sees none of it.
    const other = await api.request('/api/v1/dashboard', { token: b.token });
    expect(other.body.webhooks.attempts).toBe(0);
  });

  it('counts maintenance tasks when the maintenance tables exist', async () => {
    const present = (await api.deps.db.raw(`select to_regclass('maintenance_tasks') is not null as tasks`)).rows[0].tasks;
    const t = await createTenant(api);
    if (present) {
      const now = Date.now();
      const task = (status: string, dueMsAgo: number, completedMsAgo: number | null) => ({
        tenant_id: t.tenantId,
        asset_ids: [],
        task_code: `PM-${randomUUID().slice(0, 6)}`,
        title: `${status} task`,
        status,
        due_at: new Date(now - dueMsAgo),
        completed_at: completedMsAgo === null ? null : new Date(now - completedMsAgo),
        kind: 'preventive',
        interval_hours: 1, // grace 10 % of an hour: 6 minutes
      });
      await api.deps.db('maintenance_tasks').insert([
        task('open', -DAY, null), // not due yet: pending
        task('in_progress', 600_000, null), // 10 min past due, open: overdue
        task('done', 120_000, 180_000), // completed before due: on time
        task('done', 1_200_000, 60_000), // completed 19 min after due: late
        task('cancelled', 600_000, null), // not counted
        { ...task('in_progress', 2 * 3_600_000, null), interval_hours: 24 }, // 2 h past due, within 10 % of 24 h: not overdue
      ]);
    }
    const res = await api.request('/api/v1/dashboard', { token: t.token });
    if (present) {
      expect(res.body.maintenance).toMatchObject({ open_tasks: 3, overdue_tasks: 1 });
      const sameMonth = new Date(Date.now() - 3 * 3_600_000).getUTCMonth() === new Date().getUTCMonth();
      if (sameMonth) expect(res.body.maintenance.compliance_this_month).toMatchObject({ on_time: 1, overdue: 2, rate: 33.33 });
    } else {
      expect(res.body.maintenance).toMatchObject({ open_tasks: 0, overdue_tasks: 0, compliance_this_month: { rate: null, on_time: 0, overdue: 0 } });
    }
  });
});

it("answers the dashboard when a task's interval is so long that its grace would pass the last representable time (a counter plan on a meter that barely turns)", async () => {
  const t = await createTenant(api);
  await api.deps.db('maintenance_tasks').insert({
    tenant_id: t.tenantId,
    asset_ids: [],
    task_code: `PM-${randomUUID().slice(0, 6)}`,
    title: 'Slow meter task',
    status: 'open',
    due_at: new Date(Date.now() - 600_000),
    kind: 'preventive',
    interval_hours: 1e15,
  });
  const res = await api.request('/api/v1/dashboard', { token: t.token });
  expect(res.status).toBe(200);
  // Its grace reaches the latest instant: open, not overdue.
  expect(res.body.maintenance).toMatchObject({ open_tasks: 1, overdue_tasks: 0 });
});

describe("another tenant's asset is 404 on every sub-resource", () => {
  let asset: string;
  let alertId: string;
  beforeAll(async () => {
    asset = await createAsset(a, { name: 'Private', type: 'pump' });
    await setBaseline(a, asset, { parameter: 'p', baseline_value: 10, tolerance_percent: 10 });
    await ingest(a, [reading(asset, 'p', 50, 60_000)]);
    alertId = (await api.request(`/api/v1/assets/${asset}/alerts`, { token: a.token })).body.items[0].id;
  });

  // Every row has three items: jest takes a callback parameter beyond the row's items for `done`.
  it.each([
    ['GET', '', undefined],
    ['PUT', '', { name: 'x' }],
    ['DELETE', '', undefined],
    ['GET', '/health', undefined],
    ['GET', '/condition', undefined],
    ['GET', '/prognostics', undefined],
    ['GET', '/digital-twin', undefined],
    ['POST', '/digital-twin/simulate', { changes: { load: 10 } }],
    ['GET', '/digital-twin/simulations', undefined],
    ['GET', '/baselines', undefined],
    ['POST', '/baselines', { parameter: 'p', baseline_value: 1, tolerance_percent: 1 }],
    ['GET', '/alerts', undefined],
    ['POST', '/alerts/:alert/acknowledge', {}],
    ['GET', '/inspections', undefined],
    ['POST', '/inspections', { condition: 'good' }],
    ['GET', '/readings', undefined],
  ])('%s /assets/{id}%s', async (method, suffix, json: unknown) => {
    const url = `/api/v1/assets/${asset}${suffix.replace(':alert', alertId)}`;
    expectError(await api.request(url, { method, token: b.token, json }), 404, 'NOT_FOUND');
  });

  it('also on the tree, the gateway and the tenant-wide alert list', async () => {
    expectError(await api.request(`/api/v1/assets/tree?root_id=${asset}`, { token: b.token }), 404, 'NOT_FOUND');
    expectError(
      await api.request('/api/v1/machine/events', { method: 'POST', token: b.token, json: { event_id: eventId(), asset_id: asset, type: 'x.y', timestamp: ago(1000) } }),
      404,
      'NOT_FOUND',
    );
    const alerts = await api.request(`/api/v1/assets/alerts?asset_id=${asset}`, { token: b.token });
    expect(alerts.body).toMatchObject({ total: 0, items: [] });
    const events = await api.request(`/api/v1/machine/events?asset_id=${asset}`, { token: b.token });
    expect(events.body.total).toBe(0);
    // Nothing of B's attempts reached A's asset.
    expect((await api.request(`/api/v1/assets/${asset}/alerts`, { token: a.token })).body.items[0]).toMatchObject({ id: alertId, status: 'open', acknowledged_at: null });
  });
});
