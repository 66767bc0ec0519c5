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
import { listBaselines, setAssetBaseline } from '../../services/asset-alerts';
import { csatAggregates, recordResponse } from '../../services/csat';
import { requestErasure, requestExport } from '../../services/privacy';
import { addCollectionItem, listCollectionItems, removeCollectionItem } from '../../services/collections';
import { closeConversation, listAgentConversations, listConversations } from '../../services/conversations';
import { listAuditEntries, verifyAuditChain } from '../../services/audit';
import { assetCondition, assetHealth, listAssetReadings, recordAssetInspection } from '../../services/asset-state';
import { findAsset } from '../../db/queries/assets';
import { insertReadings } from '../../db/queries/readings';
import { ingestEvent, outboxOverview, requeueParkedEvent } from '../../services/internal';
import { listFiles, recordUpload, removeFileMemberships, removeFileObject, uploadLimitBytes } from '../../services/files';
import { fileById, newFileObjectKey } from '../../db/queries/files';
import { MAX_UPLOAD_BYTES } from '../../domain/tenancy/plans';
import { createTenant, startTestApi, TestApi, TestTenant } from '../support/api';

let api: TestApi;
let tenant: TestTenant;
let deps: PlanDeps;

beforeAll(async () => {
  api = await startTestApi();
  tenant = await createTenant(api);
  deps = { db: api.deps.db, temporal: api.deps.temporal, log: api.deps.logger };
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

it("sets an asset's baseline through the service: the old one becomes history, each set audited", async () => {
  const scope = tenantScope(api.deps.db, tenant.tenantId);
  const [asset] = await scope.insert('assets', { name: `svc-${randomUUID()}`, type: 'pump' }, ['id']);
  const order = { parameter: 'pressure', baseline_value: 10, tolerance_percent: 5 };
  const first = await runUnit(api.deps.db, context(), (unit) => setAssetBaseline(unit, asset.id, tenant.adminUserId, order));
  const second = await runUnit(api.deps.db, context(), (unit) => setAssetBaseline(unit, asset.id, tenant.adminUserId, { ...order, baseline_value: 12 }));
  expect(second).toMatchObject({ asset_id: asset.id, parameter: 'pressure', baseline_value: 12, active: true });
  const active = await listBaselines(scope, asset.id, { history: false }, { skip: 0, limit: 10 });
  expect(active.items.map((b) => b.id)).toEqual([second.id]);
  const all = await listBaselines(scope, asset.id, { history: true }, { skip: 0, limit: 10 });
  expect(all.items.map((b) => [b.id, b.active])).toEqual([
    [second.id, true],
    [first.id, false],
  ]);
  expect(await auditOf(asset.id)).toEqual([
    { action: 'asset.baseline.set', actor_type: 'system', request_id: null },
    { action: 'asset.baseline.set', actor_type: 'system', request_id: null },
  ]);
  await expect(listBaselines(tenantScope(api.deps.db, randomUUID()), asset.id, { history: true }, { skip: 0, limit: 10 })).rejects.toMatchObject({ status: 404 });
});

it('records a CSAT response through the service: the row, its event and audit row, and the aggregates count it', async () => {
  const scope = tenantScope(api.deps.db, tenant.tenantId);
  const [survey] = await scope.insert('csat_surveys', { name: `svc-${randomUUID()}`, question: 'How was it?', scale: 'csat_5', channels: ['email'] }, ['id']);
  const respondedAt = new Date(Date.now() - 60_000);
  const row = await runUnit(api.deps.db, context(), (unit) => recordResponse(unit, { survey_id: survey.id, score: 5, comment: '', responded_at: respondedAt }));
  expect(row).toMatchObject({ survey_id: survey.id, score: 5, comment: null, conversation_id: null });
  expect(await auditOf(row.id)).toEqual([{ action: 'csat.response.recorded', actor_type: 'system', request_id: null }]);
  expect(await api.deps.db('outbox_events').where({ tenant_id: tenant.tenantId }).whereRaw(`data->>'response_id' = ?`, [row.id]).count({ n: '*' }).first()).toEqual({ n: '1' });
  const aggregates = await csatAggregates(scope, { survey_id: survey.id });
  expect(aggregates).toMatchObject({ response_count: 1, csat_percent: 100 });
  await expect(runUnit(api.deps.db, context(), (unit) => recordResponse(unit, { survey_id: survey.id, score: 9 }))).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  expect(await api.deps.db('csat_responses').where({ survey_id: survey.id }).count({ n: '*' }).first()).toEqual({ n: '1' });
});

it("requests a subject's export through the service: recorded once, then reused, each audited; an unknown subject is 404", async () => {
  const scope = tenantScope(api.deps.db, tenant.tenantId);
  const [contact] = await scope.insert('contacts', { name: 'Svc Subject', email: `svc-${randomUUID()}@example.com` }, ['id']);
  const privacyDeps = { db: api.deps.db, temporal: api.deps.temporal };
  const first = await requestExport(privacyDeps, context(), { subject_id: contact.id, format: 'json' }, new Date());
  const second = await requestExport(privacyDeps, context(), { subject_id: contact.id, format: 'json' }, new Date());
  expect(second.row.id).toBe(first.row.id);
  expect(await api.deps.db('privacy_exports').where({ tenant_id: tenant.tenantId, subject_id: contact.id }).select('id')).toEqual([{ id: first.row.id }]);
  expect(await auditOf(first.row.id)).toEqual([
    { action: 'privacy.export.requested', actor_type: 'system', request_id: null },
    { action: 'privacy.export.reused', actor_type: 'system', request_id: null },
  ]);
  await expect(requestErasure(privacyDeps, context(), { subject_id: randomUUID(), reason: 'test', preserve_audit: true })).rejects.toMatchObject({ code: 'NOT_FOUND' });
});

it('adds and removes a collection item through the service, each audited; a second add is 409 and records nothing', async () => {
  const scope = tenantScope(api.deps.db, tenant.tenantId);
  const [collection] = await scope.insert('collections', { name: `svc-${randomUUID()}` }, ['id']);
  const [template] = await scope.insert('extraction_templates', { name: `svc_${randomUUID().slice(0, 8)}`, fields: JSON.stringify([{ name: 'total', type: 'number' }]) }, ['id']);
  const [record] = await scope.insert(
    'extracted_records',
    { template_id: template.id, template_fields: JSON.stringify([{ name: 'total', type: 'number' }]), fields: JSON.stringify({}), engine: 'built-in', model: 'built-in' },
    ['id'],
  );
  const item = { item_type: 'extracted_record' as const, item_id: record.id };
  const added = await runUnit(api.deps.db, context(), (unit) => addCollectionItem(unit, collection.id, tenant.adminUserId, item));
  expect(added).toMatchObject({ collection_id: collection.id, item_type: 'extracted_record', item_id: record.id, added_by: tenant.adminUserId });
  await expect(runUnit(api.deps.db, context(), (unit) => addCollectionItem(unit, collection.id, tenant.adminUserId, item))).rejects.toMatchObject({ code: 'CONFLICT' });
  expect((await listCollectionItems(scope, collection.id, {}, { skip: 0, limit: 10 })).items.map((row) => row.id)).toEqual([added.id]);
  await runUnit(api.deps.db, context(), (unit) => removeCollectionItem(unit, collection.id, record.id));
  expect(await api.deps.db('collection_items').where({ collection_id: collection.id }).count({ n: '*' }).first()).toEqual({ n: '0' });
  expect(await auditOf(collection.id)).toEqual([
    { action: 'collection.item_added', actor_type: 'system', request_id: null },
    { action: 'collection.item_removed', actor_type: 'system', request_id: null },
  ]);
});

it("reads conversations through the service: another tenant's or an unknown agent is 404, an unknown conversation's close commits nothing", async () => {
  const scope = tenantScope(api.deps.db, tenant.tenantId);
  expect(await listConversations(scope, { contact_id: randomUUID() }, { skip: 0, limit: 5 })).toEqual({ items: [], total: 0, skip: 0, limit: 5 });
  await expect(listAgentConversations(scope, randomUUID(), undefined, {}, { skip: 0, limit: 5 })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  const id = randomUUID();
  await expect(closeConversation(api.deps, context(), id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  expect(await auditOf(id)).toEqual([]);
});

it("lists the tenant's audit entries through the service, newest first and filtered, and verifies the chain; another tenant sees none", async () => {
  const created = await runUnit(api.deps.db, context(), (unit) =>
    createBranding(unit, { name: `b-${randomUUID()}`, company_name: 'Audited', primary_color: '#112233', accent_color: '#445566', footer_text: '' }),
  );
  await runUnit(api.deps.db, context(), (unit) => deleteBranding(unit, created.id));
  const scope = tenantScope(api.deps.db, tenant.tenantId);
  const page = await listAuditEntries(scope, { resource_id: created.id }, { skip: 0, limit: 10 });
  expect(page).toMatchObject({ total: 2, skip: 0, limit: 10 });
  expect(page.items.map((row) => [row.action, row.actor_type, row.resource_type])).toEqual([
    ['branding.deleted', 'system', 'branding'],
    ['branding.created', 'system', 'branding'],
  ]);
  expect(Number(page.items[0].seq)).toBeGreaterThan(Number(page.items[1].seq));
  expect((await listAuditEntries(scope, { resource_id: created.id, action: 'branding.created' }, { skip: 0, limit: 10 })).items).toHaveLength(1);
  expect(await verifyAuditChain(scope)).toMatchObject({ valid: true });
  const other = await createTenant(api);
  expect(await listAuditEntries(tenantScope(api.deps.db, other.tenantId), { resource_id: created.id }, { skip: 0, limit: 10 })).toMatchObject({ items: [], total: 0 });
});

it("records an inspection and reads an asset's health, condition and readings through the service, each as rows", async () => {
  const scope = tenantScope(api.deps.db, tenant.tenantId);
  const [{ id }] = await scope.insert('assets', { name: `svc-${randomUUID()}`, type: 'pump' }, ['id']);
  const asset = (await findAsset(scope, id))!;
  expect(await assetHealth(scope, asset)).toEqual({ health_score: 100, status: 'excellent', factors: [], last_updated: asset.created_at });
  expect(await assetCondition(scope, asset)).toEqual({
    overall_condition: 'good',
    parameters: [],
    last_inspection_at: null,
    next_inspection_at: null,
    open_work_orders: 0,
    updated_at: null,
  });

  const performedAt = new Date(Date.now() - 3600_000);
  const inspection = await runUnit(api.deps.db, context(), (unit) =>
    recordAssetInspection(unit, id, { performed_at: performedAt, condition: 'poor', recorded_by: tenant.adminUserId }, new Date()),
  );
  expect(inspection).toMatchObject({ asset_id: id, condition: 'poor', notes: null, recorded_by: tenant.adminUserId, performed_at: performedAt });
  expect(await auditOf(id)).toEqual([{ action: 'asset.inspection.recorded', actor_type: 'system', request_id: null }]);
  expect(await assetCondition(scope, asset)).toMatchObject({ overall_condition: 'poor', last_inspection_at: performedAt, updated_at: expect.any(Date) });
  expect((await assetHealth(scope, asset)).health_score).toBeLessThan(100);

  const start = Date.now();
  const at = (minutesAgo: number) => new Date(start - minutesAgo * 60_000);
  const reading = (parameter: string, ts: Date, value: number) => ({ asset_id: id, parameter, ts, value, unit: 'bar', source: null, sender_event_id: randomUUID() });
  await insertReadings(api.deps.db, tenant.tenantId, [reading('pressure', at(3), 1), reading('pressure', at(2), 2), reading('temperature', at(1), 40)]);
  const all = await listAssetReadings(scope, id, {}, { skip: 0, limit: 10 });
  expect(all.total).toBe(3);
  expect(all.items.map((r) => [r.parameter, r.value])).toEqual([
    ['temperature', 40],
    ['pressure', 2],
    ['pressure', 1],
  ]);
  expect((await listAssetReadings(scope, id, { parameter: 'pressure', to: at(2) /* exclusive */ }, { skip: 0, limit: 10 })).items.map((r) => r.value)).toEqual([1]);
  // Another tenant's asset is not found, and its inspection commits nothing.
  const other = await createTenant(api);
  await expect(listAssetReadings(tenantScope(api.deps.db, other.tenantId), id, {}, { skip: 0, limit: 10 })).rejects.toMatchObject({ code: 'NOT_FOUND', status: 404 });
  const otherContext = { ...context(), tenantId: other.tenantId };
  await expect(runUnit(api.deps.db, otherContext, (unit) => recordAssetInspection(unit, id, { condition: 'good', recorded_by: null }, new Date()))).rejects.toMatchObject({
    status: 404,
  });
  expect(await api.deps.db('asset_inspections').where({ asset_id: id }).count({ n: '*' })).toEqual([{ n: '1' }]);
});

it("ingests an event and requeues it once parked through the service, within the token's tenant grant only", async () => {
  const db = api.deps.db;
  const grant = [tenant.tenantId];
  const order = { type: 'svc.test.ingested', data: { n: 1 }, event_id: `svc-${randomUUID()}` };
  const stored = await ingestEvent(db, grant, context(), order);
  expect(await ingestEvent(db, grant, context(), order)).toEqual({ id: stored.id, duplicate: true });
  expect(await db('outbox_events').where({ id: stored.id }).first('tenant_id', 'type', 'source')).toEqual({
    tenant_id: tenant.tenantId,
    type: 'svc.test.ingested',
    source: 'internal',
  });
  expect(await auditOf(stored.id)).toEqual([
    { action: 'event.ingested', actor_type: 'system', request_id: null },
    { action: 'event.ingested', actor_type: 'system', request_id: null },
  ]);
  // A grant without the tenant is 403 and stores nothing; an unknown tenant is 404.
  await expect(ingestEvent(db, [], context(), { ...order, event_id: `svc-${randomUUID()}` })).rejects.toMatchObject({ code: 'FORBIDDEN' });
  await expect(ingestEvent(db, '*', { ...context(), tenantId: randomUUID() }, order)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  expect(await db('outbox_events').where({ tenant_id: tenant.tenantId, type: 'svc.test.ingested' }).count({ n: '*' })).toEqual([{ n: '1' }]);

  // Parked as the dispatcher parks an event it gave up on (dispatched_at set keeps the dispatcher off it).
  await db('outbox_events').where({ id: stored.id }).update({ attempts: 8, last_error: 'Error: refused', parked_at: db.fn.now(), dispatched_at: db.fn.now() });
  const overview = await outboxOverview(db, grant, 'parked', { skip: 0, limit: 100 });
  expect(overview.parked).toBeGreaterThanOrEqual(1);
  expect(overview.items.find((row) => row.id === stored.id)).toMatchObject({ attempts: 8, last_error: 'Error: refused', parked_at: expect.any(Date) });
  expect((await outboxOverview(db, [randomUUID()], 'parked', { skip: 0, limit: 100 })).items).toEqual([]);
  await expect(requeueParkedEvent(db, [randomUUID()], stored.id, context())).rejects.toMatchObject({ code: 'NOT_FOUND' });
  expect(await requeueParkedEvent(db, grant, stored.id, context())).toMatchObject({ id: stored.id, attempts: 0, parked_at: null, next_attempt_at: null });
  expect((await auditOf(stored.id)).at(-1)).toEqual({ action: 'outbox.event_requeued', actor_type: 'system', request_id: null });
  await expect(requeueParkedEvent(db, grant, stored.id, context())).rejects.toMatchObject({ code: 'NOT_FOUND' });
});

it('records a stored upload, lists it and removes its memberships and bytes through the service; an unknown contact is 422 and records nothing', async () => {
  const scope = tenantScope(api.deps.db, tenant.tenantId);
  const { client, bucket } = api.deps.objectStore;
  expect(await uploadLimitBytes(api.deps.db, tenant.tenantId)).toBe(MAX_UPLOAD_BYTES.enterprise);
  const [contact] = await scope.insert('contacts', { name: 'Svc Subject', email: `svc-${randomUUID()}@example.com` }, ['id']);
  const objectKey = newFileObjectKey(tenant.tenantId);
  const bytes = Buffer.from('%PDF-1.4 service test');
  await client.putObject(bucket, objectKey, bytes, bytes.length);
  const upload = { name: 'svc.pdf', size_bytes: bytes.length, content_type: 'application/pdf', sha256: 'a'.repeat(64), object_key: objectKey, uploaded_by: tenant.adminUserId };

  await expect(runUnit(api.deps.db, context(), (unit) => recordUpload(unit, { ...upload, contact_id: randomUUID() }))).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  expect(await api.deps.db('files').where({ tenant_id: tenant.tenantId, object_key: objectKey }).count({ n: '*' })).toEqual([{ n: '0' }]);
  const row = await runUnit(api.deps.db, context(), (unit) => recordUpload(unit, { ...upload, contact_id: contact.id }));
  expect(row).toMatchObject({ name: 'svc.pdf', size_bytes: bytes.length, contact_id: contact.id, object_key: objectKey });
  expect(await auditOf(row.id)).toEqual([{ action: 'file.uploaded', actor_type: 'system', request_id: null }]);
  expect(await api.deps.db('outbox_events').where({ tenant_id: tenant.tenantId, type: 'file.uploaded' }).whereRaw("data->>'file_id' = ?", [row.id]).count({ n: '*' })).toEqual([
    { n: '1' },
  ]);

  const listed = await listFiles(scope, { contact_id: contact.id, content_type: 'Application/PDF' }, { skip: 0, limit: 10 });
  expect(listed).toMatchObject({ total: 1, items: [{ id: row.id, size_bytes: bytes.length }] });
  expect((await listFiles(tenantScope(api.deps.db, randomUUID()), { contact_id: contact.id }, { skip: 0, limit: 10 })).total).toBe(0);

  const [collection] = await scope.insert('collections', { name: `svc-${randomUUID()}` }, ['id']);
  await scope.insert('collection_items', { collection_id: collection.id, item_type: 'file', item_id: row.id });
  const file = (await fileById(scope, row.id))!;
  // As the delete route's unit runs it, which records the deletion.
  const removed = await runUnit(api.deps.db, context(), async (unit) => {
    unit.audit({ action: 'file.deleted', resourceType: 'file', resourceId: file.id });
    return removeFileMemberships(unit, file);
  });
  expect(removed).toEqual({ collection_memberships: 1 });
  expect(await api.deps.db('collection_items').where({ collection_id: collection.id }).count({ n: '*' })).toEqual([{ n: '0' }]);
  await removeFileObject(api.deps.objectStore, file);
  await expect(client.statObject(bucket, objectKey)).rejects.toMatchObject({ code: 'NotFound' });
});
