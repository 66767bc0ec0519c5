/**
 * Reports over real HTTP: brandings (logo from the files router), every report type in PDF and
 * XLSX from seeded data (PDF text read back with pdf-parse, XLSX cells with test/support/xlsx.ts), the async
 * report workflow with its presigned URL and report.completed, a scheduled report fired on the
 * dev server's Schedule and mailed to the SMTP sink, pause/resume/update/delete reflected in the
 * Schedule, and tenant isolation on every route.
 */
import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { createCanvas } from '@napi-rs/canvas';
import { ScheduleNotFoundError } from '@temporalio/client';
import { resolvePeriodRule } from '../../domain/reports/period';
import { workflowIds } from '../../infra/workflow-ids';
import { createTenant, expectError, startTestApi, TestApi, TestTenant } from '../support/api';
import { expectNoPersonalData } from '../support/history-text';
import { waitForMail } from '../support/mail';
import { pdfPagePng, pdfText } from '../support/pdf-text';
import { untilValue } from '../support/until';
import { readXlsx, type XlsxWorkbook } from '../support/xlsx';

let api: TestApi;
let t: TestTenant;
let other: TestTenant;

const PERIOD = { from: '2025-01-01', to: '2025-02-28' };
const HOUR = 3_600_000;
const at = (iso: string) => new Date(iso);

beforeAll(async () => {
  api = await startTestApi();
  [t, other] = await Promise.all([createTenant(api), createTenant(api)]);
  await seed(t.tenantId);
});
afterAll(() => api.close());

/** Known data: the expected numbers in the assertions below follow from it. */
async function seed(tenantId: string): Promise<void> {
  const db = api.deps.db;
  // Maintenance: interval 240 h → grace 24 h. Jan: on time + late; Feb: 2 on time + 1 open overdue; 1 cancelled.
  const [plan] = await db('maintenance_plans')
    .insert({ tenant_id: tenantId, name: 'Pump PM', trigger: JSON.stringify({ type: 'calendar', every: 'P10D' }), interval_hours: 240 })
    .returning('id');
  const task = (code: string, due: string, completed: string | null, status: string) => ({
    tenant_id: tenantId,
    plan_id: plan.id,
    task_code: code,
    title: `Inspect pump ${code}`,
    due_at: at(due),
    completed_at: completed ? at(completed) : null,
    status,
    interval_hours: 240,
  });
  await db('maintenance_tasks').insert([
    task('PM-1', '2025-01-05T08:00:00Z', '2025-01-05T12:00:00Z', 'done'),
    task('PM-2', '2025-01-20T08:00:00Z', '2025-01-22T08:00:00Z', 'done'),
    task('PM-3', '2025-02-03T08:00:00Z', '2025-02-03T09:00:00Z', 'done'),
    task('PM-4', '2025-02-10T08:00:00Z', '2025-02-11T07:00:00Z', 'done'),
    task('PM-5', '2025-02-20T08:00:00Z', null, 'open'),
    task('PM-6', '2025-02-21T08:00:00Z', null, 'cancelled'),
  ]);

  // Assets: critical (20), poor (45), excellent (95) and one not assessed (counts as excellent).
  const assets = await db('assets')
    .insert(['Boiler B1', 'Conveyor C2', 'Press P3', 'Valve V4'].map((name) => ({ tenant_id: tenantId, name, type: 'machine' })))
    .returning(['id', 'name']);
  const id = (name: string) => assets.find((a) => a.name === name)!.id as string;
  await db('asset_health').insert(
    [
      ['Boiler B1', 20, 'critical'],
      ['Conveyor C2', 45, 'poor'],
      ['Press P3', 95, 'excellent'],
    ].map(([name, score, status]) => ({
      tenant_id: tenantId,
      asset_id: id(name as string),
      health_score: score,
      status,
      factors: '[]',
      last_updated: new Date(),
    })),
  );
  await db('maintenance_tasks').insert({
    tenant_id: tenantId,
    task_code: 'CM-1',
    title: 'Fix boiler',
    due_at: new Date(Date.now() + 48 * HOUR),
    asset_ids: [id('Boiler B1')],
    kind: 'corrective',
  });

  // Alerts: critical 3 days old, warning 1 day old, one resolved (not listed).
  const baseline = async (asset: string, parameter: string) =>
    (
      await db('asset_baselines')
        .insert({ tenant_id: tenantId, asset_id: id(asset), parameter, baseline_value: 80, tolerance_percent: 10 })
        .returning('id')
    )[0].id;
  const alert = async (asset: string, parameter: string, severity: string, status: string, ageHours: number) =>
    db('asset_alerts').insert({
      tenant_id: tenantId,
      asset_id: id(asset),
      baseline_id: await baseline(asset, parameter),
      parameter,
      status,
      direction: 'above',
      severity,
      baseline_value: 80,
      lower_bound: 72,
      upper_bound: 88,
      value: 97.5,
      peak_value: 101.25,
      last_value: 97.5,
      raised_at: new Date(Date.now() - ageHours * HOUR),
      last_reading_at: new Date(),
      resolved_at: status === 'resolved' ? new Date() : null,
    });
  await alert('Boiler B1', 'temperature', 'critical', 'open', 72);
  await alert('Conveyor C2', 'vibration', 'warning', 'acknowledged', 24);
  await alert('Press P3', 'pressure', 'warning', 'resolved', 200);

  // Webhook (paused: it must not receive this test's events): d1 fails then succeeds, d2 succeeds, d3 fails for good.
  const [hook] = await db('webhooks')
    .insert({ tenant_id: tenantId, url: 'https://hooks.example.com/in?token=secret', events: ['*'], status: 'paused', secret_encrypted: 'x' })
    .returning('id');
  const [d1, d2, d3] = [randomUUID(), randomUUID(), randomUUID()];
  const attempt = (delivery: string, n: number, status: string, latency: number, day: string, next: boolean) => ({
    tenant_id: tenantId,
    webhook_id: hook.id,
    delivery_id: delivery,
    event_id: randomUUID(),
    event_type: 'asset.created',
    attempt: n,
    status,
    status_code: status === 'succeeded' ? 200 : 500,
    latency_ms: latency,
    created_at: at(day),
    next_attempt_at: next ? at(day) : null,
  });
  await db('webhook_deliveries').insert([
    attempt(d1, 1, 'failed', 100, '2025-01-10T10:00:00Z', true),
    attempt(d1, 2, 'succeeded', 200, '2025-01-10T10:00:30Z', false),
    attempt(d2, 1, 'succeeded', 300, '2025-01-11T10:00:00Z', false),
    attempt(d3, 1, 'failed', 400, '2025-02-12T10:00:00Z', false),
    attempt(randomUUID(), 1, 'succeeded', 50, '2025-03-01T00:00:00Z', false), // after the period
  ]);

  // CSAT: 1-5 scores 5, 4, 2, 5 → 75 %; 0-10 scores 10, 9, 3, 7 → NPS 25.
  const [csat] = await db('csat_surveys')
    .insert({ tenant_id: tenantId, name: 'Support CSAT', question: 'How did we do?', scale: 'csat_5', channels: ['email'] })
    .returning('id');
  const [nps] = await db('csat_surveys')
    .insert({ tenant_id: tenantId, name: 'Support NPS', question: 'Recommend us?', scale: 'nps_10', channels: ['email'] })
    .returning('id');
  const response = (survey: string, score: number, day: string) => ({ tenant_id: tenantId, survey_id: survey, score, responded_at: at(day) });
  await db('csat_responses').insert([
    response(csat.id, 5, '2025-01-03T10:00:00Z'),
    response(csat.id, 4, '2025-01-04T10:00:00Z'),
    response(csat.id, 2, '2025-02-05T10:00:00Z'),
    response(csat.id, 5, '2025-02-06T10:00:00Z'),
    response(nps.id, 10, '2025-01-07T10:00:00Z'),
    response(nps.id, 9, '2025-01-08T10:00:00Z'),
    response(nps.id, 3, '2025-02-09T10:00:00Z'),
    response(nps.id, 7, '2025-02-10T10:00:00Z'),
    response(csat.id, 1, '2025-03-02T10:00:00Z'), // after the period
  ]);
}

function pngLogo(): Buffer {
  const canvas = createCanvas(96, 96);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#0B6E4F';
  ctx.fillRect(0, 0, 96, 96);
  ctx.fillStyle = '#FFFFFF';
  ctx.beginPath();
  ctx.arc(48, 48, 30, 0, Math.PI * 2);
  ctx.fill();
  return canvas.toBuffer('image/png');
}

async function upload(token: string, name: string, bytes: Buffer, type: string): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([bytes], { type }), name);
  const res = await api.request('/api/v1/files', { method: 'POST', token, body: form });
  expect(res.status).toBe(201);
  return res.body.id;
}

async function download(path: string, token = t.token): Promise<{ status: number; type: string | null; bytes: Buffer }> {
  const res = await fetch(`${api.baseUrl}${path}`, { headers: { Authorization: `Bearer ${token}` } });
  return { status: res.status, type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
}

const workbook = readXlsx;
const rows = (wb: XlsxWorkbook, sheet: string) => wb.sheet(sheet).rows;
const figures = (wb: XlsxWorkbook) =>
  Object.fromEntries(
    rows(wb, 'Summary')
      .filter((r) => r.length === 2 && typeof r[0] === 'string')
      .map((r) => [r[0], r[1]]),
  );

let brandingId: string;

describe('brandings', () => {
  it('creates a branding with a PNG logo, refuses other files and bad colours, updates and lists', async () => {
    const logo = await upload(t.token, 'logo.png', pngLogo(), 'image/png');
    const text = await upload(t.token, 'notes.txt', Buffer.from('not an image\n'), 'text/plain');
    const body = {
      name: 'Default',
      company_name: 'Acme Plant Services',
      logo_file_id: logo,
      primary_color: '#0b6e4f',
      accent_color: '#F2A541',
      footer_text: 'Confidential – Acme internal',
    };

    const notImage = await api.request('/api/v1/brandings', { method: 'POST', token: t.token, json: { ...body, logo_file_id: text } });
    expectError(notImage, 422, 'VALIDATION_ERROR');
    expect(notImage.body.fields[0].field).toBe('body.logo_file_id');
    expectError(await api.request('/api/v1/brandings', { method: 'POST', token: t.token, json: { ...body, primary_color: 'green' } }), 422, 'VALIDATION_ERROR');
    expectError(await api.request('/api/v1/brandings', { method: 'POST', token: other.token, json: body }), 422, 'VALIDATION_ERROR'); // t's file

    const created = await api.request('/api/v1/brandings', { method: 'POST', token: t.token, json: body });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ company_name: 'Acme Plant Services', logo_file_id: logo, primary_color: '#0B6E4F', accent_color: '#F2A541' });
    brandingId = created.body.id;

    const spare = await api.request('/api/v1/brandings', { method: 'POST', token: t.token, json: { name: 'Spare', company_name: 'Spare Co' } });
    const put = await api.request(`/api/v1/brandings/${spare.body.id}`, { method: 'PUT', token: t.token, json: { footer_text: 'Spare footer' } });
    expect(put.body).toMatchObject({ footer_text: 'Spare footer', primary_color: '#1F4E79' });
    expect((await api.request('/api/v1/brandings', { token: t.token })).body.total).toBe(2);
    expect((await api.request(`/api/v1/brandings/${spare.body.id}`, { method: 'DELETE', token: t.token })).status).toBe(204);

    // Isolation.
    expectError(await api.request(`/api/v1/brandings/${brandingId}`, { token: other.token }), 404, 'NOT_FOUND');
    expectError(await api.request(`/api/v1/brandings/${brandingId}`, { method: 'PUT', token: other.token, json: { name: 'x' } }), 404, 'NOT_FOUND');
    expectError(await api.request(`/api/v1/brandings/${brandingId}`, { method: 'DELETE', token: other.token }), 404, 'NOT_FOUND');
    expectError(await api.request('/api/v1/brandings/not-a-uuid', { token: t.token }), 404, 'NOT_FOUND');
    expect((await api.request('/api/v1/brandings', { token: other.token })).body.total).toBe(0);
  });
});

describe('reports rendered directly, every type in both formats', () => {
  const q = `from=${PERIOD.from}&to=${PERIOD.to}`;

  it('maintenance compliance: overall, by month, by plan and the late/overdue tasks', async () => {
    const pdf = await download(`/api/v1/reports/direct/maintenance_compliance.pdf?${q}&branding_id=${brandingId}`);
    expect(pdf).toMatchObject({ status: 200, type: 'application/pdf' });
    const text = await pdfText(pdf.bytes);
    for (const s of [
      'Acme Plant Services',
      'Confidential – Acme internal',
      'Maintenance compliance',
      'Period 2025-01-01 – 2025-02-28',
      '60.00 %',
      '50.00 %',
      '66.67 %',
      'Pump PM',
      'PM-2',
      'PM-5',
      'Page 1 of',
    ])
      expect(text).toContain(s);
    expect(pdf.bytes.includes(Buffer.from('/Subtype /Image'))).toBe(true);

    const xlsx = await download(`/api/v1/reports/direct/maintenance_compliance.xlsx?${q}`);
    expect(xlsx.type).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    const wb = await workbook(xlsx.bytes);
    const branded = await workbook((await download(`/api/v1/reports/direct/maintenance_compliance.xlsx?${q}&branding_id=${brandingId}`)).bytes);
    expect(branded.sheet('Summary').images).toHaveLength(1);
    expect(rows(branded, 'Summary').map((r) => r[0])).toEqual(expect.arrayContaining(['Acme Plant Services', 'Confidential – Acme internal']));
    expect(figures(wb)).toMatchObject({ Compliance: 60, 'Tasks due': 6, 'On time': 3, 'Completed late': 1, 'Open overdue': 1, Pending: 0, Cancelled: 1 });
    expect(rows(wb, 'By month')).toEqual([
      ['Month', 'Due', 'On time', 'Late', 'Open overdue', 'Pending', 'Compliance'],
      ['2025-01', 2, 1, 1, 0, 0, 50],
      ['2025-02', 4, 2, 0, 1, 0, 66.67],
    ]);
    expect(rows(wb, 'By plan')).toEqual([
      ['Plan', 'Due', 'On time', 'Late', 'Open overdue', 'Pending', 'Compliance'],
      ['Pump PM', 6, 3, 1, 1, 0, 60],
    ]);
    const late = rows(wb, 'Late and overdue');
    expect(late[1]).toEqual(['PM-2', 'Inspect pump PM-2', 'Pump PM', at('2025-01-20T08:00:00Z'), at('2025-01-22T08:00:00Z'), 2]);
    expect(late[2]!.slice(0, 5)).toEqual(['PM-5', 'Inspect pump PM-5', 'Pump PM', at('2025-02-20T08:00:00Z'), undefined]);
  });

  it('asset health: distribution chart and table, lowest health with open alerts and work orders', async () => {
    const text = await pdfText((await download('/api/v1/reports/direct/asset_health.pdf')).bytes);
    for (const s of ['Asset health overview', 'Health distribution', 'Boiler B1', 'Conveyor C2', '25.00 %', '50.00 %']) expect(text).toContain(s);
    const wb = await workbook((await download('/api/v1/reports/direct/asset_health.xlsx')).bytes);
    expect(figures(wb)).toMatchObject({ Assets: 4, 'Critical or poor': 2, 'Not assessed': 1, 'Open work orders': 2 });
    expect(rows(wb, 'Distribution').slice(1)).toEqual([
      ['critical', '0–25', 1, 25],
      ['poor', '26–50', 1, 25],
      ['fair', '51–70', 0, 0],
      ['good', '71–90', 0, 0],
      ['excellent', '91–100', 2, 50],
    ]);
    expect(rows(wb, 'Lowest health').slice(1, 3)).toEqual([
      ['Boiler B1', 'machine', 20, 'critical', 1, 1],
      ['Conveyor C2', 'machine', 45, 'poor', 1, 0],
    ]);
  });

  it('open alerts: by severity and the unresolved alerts oldest first', async () => {
    const text = await pdfText((await download('/api/v1/reports/direct/open_alerts.pdf')).bytes);
    for (const s of ['Open alerts', 'temperature', 'vibration', '101.25']) expect(text).toContain(s);
    expect(text).not.toContain('pressure');
    const wb = await workbook((await download('/api/v1/reports/direct/open_alerts.xlsx')).bytes);
    expect(figures(wb)).toMatchObject({ Unresolved: 2, Critical: 1, Warning: 1, 'Not acknowledged': 1 });
    const alerts = rows(wb, 'Alerts');
    expect(alerts.map((r) => r[2])).toEqual(['Asset', 'Boiler B1', 'Conveyor C2']);
    expect(alerts[1]!.slice(3)).toEqual(['temperature', 'critical', 'open', 97.5, 101.25, 72, 88]);
    expect(alerts[1]![0]).toBeInstanceOf(Date);
    expect(alerts[1]![1]).toBeGreaterThan(71.9);
  });

  it('webhook delivery health: attempts, deliveries, success rate and latency percentiles in the period', async () => {
    const text = await pdfText((await download(`/api/v1/reports/direct/webhook_health.pdf?${q}`)).bytes);
    expect(text).toContain('https://hooks.example.com/in');
    expect(text).not.toContain('token=secret');
    const wb = await workbook((await download(`/api/v1/reports/direct/webhook_health.xlsx?${q}`)).bytes);
    expect(figures(wb)).toMatchObject({ Webhooks: 1, Attempts: 4, 'Attempt success rate': 50, Deliveries: 3, Delivered: 2, 'Failed deliveries': 1 });
    expect(rows(wb, 'Webhooks')[1]).toEqual(['https://hooks.example.com/in', 'paused', 4, 2, 2, 50, 2, 1, 250, 385]);
  });

  it('CSAT: CSAT % and NPS overall, by month and by survey', async () => {
    const text = await pdfText((await download(`/api/v1/reports/direct/csat.pdf?${q}`)).bytes);
    for (const s of ['Customer satisfaction', 'Support CSAT', 'Support NPS', '75.00 %']) expect(text).toContain(s);
    const wb = await workbook((await download(`/api/v1/reports/direct/csat.xlsx?${q}`)).bytes);
    expect(figures(wb)).toMatchObject({ Responses: 8, CSAT: 75, NPS: 25 });
    expect(rows(wb, 'By month').slice(1)).toEqual([
      ['2025-01', 4, 100, 100],
      ['2025-02', 4, 50, -50],
    ]);
    expect(rows(wb, 'By survey').slice(1)).toEqual([
      ['Support CSAT', 'csat_5', 4, 75, undefined],
      ['Support NPS', 'nps_10', 4, undefined, 25],
    ]);
  });

  it('validates the file name, the period and the branding', async () => {
    expectError(await api.request('/api/v1/reports/direct/unknown.pdf', { token: t.token }), 422, 'VALIDATION_ERROR');
    expectError(await api.request('/api/v1/reports/direct/csat.pdf', { token: t.token }), 422, 'VALIDATION_ERROR');
    expectError(await api.request(`/api/v1/reports/direct/csat.pdf?from=2025-03-01&to=2025-02-01`, { token: t.token }), 422, 'VALIDATION_ERROR');
    expectError(await api.request(`/api/v1/reports/direct/asset_health.pdf?branding_id=${brandingId}`, { token: other.token }), 422, 'VALIDATION_ERROR');
  });

  it("shows only the caller tenant's data", async () => {
    const wb = await workbook((await download('/api/v1/reports/direct/asset_health.xlsx', other.token)).bytes);
    expect(figures(wb)).toMatchObject({ Assets: 0, 'Open work orders': 0 });
  });
});

describe('reports as workflows', () => {
  it('runs report/<tenant>/<id>, stores the file, presigns it and emits report.completed', async () => {
    const post = await api.request('/api/v1/reports', {
      method: 'POST',
      token: t.token,
      json: { type: 'maintenance_compliance', format: 'pdf', period: PERIOD, branding_id: brandingId },
    });
    expect(post.status).toBe(202);
    expect(post.body).toMatchObject({ status: 'queued', type: 'maintenance_compliance', period: PERIOD, download_url: null });
    const id = post.body.id;
    const done = await untilValue(async () => {
      const res = await api.request(`/api/v1/reports/${id}`, { token: t.token });
      return res.body.status === 'completed' ? res.body : null;
    });
    expect(done.download_url).toMatch(/^https?:\/\//);
    expect(new Date(done.download_expires_at).getTime() - Date.now()).toBeLessThanOrEqual(15 * 60_000);
    const file = await fetch(done.download_url);
    const bytes = Buffer.from(await file.arrayBuffer());
    expect(bytes.length).toBe(done.size_bytes);
    const text = await pdfText(bytes);
    for (const s of ['Acme Plant Services', 'Confidential – Acme internal', '60.00 %', '66.67 %']) expect(text).toContain(s);
    expect(bytes.includes(Buffer.from('/Subtype /Image'))).toBe(true);

    const client = await api.deps.temporal.client();
    expect((await client.workflow.getHandle(workflowIds.report(t.tenantId, id)).describe()).status.name).toBe('COMPLETED');
    await expectNoPersonalData(client, workflowIds.report(t.tenantId, id), id, [t.email, 'Acme Plant Services']);
    const events = await api.deps.db('outbox_events').where({ tenant_id: t.tenantId, type: 'report.completed' }).select('data');
    expect(events.map((e) => e.data)).toContainEqual(expect.objectContaining({ report_id: id, report_type: 'maintenance_compliance', format: 'pdf' }));

    // The page a person looks at (see the report of this change).
    fs.writeFileSync('/tmp/report-page.png', await pdfPagePng(bytes, 1));

    const history = await api.request('/api/v1/reports?type=maintenance_compliance', { token: t.token });
    expect(history.body.items.map((r: { id: string }) => r.id)).toContain(id);
    expectError(await api.request(`/api/v1/reports/${id}`, { token: other.token }), 404, 'NOT_FOUND');
    expect((await api.request('/api/v1/reports', { token: other.token })).body.total).toBe(0);
  });

  it('refuses a period for a snapshot and a missing one for a period report', async () => {
    expectError(await api.request('/api/v1/reports', { method: 'POST', token: t.token, json: { type: 'open_alerts', format: 'pdf', period: PERIOD } }), 422, 'VALIDATION_ERROR');
    expectError(await api.request('/api/v1/reports', { method: 'POST', token: t.token, json: { type: 'csat', format: 'xlsx' } }), 422, 'VALIDATION_ERROR');
    expectError(
      await api.request('/api/v1/reports', { method: 'POST', token: t.token, json: { type: 'csat', format: 'xlsx', period: { from: '2024-01-01', to: '2025-06-30' } } }),
      422,
      'VALIDATION_ERROR',
    );
  });
});

describe('scheduled reports', () => {
  it('creates the Schedule, runs it on trigger (report stored and mailed), pauses, resumes, updates and deletes it', async () => {
    const recipient = `ops-${randomUUID().slice(0, 8)}@plant.example.com`;
    const body = {
      name: 'Monthly compliance',
      report_type: 'maintenance_compliance',
      format: 'pdf',
      branding_id: brandingId,
      period_rule: 'previous_month',
      schedule: { cron: '0 6 1 * *' },
      time_zone: 'Europe/Berlin',
      recipients: [recipient, 'lead@plant.example.com'],
    };
    expectError(await api.request('/api/v1/scheduled-reports', { method: 'POST', token: t.token, json: { ...body, time_zone: 'Mars/Olympus' } }), 422, 'VALIDATION_ERROR');
    expectError(await api.request('/api/v1/scheduled-reports', { method: 'POST', token: t.token, json: { ...body, schedule: { cron: '0 25 * * *' } } }), 422, 'VALIDATION_ERROR');
    expectError(await api.request('/api/v1/scheduled-reports', { method: 'POST', token: t.token, json: { ...body, period_rule: undefined } }), 422, 'VALIDATION_ERROR');
    expectError(await api.request('/api/v1/scheduled-reports', { method: 'POST', token: t.token, json: { ...body, recipients: ['not-an-email'] } }), 422, 'VALIDATION_ERROR');

    const created = await api.request('/api/v1/scheduled-reports', { method: 'POST', token: t.token, json: body });
    expect(created.status).toBe(201);
    const id = created.body.id;
    expect(created.body).toMatchObject({ status: 'active', schedule_id: `scheduled-report/${t.tenantId}/${id}`, time_zone: 'Europe/Berlin' });

    const client = await api.deps.temporal.client();
    const schedule = client.schedule.getHandle(workflowIds.scheduledReport(t.tenantId, id));
    const described = await schedule.describe();
    expect(described.spec).toMatchObject({ timezone: 'Europe/Berlin' });
    expect(JSON.stringify(described.spec)).toContain('"hour":[{"start":6');
    expect(described.action).toMatchObject({ workflowType: 'scheduledReportWorkflow', args: [{ tenantId: t.tenantId, scheduledReportId: id }] });
    const shown = await api.request(`/api/v1/scheduled-reports/${id}`, { token: t.token });
    expect(new Date(shown.body.next_runs[0]).getUTCDate()).toBe(1);

    await schedule.trigger();
    const run = await untilValue(async () => {
      const runs = await api.request(`/api/v1/scheduled-reports/${id}/runs`, { token: t.token });
      return runs.body.items.find((r: { status: string }) => r.status === 'sent');
    });
    expect(run).toMatchObject({ status: 'sent', sent_to: 2, error: null });
    const report = await api.request(`/api/v1/reports/${run.report_id}`, { token: t.token });
    expect(report.body).toMatchObject({ status: 'completed', scheduled_report_id: id, period: resolvePeriodRule('previous_month', new Date(), 'Europe/Berlin') });

    const mail = await waitForMail((m) => m.to.includes(recipient));
    expect(mail.to.sort()).toEqual([recipient, 'lead@plant.example.com'].sort());
    expect(mail.subject).toContain('Monthly compliance: Maintenance compliance');
    const period = resolvePeriodRule('previous_month', new Date(), 'Europe/Berlin');
    const unfolded = mail.raw.replace(/\r?\n[ \t]+/g, ' ');
    expect(unfolded).toContain(`Content-Type: application/pdf; name=maintenance_compliance_${period.from}_${period.to}.pdf`);
    const attachment = /Content-Disposition: attachment;[^\r\n]*\r?\n\r?\n([A-Za-z0-9+/=\r\n]+)/.exec(unfolded)?.[1];
    const attached = Buffer.from(attachment!.replace(/\s/g, ''), 'base64');
    expect(attached.subarray(0, 5).toString()).toBe('%PDF-');
    expect(await pdfText(attached)).toContain('Acme Plant Services');

    // Pause and resume: the row and the Schedule agree.
    expect((await api.request(`/api/v1/scheduled-reports/${id}/pause`, { method: 'POST', token: t.token })).body.status).toBe('paused');
    expect((await schedule.describe()).state.paused).toBe(true);
    expect((await api.request(`/api/v1/scheduled-reports/${id}/resume`, { method: 'POST', token: t.token })).body.status).toBe('active');
    expect((await schedule.describe()).state.paused).toBe(false);

    // Edit: interval in another time zone.
    const patched = await api.request(`/api/v1/scheduled-reports/${id}`, {
      method: 'PATCH',
      token: t.token,
      json: { schedule: { interval_minutes: 720 }, time_zone: 'America/New_York' },
    });
    expect(patched.body).toMatchObject({ schedule: { interval_minutes: 720 }, time_zone: 'America/New_York' });
    const after = await schedule.describe();
    expect(after.spec).toMatchObject({ timezone: 'America/New_York', intervals: [{ every: 720 * 60_000 }] });
    expect(after.spec.calendars ?? []).toHaveLength(0);
    expectError(await api.request(`/api/v1/scheduled-reports/${id}`, { method: 'PATCH', token: t.token, json: { report_type: 'open_alerts' } }), 422, 'VALIDATION_ERROR');

    // Isolation on every route.
    for (const [method, path] of [
      ['GET', ''],
      ['PATCH', ''],
      ['PUT', ''],
      ['DELETE', ''],
      ['POST', '/pause'],
      ['POST', '/resume'],
      ['GET', '/runs'],
    ] as const) {
      const res = await api.request(`/api/v1/scheduled-reports/${id}${path}`, {
        method,
        token: other.token,
        ...(method === 'PATCH' || method === 'PUT' ? { json: { name: 'x' } } : {}),
      });
      expectError(res, 404, 'NOT_FOUND');
    }
    expect((await api.request('/api/v1/scheduled-reports', { token: other.token })).body.total).toBe(0);
    expectError(await api.request(`/api/v1/brandings/${brandingId}`, { method: 'DELETE', token: t.token }), 409, 'CONFLICT');

    // Delete: row, runs and Schedule gone; the generated report stays in the history.
    expect((await api.request(`/api/v1/scheduled-reports/${id}`, { method: 'DELETE', token: t.token })).status).toBe(204);
    await expect(schedule.describe()).rejects.toBeInstanceOf(ScheduleNotFoundError);
    expectError(await api.request(`/api/v1/scheduled-reports/${id}`, { token: t.token }), 404, 'NOT_FOUND');
    expect((await api.request(`/api/v1/reports/${run.report_id}`, { token: t.token })).body).toMatchObject({ status: 'completed', scheduled_report_id: null });
  });
});
