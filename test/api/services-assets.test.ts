/**
 * The asset services without HTTP (issue 22), as a worker or a CLI would call them: a change runs
 * on a unit of work the caller builds, a read on a tenant scope, against the real database. What a
 * service changes commits with its outbox event and audit row; what it refuses commits nothing.
 */
import { randomUUID } from 'node:crypto';
import { tenantScope } from '../../db/tenant-scope';
import { runUnit } from '../../db/unit-of-work';
import { findAsset } from '../../db/queries/assets';
import { checkAssetChange, checkNewAsset, listAssets, prepareAssetRemoval } from '../../services/assets';
import { assetTree } from '../../services/asset-tree';
import { ingestMachineEventBatch, ingestMachineReadings, listMachineEvents } from '../../services/machine';
import { assetPrognostics, digitalTwin, simulateScenario } from '../../services/asset-twin';
import { effectivePredictiveConfig, listPredictiveConfigs, requireStoredConfig, setPredictiveConfig } from '../../services/predictive-config';
import { changePrivacySettings, privacySettings } from '../../services/privacy-settings';
import { dashboard } from '../../services/dashboard';
import { DEFAULT_ACTION_THRESHOLDS } from '../../domain/prognostics';
import { createTenant, startTestApi, TestApi, TestTenant } from '../support/api';

let api: TestApi;
let tenant: TestTenant;

beforeAll(async () => {
  api = await startTestApi();
  tenant = await createTenant(api);
});
afterAll(() => api?.close());

const context = () => ({ tenantId: tenant.tenantId, actor: { type: 'system' as const, id: null }, requestId: null });
const scope = () => tenantScope(api.deps.db, tenant.tenantId);
const otherTenant = () => tenantScope(api.deps.db, randomUUID());
const page = { skip: 0, limit: 50 };
const auditOf = (resourceId: string) => api.deps.db('audit_log').where({ tenant_id: tenant.tenantId, resource_id: resourceId }).orderBy('seq').pluck('action');
const newAsset = async (type: string, parentId: string | null = null): Promise<string> => {
  const [{ id }] = await scope().insert('assets', { name: `svc-${randomUUID()}`, type, parent_id: parentId }, ['id']);
  return id as string;
};

it('lists assets by type and parent, checks parents and cycles, and re-parents children before a delete', async () => {
  const type = `press-${randomUUID()}`;
  const root = await newAsset(type);
  const child = await newAsset(type, root);
  const grandchild = await newAsset(type, child);

  expect((await listAssets(scope(), { type }, page)).items.map((a) => a.id)).toEqual([root, child, grandchild]);
  expect((await listAssets(scope(), { type, parent_id: root }, page)).items.map((a) => a.id)).toEqual([child]);
  expect((await listAssets(scope(), { parent_id: 'not-a-uuid' }, page)).total).toBe(0);
  expect((await listAssets(otherTenant(), { type }, page)).total).toBe(0);

  await runUnit(api.deps.db, context(), async (unit) => {
    await expect(checkNewAsset(unit, { name: 'x', type, parent_id: randomUUID() })).rejects.toMatchObject({ status: 422, code: 'VALIDATION_ERROR' });
    await expect(checkNewAsset(unit, { name: 'x', type, parent_id: root })).resolves.toBeUndefined();
    const rootRow = (await findAsset(unit.scope, root))!;
    await expect(checkAssetChange(unit, rootRow, { parent_id: grandchild })).rejects.toMatchObject({ status: 409, code: 'CONFLICT' });
    unit.audit({ action: 'test.checked', resourceType: 'asset', resourceId: null });
  });

  const childRow = (await findAsset(scope(), child))!;
  await expect(runUnit(api.deps.db, context(), (unit) => prepareAssetRemoval(unit, childRow, 'refuse'))).rejects.toMatchObject({ status: 409, extra: { children: 1 } });
  const prepared = await runUnit(api.deps.db, context(), async (unit) => {
    const result = await prepareAssetRemoval(unit, childRow, 'reparent');
    unit.audit({ action: 'test.prepared', resourceType: 'asset', resourceId: child });
    return result;
  });
  expect(prepared).toEqual({ reparented_children: 1 });
  expect((await findAsset(scope(), grandchild))!.parent_id).toBe(root);
});

it('reads the asset tree below a root, nested, and 404s a root of another tenant', async () => {
  const root = await newAsset('line');
  const child = await newAsset('cell', root);
  await newAsset('robot', child);
  const tree = await assetTree(scope(), root, 2, (row) => ({ id: row.id, truncated: row.children_truncated }));
  expect(tree).toEqual([{ id: root, truncated: false, children: [{ id: child, truncated: true, children: [] }] }]);
  await expect(assetTree(otherTenant(), root, 5, (row) => row.id)).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });
  await expect(assetTree(scope(), 'not-a-uuid', 5, (row) => row.id)).rejects.toMatchObject({ status: 404 });
});

it('ingests readings and machine events through the service: rows, summary, audit and outbox; an unknown asset refuses the batch', async () => {
  const asset = await newAsset('pump');
  const ts = new Date(Date.now() - 60_000);
  const eventId = randomUUID();
  const reading = { event_id: eventId, asset_id: asset, parameter: 'pressure', value: 4.2, unit: 'bar', timestamp: ts };
  const summary = await runUnit(api.deps.db, context(), (unit) => ingestMachineReadings(unit, [reading, { ...reading, event_id: randomUUID(), value: 4.3 }]));
  expect(summary).toMatchObject({ received: 2, stored: 2, duplicates: 0 });
  const again = await runUnit(api.deps.db, context(), (unit) => ingestMachineReadings(unit, [reading]));
  expect(again).toMatchObject({ received: 1, stored: 0, duplicates: 1 });
  expect(await api.deps.db('sensor_readings').where({ tenant_id: tenant.tenantId, asset_id: asset }).count({ n: '*' })).toEqual([{ n: '2' }]);

  const events = await runUnit(api.deps.db, context(), (unit) =>
    ingestMachineEventBatch(unit, [{ event_id: randomUUID(), asset_id: asset, type: 'vibration.threshold_exceeded', timestamp: ts, severity: 'warning', data: { rms: 7.4 } }]),
  );
  expect(events).toEqual({ received: 1, stored: 1, duplicates: 0 });
  const listed = await listMachineEvents(scope(), { asset_id: asset }, page);
  expect(listed.items).toEqual([expect.objectContaining({ asset_id: asset, event_type: 'vibration.threshold_exceeded', severity: 'warning', data: { rms: 7.4 } })]);
  expect((await listMachineEvents(scope(), { asset_id: 'nope' }, page)).total).toBe(0);
  expect(await api.deps.db('outbox_events').where({ tenant_id: tenant.tenantId, type: 'vibration.threshold_exceeded' }).whereRaw(`data->>'asset_id' = ?`, [asset])).toHaveLength(1);
  expect(await auditOf(asset)).toEqual(['machine.readings.ingested', 'machine.readings.ingested', 'machine.events.ingested']);

  // One unknown asset (or another tenant's) refuses the whole batch: nothing stored, nothing audited.
  const unknown = randomUUID();
  await expect(
    runUnit(api.deps.db, context(), (unit) =>
      ingestMachineReadings(unit, [
        { ...reading, event_id: randomUUID() },
        { ...reading, event_id: randomUUID(), asset_id: unknown },
      ]),
    ),
  ).rejects.toMatchObject({ status: 404, extra: { asset_ids: [unknown] } });
  await expect(
    runUnit(api.deps.db, context(), (unit) => ingestMachineEventBatch(unit, [{ event_id: randomUUID(), asset_id: 'x', type: 'door.opened', timestamp: ts }])),
  ).rejects.toMatchObject({ status: 404 });
  expect(await api.deps.db('sensor_readings').where({ tenant_id: tenant.tenantId, asset_id: asset }).count({ n: '*' })).toEqual([{ n: '2' }]);
  expect(await auditOf(asset)).toHaveLength(3);
});

it('reads the digital twin, runs and stores a simulation, and answers prognostics through the service', async () => {
  const asset = await newAsset('compressor');
  const now = Date.now();
  await runUnit(api.deps.db, context(), (unit) =>
    ingestMachineReadings(unit, [
      { event_id: randomUUID(), asset_id: asset, parameter: 'temperature', timestamp: new Date(now - 2 * 86_400_000), value: 60, unit: 'C' },
      { event_id: randomUUID(), asset_id: asset, parameter: 'vibration', timestamp: new Date(now - 60_000), value: 2.5, unit: 'mm/s' },
    ]),
  );
  const twin = await digitalTwin(scope(), asset);
  expect(twin.asset_id).toBe(asset);
  expect(twin.active_sensors.map((s) => [s.reading.parameter, s.stale]).sort()).toEqual([
    ['temperature', true],
    ['vibration', false],
  ]);
  expect(twin.operational_parameters.temperature?.reading.value).toBe(60);
  expect(twin.operational_parameters.load).toBeNull();
  expect(twin.last_simulation).toBeNull();

  const simulation = await runUnit(api.deps.db, context(), (unit) => simulateScenario(unit, asset, tenant.adminUserId, { changes: { load: 20 }, label: 'more load' }));
  expect(simulation).toMatchObject({ asset_id: asset, scenario: { label: 'more load', changes: { load: 20 } }, created_by: tenant.adminUserId });
  expect(simulation.result).toMatchObject({ baseline: { status: 'insufficient_data' }, scenario: { status: 'insufficient_data' } });
  expect((await digitalTwin(scope(), asset)).last_simulation?.id).toBe(simulation.id);
  expect(await auditOf(asset)).toEqual(['machine.readings.ingested', 'asset.simulation.run']);

  expect(await assetPrognostics(scope(), asset)).toMatchObject({ status: 'insufficient_data', remaining_useful_life: null, confidence: 0 });
  await expect(assetPrognostics(otherTenant(), asset)).rejects.toMatchObject({ status: 404 });
  await expect(runUnit(api.deps.db, context(), (unit) => simulateScenario(unit, randomUUID(), tenant.adminUserId, { changes: { load: 5 } }))).rejects.toMatchObject({
    status: 404,
  });
  expect(await api.deps.db('asset_simulations').where({ asset_id: asset }).count({ n: '*' })).toEqual([{ n: '1' }]);
});

it('sets, reads and lists a predictive config through the service; a type with none has the defaults', async () => {
  const type = `fan-${randomUUID()}`;
  expect(await effectivePredictiveConfig(scope(), type)).toMatchObject({ row: null, config: { asset_type: type, alert_sensitivity: 1 } });
  await expect(requireStoredConfig(scope(), type)).rejects.toMatchObject({ status: 404 });

  const order = { model_inputs: {}, cycle_length_days: 2, action_thresholds: DEFAULT_ACTION_THRESHOLDS, alert_sensitivity: 2, operational_parameters: {}, failure_limits: {} };
  const created = await runUnit(api.deps.db, context(), (unit) => setPredictiveConfig(unit, type, order));
  const updated = await runUnit(api.deps.db, context(), (unit) => setPredictiveConfig(unit, type, { ...order, alert_sensitivity: 3 }));
  expect(updated.row?.id).toBe(created.row?.id);
  expect((await effectivePredictiveConfig(scope(), type)).config).toMatchObject({ cycle_length_days: 2, alert_sensitivity: 3 });
  expect((await listPredictiveConfigs(scope(), page)).items.map((r) => r.asset_type)).toContain(type);
  expect(await auditOf(created.row!.id)).toEqual(['predictive_config.created', 'predictive_config.updated']);
  await expect(requireStoredConfig(otherTenant(), type)).rejects.toMatchObject({ status: 404 });
});

it('changes privacy settings through the service, audited, and reads them back', async () => {
  const before = await privacySettings(scope());
  const after = await runUnit(api.deps.db, context(), (unit) => changePrivacySettings(unit, { pii: { auto_redact: !before.piiAutoRedact } }, new Date()));
  expect(after.piiAutoRedact).toBe(!before.piiAutoRedact);
  expect(after.updatedAt).toBeInstanceOf(Date);
  expect((await privacySettings(scope())).piiAutoRedact).toBe(after.piiAutoRedact);
  expect(await auditOf(tenant.tenantId)).toContain('privacy.settings.updated');
});

it("computes the dashboard's figures for the tenant's own rows", async () => {
  const fresh = await createTenant(api);
  const own = tenantScope(api.deps.db, fresh.tenantId);
  await own.insert('assets', [
    { name: 'a', type: 'pump' },
    { name: 'b', type: 'pump' },
  ]);
  const now = new Date('2026-03-15T12:00:00Z');
  const d = await dashboard(own, now);
  expect(d.assets).toMatchObject({ total: 2, not_assessed: 2 });
  expect(d.alerts).toEqual({ open: 0, unacknowledged: 0, critical: 0 });
  expect(d.maintenance.compliance_this_month).toEqual({
    rate: null,
    on_time: 0,
    overdue: 0,
    period_start: new Date('2026-03-01T00:00:00Z'),
    period_end: new Date('2026-04-01T00:00:00Z'),
  });
  expect(d.webhooks).toEqual({ success_rate: null, attempts: 0, window_days: 7 });
  expect(d.generated_at).toBe(now);
});
