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

  it('next_inspection comes from the inspection plans and open inspection tasks of the asset, not from preventive plans', async () => {
    const asset = (await call(tenant, '/api/v1/assets', 'POST', { name: 'Compressor C-7', type: 'compressor' })).body.id as string;
    const nextInspection = async () => (await call(tenant, `/api/v1/assets/${asset}/condition`)).body.next_inspection;
    const hoursAhead = (hours: number) => new Date(Math.ceil(Date.now() / 3_600_000 + hours) * 3_600_000).toISOString();
    const createPlan = async (body: Record<string, unknown>) => {
      const res = await call(tenant, '/api/v1/maintenance/plans', 'POST', { name: 'Compressor plan', asset_ids: [asset], ...body });
      expect(res.status).toBe(201);
      return res.body as { id: string; next_due_at: string };
    };
    // A preventive plan due in 3 days is no inspection.
    await createPlan({ trigger: { type: 'calendar', every: 4, unit: 'weeks', start_at: hoursAhead(72), mode: 'fixed' } });
    expect(await nextInspection()).toBeNull();

    // An inspection plan due in 10 days is.
    const inspectionDue = hoursAhead(240);
    const inspection = await createPlan({ trigger: { type: 'calendar', every: 4, unit: 'weeks', start_at: inspectionDue, mode: 'fixed' }, task_kind: 'inspection' });
    expect(inspection.next_due_at).toBe(inspectionDue);
    expect(await nextInspection()).toBe(inspectionDue.slice(0, 10));

    // Executed now (a fixed plan keeps its due date): the open inspection task, due today, comes first.
    const executed = await call(tenant, `/api/v1/maintenance/plans/${inspection.id}/execute`, 'POST', {});
    expect(executed.status).toBe(200);
    const task = (await call(tenant, `/api/v1/maintenance/tasks/${executed.body.task_id}`)).body;
    expect(await nextInspection()).toBe(task.due_at.slice(0, 10));
    expect(task.due_at.slice(0, 10)).not.toBe(inspectionDue.slice(0, 10));

    // Done, it no longer counts: back to the plan's date.
    expect((await call(tenant, `/api/v1/maintenance/tasks/${executed.body.task_id}/complete`, 'POST', { condition: 'good' })).status).toBe(200);
    expect(await nextInspection()).toBe(inspectionDue.slice(0, 10));
  });

  it('a rating on a preventive task is refused, and a preventive task completes as before', async () => {
    const plan = await call(tenant, '/api/v1/maintenance/plans', 'POST', { name: 'Grease', trigger: weekly() });
    expect(plan.body.task_kind).toBe('preventive');
    const { task_id } = (await call(tenant, `/api/v1/maintenance/plans/${plan.body.id}/execute`, 'POST', {})).body;
    expectError(await call(tenant, `/api/v1/maintenance/tasks/${task_id}/complete`, 'POST', { condition: 'good' }), 422, 'VALIDATION_ERROR');
    expect((await call(tenant, `/api/v1/maintenance/tasks/${task_id}/complete`, 'POST', {})).body.status).toBe('done');
  });
});
