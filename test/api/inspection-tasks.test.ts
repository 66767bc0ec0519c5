/**
 * SPEC.md: an asset's condition is recalculated each time an inspection is completed. A plan whose
 * `task_kind` is `inspection` generates inspection tasks (through its workflow on the test stack);
 * completing one with the inspector's rating records an inspection on each asset of the task and
 * recomputes their condition and health, in the same transaction as the completion.
 */
import { createTenant, expectError, startTestApi, TestApi, TestTenant } from '../support/api';

jest.setTimeout(60_000);

let api: TestApi;
let tenant: TestTenant;
let other: TestTenant;

beforeAll(async () => {
  api = await startTestApi();
  [tenant, other] = await Promise.all([createTenant(api), createTenant(api)]);
});
afterAll(() => api.close());

const call = (t: TestTenant, path: string, method = 'GET', json?: unknown) => api.request(path, { method, token: t.token, json });
const weekly = () => ({ type: 'calendar', every: 1, unit: 'weeks', start_at: new Date(Math.ceil(Date.now() / 3_600_000 + 24) * 3_600_000).toISOString(), mode: 'fixed' });

async function inspectionTask(t: TestTenant, assetIds: string[]): Promise<string> {
  const plan = await call(t, '/api/v1/maintenance/plans', 'POST', { name: 'Monthly walk-down', asset_ids: assetIds, trigger: weekly(), task_kind: 'inspection' });
  expect({ status: plan.status, kind: plan.body.task_kind }).toEqual({ status: 201, kind: 'inspection' });
  const executed = await call(t, `/api/v1/maintenance/plans/${plan.body.id}/execute`, 'POST', {});
  expect(executed.status).toBe(200);
  const task = await call(t, `/api/v1/maintenance/tasks/${executed.body.task_id}`);
  expect(task.body).toMatchObject({ kind: 'inspection', asset_ids: assetIds, status: 'open' });
  return executed.body.task_id;
}

describe('inspection tasks', () => {
  it('completing one records the rating on each asset and recomputes its condition at once', async () => {
    const assets = await Promise.all(['Pump P-1', 'Motor M-1'].map(async (name) => (await call(tenant, '/api/v1/assets', 'POST', { name, type: 'pump' })).body.id as string));
    const taskId = await inspectionTask(tenant, assets);
    expect((await call(tenant, `/api/v1/assets/${assets[0]}/condition`)).body).toMatchObject({ overall_condition: 'good', last_inspection: null });

    // Without the result: refused, nothing changes.
    expectError(await call(tenant, `/api/v1/maintenance/tasks/${taskId}/complete`, 'POST', {}), 422, 'VALIDATION_ERROR');
    expect((await call(tenant, `/api/v1/maintenance/tasks/${taskId}`)).body.status).toBe('open');

    const done = await call(tenant, `/api/v1/maintenance/tasks/${taskId}/complete`, 'POST', { condition: 'poor', notes: 'bearing noise' });
    expect(done.body).toMatchObject({ status: 'done', kind: 'inspection' });
    const today = new Date().toISOString().slice(0, 10);
    for (const assetId of assets) {
      expect((await call(tenant, `/api/v1/assets/${assetId}/condition`)).body).toMatchObject({ overall_condition: 'poor', last_inspection: today });
      const inspections = await call(tenant, `/api/v1/assets/${assetId}/inspections`);
      expect(inspections.body.items).toEqual([expect.objectContaining({ condition: 'poor', notes: 'bearing noise' })]);
      const health = await call(tenant, `/api/v1/assets/${assetId}/health`);
      expect(health.body.factors).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'inspection', condition: 'poor' })]));
    }
    // One audit record for the completion, naming the inspections it recorded.
    const audit = await api.deps.db('audit_log').where({ tenant_id: tenant.tenantId, action: 'maintenance_task.done', resource_id: taskId });
    expect(audit).toHaveLength(1);
    expect(audit[0].details).toMatchObject({ condition: 'poor', inspection_ids: expect.arrayContaining([expect.any(String), expect.any(String)]) });
    expect(await api.deps.db('asset_inspections').whereIn('id', audit[0].details.inspection_ids).pluck('asset_id')).toEqual(expect.arrayContaining(assets));
    // The other tenant sees none of it.
    expectError(await call(other, `/api/v1/assets/${assets[0]}/inspections`), 404, 'NOT_FOUND');
  });

  it('a rating on a preventive task is refused, and a preventive task completes as before', async () => {
    const plan = await call(tenant, '/api/v1/maintenance/plans', 'POST', { name: 'Grease', trigger: weekly() });
    expect(plan.body.task_kind).toBe('preventive');
    const { task_id } = (await call(tenant, `/api/v1/maintenance/plans/${plan.body.id}/execute`, 'POST', {})).body;
    expectError(await call(tenant, `/api/v1/maintenance/tasks/${task_id}/complete`, 'POST', { condition: 'good' }), 422, 'VALIDATION_ERROR');
    expect((await call(tenant, `/api/v1/maintenance/tasks/${task_id}/complete`, 'POST', {})).body.status).toBe('done');
  });
});
