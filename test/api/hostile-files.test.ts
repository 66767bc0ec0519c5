/**
 * The hostile corpus for files (test/support/hostile-corpus/: images, PDFs, archives), each sent
 * through every files entry point that accepts it, against an API process from dist/ and the
 * stack's worker, watched by test/support/hostile-probe.ts: each attack answers its 4xx error
 * object or fails its job with its reason, both processes answer /livez within 2 s with the same
 * pid, their resident memory stays under the bounds below, and another tenant's request answers
 * within 2 s meanwhile.
 *
 * Entry points: POST /files (stored as uploaded, never decoded), POST/PUT /brandings (the logo is
 * decoded in the sandbox: 422 when refused), collections (membership only), extractions (PDFs read
 * in the worker's sandbox; other types refused), reports direct and as jobs (renders in the
 * sandbox, with a logo that was stored before logos were checked). No route imports a file.
 */
import path from 'node:path';
import { workflowIds } from '../../infra/workflow-ids';
import { startServiceProcess, type ServiceProcess } from '../../scripts/service-process';
import { INVOICE_FIELDS } from '../fixtures/extraction/templates';
import { createTenant, createUser, expectError, send, startTestApi, TestApi, TestResponse, TestTenant } from '../support/api';
import { HOSTILE_ARCHIVES } from '../support/hostile-corpus/archives';
import { HOSTILE_IMAGES, validPng } from '../support/hostile-corpus/images';
import { HOSTILE_PDFS } from '../support/hostile-corpus/pdf';
import { expectContained, stackWorker, underHostileLoad, type HostileProbeReport } from '../support/hostile-probe';
import { until } from '../support/until';

jest.setTimeout(900_000);

/**
 * Resident memory bounds (MiB) of the API and worker processes themselves: the process's share of
 * its pod's limit (docs/decisions/pod-memory-from-measured-parts.md). The API idles at about 150
 * and decodes nothing itself; the worker idles at 300-600 with the stack's load. The sandbox
 * children are separate processes under their own OS ceiling.
 */
const RSS_BOUNDS = { api: 400, worker: 1024 };

const ROOT = path.resolve(__dirname, '..', '..');
let admin: TestApi;
let apiProcess: ServiceProcess;
let victim: TestTenant;
let other: TestTenant;
let templateId: string;
let collectionId: string;

beforeAll(async () => {
  admin = await startTestApi();
  apiProcess = await startServiceProcess('api', {}, path.join(ROOT, '.run', 'hostile-files-api.log'));
  [victim, other] = await Promise.all([createTenant(admin), createTenant(admin)]);
  const template = await call('/api/v1/extraction-templates', { method: 'POST', token: victim.token, json: { name: 'Invoice', fields: INVOICE_FIELDS } });
  templateId = template.body.id;
  collectionId = (await call('/api/v1/collections', { method: 'POST', token: victim.token, json: { name: 'Hostile' } })).body.id;
});
afterAll(async () => {
  await apiProcess?.stop();
  await admin?.close();
});

const call = (pathname: string, init: Parameters<typeof send>[2] = {}) => send(apiProcess.url, pathname, init);

function attack<T>(run: () => Promise<T>): Promise<HostileProbeReport<T>> {
  return underHostileLoad(
    {
      watched: [{ name: 'api', pid: apiProcess.pid, livezUrl: `${apiProcess.url}/livez` }, stackWorker()],
      otherTenant: async () => (await call('/api/v1/assets?limit=5', { token: other.token })).status,
    },
    run,
  );
}

async function upload(bytes: Buffer, name: string, type: string, token = victim.token): Promise<TestResponse> {
  const form = new FormData();
  form.append('file', new Blob([bytes], { type }), name);
  return call('/api/v1/files', { method: 'POST', token, body: form });
}

/** A file through the entry points that only store or reference it: uploaded (201, bytes kept), added to a collection (201). */
async function storeAndCollect(bytes: Buffer, name: string, type: string): Promise<string> {
  const file = await upload(bytes, name, type);
  expect(file.status).toBe(201);
  expect(file.body).toMatchObject({ size_bytes: bytes.length, content_type: type });
  const item = await call(`/api/v1/collections/${collectionId}/items`, { method: 'POST', token: victim.token, json: { item_type: 'file', item_id: file.body.id } });
  expect(item.status).toBe(201);
  return file.body.id;
}

/** The extraction of a file: its job's final state and how many attempts its load took. */
async function extract(fileId: string): Promise<{ status: string; error: string | null; attempts: number }> {
  const job = await call('/api/v1/extractions', { method: 'POST', token: victim.token, json: { template_id: templateId, file_id: fileId } });
  expect(job.status).toBe(202);
  const done = await until(
    () => call(`/api/v1/extractions/${job.body.id}`, { token: victim.token }),
    (res) => res.body.status === 'failed' || res.body.status === 'completed',
    'the extraction to end',
    { timeoutMs: 300_000, intervalMs: 500 },
  );
  const client = await admin.deps.temporal.client();
  const history = await client.workflow.getHandle(workflowIds.extraction(victim.tenantId, job.body.id)).fetchHistory();
  const attempts = Math.max(0, ...(history.events ?? []).map((e) => e.activityTaskStartedEventAttributes?.attempt ?? 0));
  return { status: done.body.status, error: done.body.error, attempts };
}

const brandingBody = (logoFileId: string) => ({ name: `b-${logoFileId.slice(0, 8)}`, company_name: 'Hostile Inc', logo_file_id: logoFileId });

describe('images', () => {
  it.each(Object.keys(HOSTILE_IMAGES))('%s: stored as uploaded, refused as a logo with its reason (create and update), never an extraction', async (name) => {
    const image = HOSTILE_IMAGES[name]!;
    // Generated before the attack: the generator runs on this process's event loop, which also sends the probes.
    const bytes = image.bytes();
    const report = await attack(async () => {
      const fileId = await storeAndCollect(bytes, `${name}.img`, image.contentType);
      const created = await call('/api/v1/brandings', { method: 'POST', token: victim.token, json: brandingBody(fileId) });
      expectError(created, 422, 'VALIDATION_ERROR');
      expect(created.body.detail).toMatch(/^the logo file is not a usable image: the logo (could not be read|needs more than|took longer)/);
      expect(created.body.fields).toEqual([expect.objectContaining({ field: 'body.logo_file_id', type: 'any.image' })]);
      const plain = await call('/api/v1/brandings', { method: 'POST', token: victim.token, json: { name: `plain-${name}`, company_name: 'Hostile Inc' } });
      expectError(await call(`/api/v1/brandings/${plain.body.id}`, { method: 'PUT', token: victim.token, json: { logo_file_id: fileId } }), 422, 'VALIDATION_ERROR');
      expect(await extract(fileId)).toEqual({
        status: 'failed',
        error: `unsupported file type ${image.contentType}: only application/pdf and text/plain can be extracted`,
        attempts: 1,
      });
    });
    expectContained(report, { rssMiB: RSS_BOUNDS });
  });

  it('a valid logo is accepted and re-encoded: the renderer embeds a PNG the service wrote', async () => {
    const fileId = (await upload(validPng(640, 480), 'logo.png', 'image/png')).body.id;
    const branding = await call('/api/v1/brandings', { method: 'POST', token: victim.token, json: brandingBody(fileId) });
    expect(branding.status).toBe(201);
    const stored = await admin.deps.db('logo_images').where({ file_id: fileId }).first();
    expect({ width: stored.width, height: stored.height, refused: stored.refused }).toEqual({ width: 256, height: 192, refused: null });
    expect(stored.png.subarray(1, 4).toString()).toBe('PNG');
    const pdf = await call(`/api/v1/reports/direct/open_alerts.pdf?branding_id=${branding.body.id}`, { token: victim.token });
    expect(pdf.status).toBe(200);
  });
});

describe('logos stored before logos were checked', () => {
  /** A branding whose logo never went through the check, as one set before it existed. */
  async function legacyBranding(bytes: Buffer, type: string): Promise<{ brandingId: string; fileId: string }> {
    const fileId = (await upload(bytes, 'old-logo', type)).body.id;
    const [row] = await admin.deps
      .db('brandings')
      .insert({ tenant_id: victim.tenantId, name: `legacy-${fileId.slice(0, 8)}`, company_name: 'Legacy Inc', logo_file_id: fileId })
      .returning('id');
    return { brandingId: row.id, fileId };
  }

  it.each(Object.keys(HOSTILE_IMAGES))("%s: a viewer's direct render answers the report without the logo, and the refusal is stored", async (name) => {
    const image = HOSTILE_IMAGES[name]!;
    const viewer = await createUser(admin, victim.tenantId, 'viewer');
    const { brandingId, fileId } = await legacyBranding(image.bytes(), image.contentType);
    const report = await attack(async () => {
      for (const format of ['pdf', 'xlsx']) {
        const res = await call(`/api/v1/reports/direct/open_alerts.${format}?branding_id=${brandingId}`, { token: viewer.token });
        expect(res.status).toBe(200);
      }
    });
    expectContained(report, { rssMiB: RSS_BOUNDS });
    expect(await admin.deps.db('logo_images').where({ file_id: fileId }).first('refused')).toEqual({ refused: expect.stringMatching(/^the logo /) });
  });

  it.each(Object.keys(HOSTILE_IMAGES))('%s: a report job renders without the logo in the worker, once', async (name) => {
    const image = HOSTILE_IMAGES[name]!;
    const { brandingId } = await legacyBranding(image.bytes(), image.contentType);
    const report = await attack(async () => {
      const job = await call('/api/v1/reports', { method: 'POST', token: victim.token, json: { type: 'open_alerts', format: 'pdf', branding_id: brandingId } });
      expect(job.status).toBe(202);
      return until(
        () => call(`/api/v1/reports/${job.body.id}`, { token: victim.token }),
        (res) => res.body.status === 'completed' || res.body.status === 'failed',
        'the report to end',
        { timeoutMs: 300_000, intervalMs: 500 },
      );
    });
    expectContained(report, { rssMiB: RSS_BOUNDS });
    expect(report.result.body).toMatchObject({ status: 'completed', error: null });
  });
});

describe('PDFs', () => {
  const reasons: Record<string, RegExp> = {
    'pdf-flate-bomb': /^the PDF inflates to more than 256 MiB, the limit for uploaded content$/,
    'pdf-chained-flate-bomb': /^the PDF needs more than \d+ MiB of memory to process, the limit for uploaded content$/,
    'pdf-corrupt': /^the PDF could not be read: /,
  };

  it.each(Object.keys(HOSTILE_PDFS))('%s: stored, refused as a logo, and its extraction fails after one attempt with its reason', async (name) => {
    const bytes = HOSTILE_PDFS[name]!();
    const report = await attack(async () => {
      const fileId = await storeAndCollect(bytes, `${name}.pdf`, 'application/pdf');
      expectError(await call('/api/v1/brandings', { method: 'POST', token: victim.token, json: brandingBody(fileId) }), 422, 'VALIDATION_ERROR');
      return extract(fileId);
    });
    expectContained(report, { rssMiB: RSS_BOUNDS });
    expect(report.result).toEqual({ status: 'failed', error: expect.stringMatching(reasons[name]!), attempts: 1 });
  });
});

describe('archives', () => {
  it.each(Object.keys(HOSTILE_ARCHIVES))('%s: stored as uploaded and never opened (refused as a logo and as an extraction)', async (name) => {
    const archive = HOSTILE_ARCHIVES[name]!;
    const bytes = archive.bytes();
    const report = await attack(async () => {
      const fileId = await storeAndCollect(bytes, archive.fileName, archive.contentType);
      expectError(await call('/api/v1/brandings', { method: 'POST', token: victim.token, json: brandingBody(fileId) }), 422, 'VALIDATION_ERROR');
      return extract(fileId);
    });
    expectContained(report, { rssMiB: RSS_BOUNDS });
    expect(report.result).toMatchObject({ status: 'failed', error: expect.stringMatching(/^unsupported file type /), attempts: 1 });
  });
});

describe('direct renders', () => {
  /** A tenant with `count` tasks due in January 2025, missed (an exception row each) or done on time (no row), and its viewer. */
  async function tenantWithTasks(count: number, state: 'missed' | 'on_time') {
    const t = await createTenant(admin);
    const db = admin.deps.db;
    const [plan] = await db('maintenance_plans')
      .insert({ tenant_id: t.tenantId, name: 'Big PM', trigger: JSON.stringify({ type: 'calendar', every: 'P1D' }), interval_hours: 24 })
      .returning('id');
    const tasks = Array.from({ length: count }, (_, i) => {
      const due = new Date(Date.UTC(2025, 0, 1 + (i % 28), 8));
      return {
        tenant_id: t.tenantId,
        plan_id: plan.id,
        task_code: `PM-${i}`,
        title: `Task ${i}`,
        due_at: due,
        status: state === 'missed' ? 'open' : 'done',
        completed_at: state === 'missed' ? null : due,
        interval_hours: 24,
      };
    });
    for (let i = 0; i < tasks.length; i += 1_000) await db('maintenance_tasks').insert(tasks.slice(i, i + 1_000));
    return createUser(admin, t.tenantId, 'viewer');
  }
  const compliance = (token: string) => call('/api/v1/reports/direct/maintenance_compliance.pdf?from=2025-01-01&to=2025-01-31', { token });

  it('refuse more than 2 000 table rows with a 422 that points to report jobs', async () => {
    const res = await compliance((await tenantWithTasks(2_100, 'missed')).token);
    expectError(res, 422, 'REPORT_TOO_LARGE');
    expect(res.body).toMatchObject({ max_rows: 2_000 });
    expect(res.body.rows).toBeGreaterThan(2_000);
    expect(res.body.detail).toContain('POST /api/v1/reports');
  });

  it('refuse a report that would read more than 20 000 rows before reading them all, even when it draws few', async () => {
    const viewer = await tenantWithTasks(20_001, 'on_time');
    const res = await compliance(viewer.token);
    expectError(res, 422, 'REPORT_TOO_LARGE');
    expect(res.body).toMatchObject({ rows: 20_001, max_rows: 20_000 });
    expect(res.body.detail).toBe('the report needs more than 20000 rows read, the limit of a direct render: request it with POST /api/v1/reports');
  });

  it("hold a viewer's tenant to its share of the sandbox (429 beyond it) while another tenant's render answers", async () => {
    const viewer = await createUser(admin, victim.tenantId, 'viewer');
    // A burst overflows the share (1 running, 1 waiting) only if its requests reach the sandbox
    // together; on a loaded machine they can arrive one render apart, so bursts repeat until one does.
    const answers: TestResponse[] = [];
    const burst = () => Promise.all(Array.from({ length: 8 }, () => call('/api/v1/reports/direct/asset_health.pdf', { token: viewer.token })));
    await until(
      async () => answers.push(...(await burst())),
      () => answers.some((r) => r.status === 429),
      'a burst of direct renders past the share',
      { timeoutMs: 120_000, intervalMs: 0 },
    );
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(1);
    expect(statuses.filter((s) => s !== 200)).toEqual(statuses.filter((s) => s === 429));
    const refused = answers.find((r) => r.status === 429)!;
    expectError(refused, 429, 'RATE_LIMITED');
    expect(refused.headers.get('retry-after')).toBe('5');
    expect((await call('/api/v1/reports/direct/asset_health.pdf', { token: other.token })).status).toBe(200);
  });
});
