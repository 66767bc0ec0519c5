/**
 * Extraction templates, extractions and extracted records against the real stack (the worker from
 * dist/ runs the extraction workflow): validation, text and PDF extraction with every field as the
 * built-in engine gives it, subject linking, the outbox event, corrections with their history,
 * deletion, and tenant isolation on every route.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { extractBuiltIn } from '../../domain/extraction/builtin';
import { pdfText } from '../support/pdf-text';
import { invoicePdf } from '../fixtures/extraction/pdf';
import { INVOICE_FIELDS, WORK_ORDER_FIELDS } from '../fixtures/extraction/templates';
import { createTenant, createUser, expectError, startTestApi, TestApi, TestTenant } from '../support/api';
import { until } from '../support/until';

let api: TestApi;
let t: TestTenant;
let other: TestTenant;

beforeAll(async () => {
  api = await startTestApi();
  [t, other] = await Promise.all([createTenant(api), createTenant(api)]);
});
afterAll(() => api.close());

const fixture = (name: string) => readFileSync(join(__dirname, '../fixtures/extraction', name), 'utf8');

async function createTemplate(tenant: TestTenant, fields: unknown, name = `Template ${randomUUID().slice(0, 8)}`) {
  const res = await api.request('/api/v1/extraction-templates', { method: 'POST', token: tenant.token, json: { name, description: 'fixture', fields } });
  expect(res.status).toBe(201);
  return res.body;
}

async function uploadFile(tenant: TestTenant, name: string, bytes: Buffer, type: string): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([bytes], { type }), name);
  const res = await api.request('/api/v1/files', { method: 'POST', token: tenant.token, body: form });
  expect(res.status).toBe(201);
  return res.body.id;
}

/** Polls the job until it is finished (completed or failed). */
async function finished(tenant: TestTenant, id: string) {
  const res = await until(
    () => api.request(`/api/v1/extractions/${id}`, { token: tenant.token }),
    (r) => r.status !== 200 || r.body.status === 'completed' || r.body.status === 'failed',
    `extraction ${id} to finish`,
    { timeoutMs: 45_000, intervalMs: 200 },
  );
  expect(res.status).toBe(200);
  return res.body;
}

async function extract(tenant: TestTenant, json: Record<string, unknown>) {
  const res = await api.request('/api/v1/extractions', { method: 'POST', token: tenant.token, json });
  expect(res.status).toBe(202);
  expect(res.body).toMatchObject({ status: 'queued', record_id: null, error: null });
  return finished(tenant, res.body.id);
}

describe('extraction templates', () => {
  it.each([
    ['a name that is not snake_case', [{ name: 'InvoiceDate', type: 'date' }], 'body.fields.0.name'],
    ['an unknown type', [{ name: 'total', type: 'money' }], 'body.fields.0.type'],
    ['an enum without values', [{ name: 'currency', type: 'enum' }], 'body.fields.0.values'],
    ['values on a string field', [{ name: 'ref', type: 'string', values: ['a'] }], 'body.fields.0.values'],
    ['items on a date field', [{ name: 'due', type: 'date', items: 'string' }], 'body.fields.0.items'],
    ['an array of an unknown item type', [{ name: 'parts', type: 'array', items: 'object' }], 'body.fields.0.items'],
    [
      'two fields with one name',
      [
        { name: 'total', type: 'number' },
        { name: 'total', type: 'string' },
      ],
      'body.fields.1',
    ],
    ['no fields', [], 'body.fields'],
  ])('refuses %s with 422 naming the field', async (_name, fields, field) => {
    const res = await api.request('/api/v1/extraction-templates', { method: 'POST', token: t.token, json: { name: 'Bad', fields } });
    expectError(res, 422, 'VALIDATION_ERROR');
    expect(res.body.fields.map((f: { field: string }) => f.field)).toContain(field);
  });

  it('creates, reads, lists, updates partially and deletes; names are unique per tenant', async () => {
    const created = await createTemplate(
      t,
      [
        { name: 'currency', type: 'enum', values: ['EUR', 'USD'] },
        { name: 'parts', type: 'array' },
      ],
      'Unique name',
    );
    expect(created).toMatchObject({
      name: 'Unique name',
      description: 'fixture',
      fields: [
        { name: 'currency', type: 'enum', values: ['EUR', 'USD'], required: false },
        { name: 'parts', type: 'array', items: 'string', required: false },
      ],
    });
    expectError(
      await api.request('/api/v1/extraction-templates', { method: 'POST', token: t.token, json: { name: 'UNIQUE NAME', fields: [{ name: 'a', type: 'string' }] } }),
      409,
      'CONFLICT',
    );
    // Another tenant may use the same name.
    await createTemplate(other, [{ name: 'a', type: 'string' }], 'Unique name');

    const put = await api.request(`/api/v1/extraction-templates/${created.id}`, { method: 'PUT', token: t.token, json: { description: 'changed' } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ name: 'Unique name', description: 'changed', fields: created.fields });
    expect((await api.request(`/api/v1/extraction-templates/${created.id}`, { token: t.token })).body.description).toBe('changed');
    const list = await api.request('/api/v1/extraction-templates?limit=100', { token: t.token });
    expect(list.body.items.map((x: { id: string }) => x.id)).toContain(created.id);

    expect((await api.request(`/api/v1/extraction-templates/${created.id}`, { method: 'DELETE', token: t.token })).status).toBe(204);
    expectError(await api.request(`/api/v1/extraction-templates/${created.id}`, { token: t.token }), 404, 'NOT_FOUND');
  });
});

describe('extractions', () => {
  it('extracts the sample invoice from text, links the contact, emits extraction.completed and audits', async () => {
    const [contact] = await api.deps.db('contacts').insert({ tenant_id: t.tenantId, email: 'Maria.Lopez@northwind.example', name: 'María López' }).returning('id');
    const template = await createTemplate(t, INVOICE_FIELDS);
    const text = fixture('invoice.txt');
    const job = await extract(t, { template_id: template.id, text });
    expect(job).toMatchObject({ status: 'completed', error: null, chunks: 1, source: { kind: 'text', file_id: null }, created_by: t.adminUserId });

    const record = await api.request(`/api/v1/extractions/records/${job.record_id}`, { token: t.token });
    expect(record.status).toBe(200);
    expect(record.body).toMatchObject({
      id: job.record_id,
      extraction_id: job.id,
      template_id: template.id,
      file_id: null,
      subject_contact_id: contact.id,
      engine: 'built-in',
      model: 'built-in',
      notice: null,
      missing_required: [],
      corrections: [],
    });
    // The stored record is exactly the engine's answer (the engine's answers are asserted field by field in the unit tests).
    expect(record.body.fields).toEqual(extractBuiltIn(INVOICE_FIELDS, text));
    expect(record.body.fields.invoice_number).toEqual({
      value: 'INV-2026-0042',
      confidence: 0.95,
      engine: 'built-in',
      source: { start: text.indexOf('INV-2026-0042'), end: text.indexOf('INV-2026-0042') + 13, text: 'INV-2026-0042' },
    });
    expect(record.body.fields.total_amount).toMatchObject({ value: 1234.56, source: { text: '€ 1.234,56' } });
    expect(record.body.fields.invoice_date).toMatchObject({ value: '2026-03-05', source: { text: '05/03/2026' } });

    const events = await api.deps
      .db('outbox_events')
      .where({ tenant_id: t.tenantId, type: 'extraction.completed' })
      .whereRaw(`data->>'extraction_id' = ?`, [job.id])
      .select('data');
    expect(events.map((e) => e.data)).toEqual([{ extraction_id: job.id, record_id: job.record_id, template_id: template.id }]);
    const audit = await api.deps.db('audit_log').where({ tenant_id: t.tenantId, action: 'extraction.completed', resource_id: job.record_id }).select('subject_ref', 'details');
    expect(audit).toHaveLength(1);
    expect(audit[0].subject_ref).toBe(contact.id);
    // The input text is not kept once the job is done.
    expect(await api.deps.db('extractions').where({ id: job.id }).first('input_text')).toEqual({ input_text: null });
    expect(await api.deps.db('extraction_chunks').where({ extraction_id: job.id }).count({ n: '*' }).first()).toEqual({ n: '0' });

    const bySubject = await api.request(`/api/v1/extractions/records?subject_contact_id=${contact.id}`, { token: t.token });
    expect(bySubject.body.items.map((r: { id: string }) => r.id)).toEqual([job.record_id]);
    const byTemplate = await api.request(`/api/v1/extractions/records?template_id=${template.id}`, { token: t.token });
    expect(byTemplate.body).toMatchObject({ total: 1, items: [{ id: job.record_id, subject_contact_id: contact.id }] });

    // A template in use cannot be deleted.
    expectError(await api.request(`/api/v1/extraction-templates/${template.id}`, { method: 'DELETE', token: t.token }), 409, 'CONFLICT');
  });

  it('extracts the sample work order from an uploaded PDF file', async () => {
    const template = await createTemplate(t, WORK_ORDER_FIELDS);
    const pdf = await invoicePdf(fixture('work-order.txt'));
    const fileId = await uploadFile(t, 'work-order.pdf', pdf, 'application/pdf');
    const job = await extract(t, { template_id: template.id, file_id: fileId });
    expect(job).toMatchObject({ status: 'completed', source: { kind: 'file', file_id: fileId } });
    const record = (await api.request(`/api/v1/extractions/records/${job.record_id}`, { token: t.token })).body;
    expect(record).toMatchObject({ file_id: fileId, subject_contact_id: null, missing_required: ['contract_number'] });
    const values = Object.fromEntries(Object.entries(record.fields).map(([k, v]: [string, any]) => [k, [v.value, v.source?.text ?? null]]));
    expect(values).toEqual({
      work_order_number: ['WO-2026-0117', 'WO-2026-0117'],
      asset_tag: ['PUMP-07', 'PUMP-07'],
      priority: ['high', 'High'],
      scheduled_date: ['2026-03-12', '12 March 2026'],
      requester_email: ['ops.lead@northwind.example', 'ops.lead@northwind.example'],
      technician_phone: ['+44 20 7946 0958', '+44 20 7946 0958'],
      estimated_hours: [3.5, '3,5'],
      lockout_required: [true, 'yes'],
      spare_parts: [['seal kit', 'bearing 6204-2RS', 'gasket'], 'seal kit, bearing 6204-2RS, gasket'],
      tasks: [
        ['Isolate the pump and apply lockout', 'Replace the mechanical seal', 'Test run for 30 minutes'],
        '1. Isolate the pump and apply lockout\n2. Replace the mechanical seal\n3. Test run for 30 minutes',
      ],
      contract_number: [null, null],
    });
    // Spans are offsets into the PDF's text.
    const text = await pdfText(pdf);
    for (const field of Object.values(record.fields) as any[]) if (field.source) expect(text.slice(field.source.start, field.source.end)).toBe(field.source.text);
  });

  it('fails a file of another type with a clear error, and refuses unknown templates and files', async () => {
    const template = await createTemplate(t, [{ name: 'anything', type: 'string' }]);
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 1)]);
    const fileId = await uploadFile(t, 'photo.png', png, 'image/png');
    const job = await extract(t, { template_id: template.id, file_id: fileId });
    expect(job).toMatchObject({ status: 'failed', record_id: null, error: 'unsupported file type image/png: only application/pdf and text/plain can be extracted' });

    const bad = await api.request('/api/v1/extractions', { method: 'POST', token: t.token, json: { template_id: template.id, text: 'x', file_id: fileId } });
    expectError(bad, 422, 'VALIDATION_ERROR');
    expectError(await api.request('/api/v1/extractions', { method: 'POST', token: t.token, json: { template_id: template.id } }), 422, 'VALIDATION_ERROR');
    const unknownTemplate = await api.request('/api/v1/extractions', { method: 'POST', token: t.token, json: { template_id: randomUUID(), text: 'x' } });
    expectError(unknownTemplate, 422, 'VALIDATION_ERROR');
    expect(unknownTemplate.body.fields[0].field).toBe('body.template_id');
    const unknownFile = await api.request('/api/v1/extractions', { method: 'POST', token: t.token, json: { template_id: template.id, file_id: randomUUID() } });
    expect(unknownFile.body.fields[0].field).toBe('body.file_id');
  });
});

describe('records', () => {
  let templateId: string;
  let recordId: string;
  let extractionId: string;
  beforeAll(async () => {
    templateId = (await createTemplate(t, INVOICE_FIELDS)).id;
    const job = await extract(t, { template_id: templateId, text: fixture('invoice.txt') });
    recordId = job.record_id;
    extractionId = job.id;
  });

  it('keeps every correction in order with the value it replaced, and checks values against the field types', async () => {
    const wrongType = await api.request(`/api/v1/extractions/records/${recordId}`, {
      method: 'PATCH',
      token: t.token,
      json: { fields: { total_amount: 'a lot', paid: 'maybe', nope: 1 } },
    });
    expectError(wrongType, 422, 'VALIDATION_ERROR');
    expect(wrongType.body.fields.map((f: { field: string }) => f.field).sort()).toEqual(['body.fields.nope', 'body.fields.paid', 'body.fields.total_amount']);

    const first = await api.request(`/api/v1/extractions/records/${recordId}`, {
      method: 'PATCH',
      token: t.token,
      json: { fields: { total_amount: 1300 }, reason: 'credit note applied' },
    });
    expect(first.status).toBe(200);
    const second = await api.request(`/api/v1/extractions/records/${recordId}`, {
      method: 'PATCH',
      token: t.token,
      json: { fields: { total_amount: '1.400,00', due_date: '30/04/2026' } },
    });
    expect(second.status).toBe(200);
    expect(second.body.fields.total_amount).toMatchObject({ value: 1400, confidence: 1, engine: 'person', source: { text: '€ 1.234,56' } });
    expect(second.body.fields.due_date.value).toBe('2026-04-30');
    expect(second.body.corrections).toEqual([
      { field: 'total_amount', original_value: 1234.56, corrected_value: 1300, corrected_by: t.adminUserId, corrected_at: expect.any(String), reason: 'credit note applied' },
      { field: 'total_amount', original_value: 1300, corrected_value: 1400, corrected_by: t.adminUserId, corrected_at: expect.any(String), reason: null },
      { field: 'due_date', original_value: '2026-04-04', corrected_value: '2026-04-30', corrected_by: t.adminUserId, corrected_at: expect.any(String), reason: null },
    ]);
    const read = await api.request(`/api/v1/extractions/records/${recordId}`, { token: t.token });
    expect(read.body.corrections).toEqual(second.body.corrections);
  });

  it('deletes a record (then 404, gone from its collection, and the job shows no record); the template can then be deleted', async () => {
    const collection = (await api.request('/api/v1/collections', { method: 'POST', token: t.token, json: { name: `Invoices ${recordId}` } })).body;
    const items = `/api/v1/collections/${collection.id}/items`;
    expect((await api.request(items, { method: 'POST', token: t.token, json: { item_type: 'extracted_record', item_id: recordId } })).status).toBe(201);
    expect((await api.request(items, { token: t.token })).body.total).toBe(1);
    expect((await api.request(`/api/v1/extractions/records/${recordId}`, { method: 'DELETE', token: t.token })).status).toBe(204);
    expect((await api.request(items, { token: t.token })).body).toMatchObject({ items: [], total: 0 });
    expect(await api.deps.db('collection_items').where({ item_id: recordId }).count({ n: '*' }).first()).toEqual({ n: '0' });
    expectError(await api.request(`/api/v1/extractions/records/${recordId}`, { token: t.token }), 404, 'NOT_FOUND');
    expect(await api.deps.db('extracted_record_corrections').where({ record_id: recordId }).count({ n: '*' }).first()).toEqual({ n: '0' });
    expect((await api.request(`/api/v1/extractions/${extractionId}`, { token: t.token })).body).toMatchObject({ status: 'completed', record_id: null });
    expect((await api.request(`/api/v1/extraction-templates/${templateId}`, { method: 'DELETE', token: t.token })).status).toBe(204);
  });
});

describe('permissions and tenant isolation', () => {
  it('lets a technician read but not extract, and a viewer not read', async () => {
    const technician = await createUser(api, t.tenantId, 'technician');
    const viewer = await createUser(api, t.tenantId, 'viewer');
    expect((await api.request('/api/v1/extractions/records', { token: technician.token })).status).toBe(200);
    expectError(await api.request('/api/v1/extractions', { method: 'POST', token: technician.token, json: { template_id: randomUUID(), text: 'x' } }), 403, 'FORBIDDEN');
    expectError(await api.request('/api/v1/extraction-templates', { token: viewer.token }), 403, 'FORBIDDEN');
  });

  it("answers 404 for another tenant's template, extraction and record, refuses its template and file, and never lists them", async () => {
    const template = await createTemplate(t, INVOICE_FIELDS);
    const job = await extract(t, { template_id: template.id, text: fixture('invoice.txt') });
    const fileId = await uploadFile(t, 'invoice.txt', Buffer.from(fixture('invoice.txt')), 'text/plain');
    const o = other.token;
    const paths: Array<[string, string, unknown?]> = [
      ['GET', `/api/v1/extraction-templates/${template.id}`],
      ['PUT', `/api/v1/extraction-templates/${template.id}`, { description: 'x' }],
      ['DELETE', `/api/v1/extraction-templates/${template.id}`],
      ['GET', `/api/v1/extractions/${job.id}`],
      ['GET', `/api/v1/extractions/records/${job.record_id}`],
      ['PATCH', `/api/v1/extractions/records/${job.record_id}`, { fields: { paid: true } }],
      ['DELETE', `/api/v1/extractions/records/${job.record_id}`],
      ['GET', '/api/v1/extractions/not-a-uuid'],
      ['GET', '/api/v1/extractions/records/not-a-uuid'],
      ['GET', '/api/v1/extraction-templates/not-a-uuid'],
    ];
    for (const [method, path, json] of paths) expectError(await api.request(path, { method, token: o, json }), 404, 'NOT_FOUND');
    expectError(await api.request('/api/v1/extractions', { method: 'POST', token: o, json: { template_id: template.id, text: 'x' } }), 422, 'VALIDATION_ERROR');
    const ownTemplate = await createTemplate(other, [{ name: 'a', type: 'string' }]);
    expectError(await api.request('/api/v1/extractions', { method: 'POST', token: o, json: { template_id: ownTemplate.id, file_id: fileId } }), 422, 'VALIDATION_ERROR');

    const ids = async (path: string) => (await api.request(path, { token: o })).body.items.map((x: { id: string }) => x.id);
    expect(await ids('/api/v1/extraction-templates?limit=100')).not.toContain(template.id);
    expect(await ids('/api/v1/extractions?limit=100')).toEqual([]);
    expect(await ids('/api/v1/extractions/records?limit=100')).toEqual([]);
    expect(await ids(`/api/v1/extractions/records?template_id=${template.id}`)).toEqual([]);
    // Untouched for its own tenant.
    expect((await api.request(`/api/v1/extractions/records/${job.record_id}`, { token: t.token })).body.corrections).toEqual([]);
  });
});
