/**
 * The services layer without HTTP (issue 22): a service function runs on a unit of work or a
 * tenant scope built by the caller, here as a worker or a CLI would, against the real database
 * and Temporal. What it changes commits with its outbox event and audit row; what it refuses
 * commits nothing.
 */
import { randomUUID } from 'node:crypto';
import { tenantScope } from '../../db/tenant-scope';
import { runUnit } from '../../db/unit-of-work';
import { queryPlanState } from '../../orchestration/maintenance';
import { createBranding, deleteBranding, requireBranding } from '../../services/brandings';
import { createPlan, PlanDeps, setPlanRunning } from '../../services/maintenance';
import { listExtractions, requestExtraction } from '../../services/extractions';
import { createTenant, startTestApi, TestApi, TestTenant } from '../support/api';

let api: TestApi;
let tenant: TestTenant;
let deps: PlanDeps;

beforeAll(async () => {
  api = await startTestApi();
  tenant = await createTenant(api);
  deps = { db: api.deps.db, temporal: api.deps.temporal, callDeadlineMs: api.deps.config.temporal.callDeadlineMs, log: api.deps.logger };
});
afterAll(() => api?.close());

const context = () => ({ tenantId: tenant.tenantId, actor: { type: 'system' as const, id: null }, requestId: null });
const auditOf = (resourceId: string) =>
  api.deps.db('audit_log').where({ tenant_id: tenant.tenantId, resource_id: resourceId }).orderBy('seq').select('action', 'actor_type', 'request_id');

it('creates and deletes a branding through the service, each with its audit row', async () => {
  const created = await runUnit(api.deps.db, context(), (unit) =>
    createBranding(unit, { name: `b-${randomUUID()}`, company_name: 'Acme', primary_color: '#112233', accent_color: '#445566', footer_text: '' }),
  );
  expect(created).toMatchObject({ company_name: 'Acme', footer_text: null, tenant_id: tenant.tenantId });
  expect((await requireBranding(tenantScope(api.deps.db, tenant.tenantId), created.id)).id).toBe(created.id);

  await runUnit(api.deps.db, context(), (unit) => deleteBranding(unit, created.id));
  expect(await api.deps.db('brandings').where({ id: created.id }).first()).toBeUndefined();
  expect(await auditOf(created.id)).toEqual([
    { action: 'branding.created', actor_type: 'system', request_id: null },
    { action: 'branding.deleted', actor_type: 'system', request_id: null },
  ]);
  // Another tenant's or a deleted branding is not found, and nothing is recorded for the refusal.
  await expect(runUnit(api.deps.db, context(), (unit) => deleteBranding(unit, created.id))).rejects.toMatchObject({ code: 'NOT_FOUND', status: 404 });
  expect(await auditOf(created.id)).toHaveLength(2);
});

it('pauses a maintenance plan through the service: the row, its event, its audit row and its workflow', async () => {
  const start = new Date(Date.now() + 7 * 86_400_000).toISOString();
  const plan = await createPlan(
    deps,
    { ...context(), userId: tenant.adminUserId },
    {
      name: `svc-${randomUUID()}`,
      trigger: { type: 'calendar', every: 1, unit: 'weeks', start_at: start, mode: 'fixed' },
      status: 'active',
    },
  );
  expect(plan.status).toBe('active');

  const paused = await setPlanRunning(deps, context(), plan.id, 'pause');
  expect(paused).toMatchObject({ id: plan.id, status: 'paused' });
  expect(await api.deps.db('maintenance_plans').where({ id: plan.id }).first('status')).toEqual({ status: 'paused' });
  const events = await api.deps.db('outbox_events').where({ tenant_id: tenant.tenantId, type: 'maintenance.plan.paused' }).whereRaw(`data->>'plan_id' = ?`, [plan.id]);
  expect(events).toHaveLength(1);
  expect(await auditOf(plan.id)).toEqual([
    { action: 'maintenance_plan.created', actor_type: 'system', request_id: null },
    { action: 'maintenance_plan.paused', actor_type: 'system', request_id: null },
  ]);
  const state = await queryPlanState(await api.deps.temporal.client(), tenant.tenantId, plan.id);
  expect(state.status).toBe('paused');
});

it('requests an extraction through the service: the job row and its audit row; an unknown template commits nothing', async () => {
  const scope = tenantScope(api.deps.db, tenant.tenantId);
  const [template] = await scope.insert('extraction_templates', { name: `svc_${randomUUID().slice(0, 8)}`, fields: JSON.stringify([{ name: 'total', type: 'number' }]) }, ['id']);
  const extractionDeps = { db: api.deps.db, temporal: api.deps.temporal, log: api.deps.logger };
  const job = await requestExtraction(extractionDeps, { ...context(), userId: tenant.adminUserId }, { template_id: template.id, text: 'Total: 42' });
  expect(job).toMatchObject({ template_id: template.id, source_kind: 'text', created_by: tenant.adminUserId });
  expect(await api.deps.db('extractions').where({ id: job.id }).first('tenant_id', 'template_id')).toEqual({ tenant_id: tenant.tenantId, template_id: template.id });
  expect(await auditOf(job.id)).toEqual([{ action: 'extraction.requested', actor_type: 'system', request_id: null }]);
  const page = await listExtractions(scope, { template_id: template.id }, { skip: 0, limit: 10 });
  expect(page.items.map((row) => row.id)).toEqual([job.id]);

  const before = await api.deps.db('extractions').where({ tenant_id: tenant.tenantId }).count({ n: '*' }).first();
  await expect(requestExtraction(extractionDeps, { ...context(), userId: tenant.adminUserId }, { template_id: randomUUID(), text: 'x' })).rejects.toMatchObject({
    code: 'VALIDATION_ERROR',
  });
  expect(await api.deps.db('extractions').where({ tenant_id: tenant.tenantId }).count({ n: '*' }).first()).toEqual(before);
});
