/**
 * A PDF that needs more memory than the worker allows its parser (PDF_PARSE_MAX_HEAP_MB, set low
 * here), on the real database and object store: the extraction's load fails for good with a reason
 * that says so, and the process goes on. The activities run here with that configuration (the
 * stack's worker keeps the default), on a job inserted as POST /extractions stores it.
 */
import { ApplicationFailure } from '@temporalio/common';
import { createExtractionActivities, SOURCE_ERROR } from '../../activities/extraction/activities';
import { createPdfReader } from '../../activities/extraction/pdf-text';
import { loadConfig } from '../../infra/config';
import { invoicePdf } from '../fixtures/extraction/pdf';
import { createTenant, startTestApi, TestApi, TestTenant } from '../support/api';
import { insertQueuedExtraction } from '../support/extraction-job';

jest.setTimeout(120_000);

let api: TestApi;
let t: TestTenant;

beforeAll(async () => {
  api = await startTestApi();
  t = await createTenant(api);
});
afterAll(() => api?.close());

it('fails the extraction of a PDF over the parser heap limit with a clear reason', async () => {
  const pdf = await invoicePdf(Array.from({ length: 3_000 }, (_, i) => `Line ${i + 1} of the maintenance log`).join('\n'));
  const form = new FormData();
  form.append('file', new Blob([pdf], { type: 'application/pdf' }), 'log.pdf');
  const file = await api.request('/api/v1/files', { method: 'POST', token: t.token, body: form });
  expect(file.status).toBe(201);
  const template = await api.request('/api/v1/extraction-templates', { method: 'POST', token: t.token, json: { name: 'Log', fields: [{ name: 'line', type: 'string' }] } });
  expect(template.status).toBe(201);
  const jobId = await insertQueuedExtraction(api.deps.db, t, template.body, { fileId: file.body.id });

  const { pdf: limits } = loadConfig({ ...process.env, PDF_PARSE_MAX_HEAP_MB: '8', PDF_PARSES_IN_FLIGHT: '1' });
  expect(limits).toEqual({ maxHeapMb: 8, inFlight: 1 });
  const activities = createExtractionActivities({ db: api.deps.db, objectStore: api.deps.objectStore, llm: null, pdf: createPdfReader(limits) });
  const failure = await activities.loadExtractionSource({ tenantId: t.tenantId, extractionId: jobId }).catch((err: unknown) => err);
  expect(failure).toBeInstanceOf(ApplicationFailure);
  expect(failure).toMatchObject({ type: SOURCE_ERROR, nonRetryable: true, message: 'the PDF needs more than 8 MiB of memory to read, the extraction limit' });
  expect(await api.deps.db('extraction_chunks').where({ extraction_id: jobId })).toHaveLength(0);
});
