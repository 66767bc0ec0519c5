/**
 * PDF extraction's bounds measured on all memory (resident set, from /proc: heap, ArrayBuffers and
 * native memory together), on the real database and object store: a 1 MiB PDF whose flate stream
 * inflates to 1 GiB, and the same bomb behind a filter chain the inflation cap cannot measure, are
 * read by the extraction activity in a sandbox with a small budget (CONTENT_SANDBOX_WORKER_MEMORY_MB,
 * set low here). Each load fails for good with a reason that says why, the sandbox child's resident
 * memory stays within its baseline plus the budget, and the process that asked does not grow.
 */
import { ApplicationFailure } from '@temporalio/common';
import { createExtractionActivities, SOURCE_ERROR } from '../../activities/extraction/activities';
import { safeActivityFailure } from '../../activities/failure-hygiene';
import { loadConfig } from '../../infra/config';
import { createSandbox, type SandboxPool } from '../../infra/sandbox/pool';
import { invoicePdf } from '../fixtures/extraction/pdf';
import { createTenant, startTestApi, TestApi, TestTenant } from '../support/api';
import { insertQueuedExtraction } from '../support/extraction-job';
import { pdfChainedFlateBomb, pdfFlateBomb } from '../support/hostile-corpus/pdf';
import { rssMiB } from '../support/hostile-probe';

jest.setTimeout(300_000);

const BUDGET_MIB = 64;
let api: TestApi;
let t: TestTenant;
let template: { id: string; fields: unknown };
let sandbox: SandboxPool;

beforeAll(async () => {
  api = await startTestApi();
  t = await createTenant(api);
  template = (await api.request('/api/v1/extraction-templates', { method: 'POST', token: t.token, json: { name: 'Log', fields: [{ name: 'line', type: 'string' }] } })).body;
  const config = loadConfig({ ...process.env, CONTENT_SANDBOX_WORKER_MEMORY_MB: String(BUDGET_MIB), CONTENT_SANDBOX_PROCESSES: '1' });
  expect(config.sandbox).toMatchObject({ workerMemoryMb: BUDGET_MIB, processes: 1 });
  sandbox = createSandbox('worker', config.sandbox);
});
afterAll(async () => {
  sandbox?.close();
  await api?.close();
});

/** Loads the extraction of `pdf` while sampling the resident memory of this process and of each sandbox child. */
async function loadWhileMeasuring(pdf: Buffer) {
  const form = new FormData();
  form.append('file', new Blob([pdf], { type: 'application/pdf' }), 'doc.pdf');
  const file = await api.request('/api/v1/files', { method: 'POST', token: t.token, body: form });
  expect(file.status).toBe(201);
  const jobId = await insertQueuedExtraction(api.deps.db, t, template, { fileId: file.body.id });
  const activities = createExtractionActivities({ db: api.deps.db, objectStore: api.deps.objectStore, llm: null, sandbox });

  const own = { before: rssMiB(process.pid)!, peak: 0 };
  const children = new Map<number, { first: number; peak: number }>();
  const sampler = setInterval(() => {
    own.peak = Math.max(own.peak, rssMiB(process.pid) ?? 0);
    for (const pid of sandbox.stats().pids) {
      const rss = rssMiB(pid);
      if (rss === null) continue;
      const seen = children.get(pid) ?? { first: rss, peak: 0 };
      seen.peak = Math.max(seen.peak, rss);
      children.set(pid, seen);
    }
  }, 25);
  try {
    const outcome = await activities.loadExtractionSource({ tenantId: t.tenantId, extractionId: jobId }).catch((err: unknown) => err);
    return { outcome, jobId, own, children: [...children.values()] };
  } finally {
    clearInterval(sampler);
  }
}

it.each([
  ['a flate bomb', pdfFlateBomb, 'the PDF inflates to more than 256 MiB, the limit for uploaded content'],
  ['a flate bomb behind a filter chain', pdfChainedFlateBomb, `the PDF needs more than ${BUDGET_MIB} MiB of memory to process, the limit for uploaded content`],
])('%s fails its load for good with its reason, within the budget of all memory', async (_name, bomb, reason) => {
  const { outcome, jobId, own, children } = await loadWhileMeasuring(bomb());
  expect(outcome).toBeInstanceOf(ApplicationFailure);
  expect(outcome).toMatchObject({ type: SOURCE_ERROR, nonRetryable: true, message: reason });
  // What the worker's interceptor makes of it: still non-retryable, still the reason.
  expect(safeActivityFailure(outcome, 1)).toMatchObject({ nonRetryable: true, message: reason });
  expect(await api.deps.db('extraction_chunks').where({ extraction_id: jobId })).toHaveLength(0);
  // The child's resident memory: its idle baseline (parsers loaded) plus at most the budget, with 16 MiB for the sampling interval.
  expect(children.length).toBeGreaterThan(0);
  for (const child of children) expect(child.peak).toBeLessThanOrEqual(child.first + BUDGET_MIB + 16);
  expect(own.peak - own.before).toBeLessThan(64);
});

it('a real 3 000-line PDF is read within the same budget', async () => {
  const { outcome } = await loadWhileMeasuring(await invoicePdf(Array.from({ length: 3_000 }, (_, i) => `Line ${i + 1} of the maintenance log`).join('\n')));
  expect(outcome).toEqual({ chunks: expect.any(Number) });
});
