/**
 * Extraction through an OpenAI-compatible provider: the real activities against the real database,
 * the provider a loopback HTTP server speaking the chat-completions format. The stack's worker runs
 * the built-in engine (no LLM_BASE_URL), so the activities run here, on a job inserted as the API
 * queues it, without its workflow.
 */
import fs from 'node:fs';
import { createServer, IncomingMessage, Server } from 'node:http';
import { requestListener } from '../../api/listen';
import { AddressInfo } from 'node:net';
import path from 'node:path';
import { createExtractionActivities } from '../../activities/extraction/activities';
import { createOpenAiCompatibleProvider } from '../../infra/llm';
import { INVOICE_FIELDS } from '../fixtures/extraction/templates';
import { createTenant, startTestApi, TestApi, TestTenant } from '../support/api';
import { insertQueuedExtraction } from '../support/extraction-job';

const invoice = fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'extraction', 'invoice.txt'), 'utf8');

let api: TestApi;
let t: TestTenant;
let provider: Server;
let baseUrl: string;
let answer: { status: number; body: unknown };
const received: { authorization?: string; body: any }[] = [];

const readBody = async (req: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
};

beforeAll(async () => {
  api = await startTestApi();
  t = await createTenant(api);
  provider = createServer(
    requestListener(async (req, res) => {
      received.push({ authorization: req.headers.authorization, body: await readBody(req) });
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
    }),
  );
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  await new Promise((resolve) => provider.close(resolve));
  await api.close();
});

/** A queued text job, as POST /extractions stores it, and the record its activities produce. */
async function extractWithProvider(): Promise<any> {
  const template = await api.request('/api/v1/extraction-templates', {
    method: 'POST',
    token: t.token,
    json: { name: `Invoice ${received.length}-${Date.now()}`, fields: INVOICE_FIELDS },
  });
  expect(template.status).toBe(201);
  const jobId = await insertQueuedExtraction(api.deps.db, t, template.body, { text: invoice });
  const activities = createExtractionActivities({
    db: api.deps.db,
    objectStore: api.deps.objectStore,
    sandbox: api.deps.sandbox,
    llm: createOpenAiCompatibleProvider({ baseUrl, apiKey: 'sk-test-key', model: 'extractor-1' }),
  });
  const ref = { tenantId: t.tenantId, extractionId: jobId };
  expect(await activities.loadExtractionSource(ref)).toEqual({ chunks: 1 });
  await activities.extractExtractionChunk({ ...ref, chunk: 0 });
  const { recordId } = await activities.completeExtraction(ref);
  const record = await api.request(`/api/v1/extractions/records/${recordId}`, { token: t.token });
  expect(record.status).toBe(200);
  return record.body;
}

describe('extraction with an OpenAI-compatible provider', () => {
  it('asks the model for JSON, coerces its values to the template types and locates each quote in the text', async () => {
    answer = {
      status: 200,
      body: {
        model: 'extractor-1-2026',
        choices: [
          {
            message: {
              role: 'assistant',
              content: JSON.stringify({
                invoice_number: { value: 'INV-2026-0042', quote: 'INV-2026-0042' },
                invoice_date: { value: '2026-03-05', quote: '05/03/2026' },
                total_amount: { value: '1234.56', quote: null },
                currency: { value: 'EUR', quote: null },
                paid: { value: 'no', quote: null },
              }),
            },
          },
        ],
      },
    };
    const record = await extractWithProvider();
    const request = received.at(-1)!;
    expect(request.authorization).toBe('Bearer sk-test-key');
    expect(request.body).toMatchObject({ model: 'extractor-1', temperature: 0 });
    expect(JSON.stringify(request.body.messages)).toContain('INV-2026-0042');

    expect(record).toMatchObject({ engine: 'openai-compatible', model: 'extractor-1-2026' });
    expect(record.fields.invoice_number).toMatchObject({ value: 'INV-2026-0042', confidence: 0.8, engine: 'openai-compatible' });
    const start = invoice.indexOf('INV-2026-0042');
    expect(record.fields.invoice_number.source).toEqual({ start, end: start + 'INV-2026-0042'.length, text: 'INV-2026-0042' });
    expect(record.fields.invoice_date).toMatchObject({ value: '2026-03-05', source: { text: '05/03/2026' } });
    expect(record.fields.total_amount.value).toBe(1234.56);
    expect(record.fields.paid.value).toBe(false);
  });

  it('falls back to the built-in engine when the provider fails, and says so', async () => {
    answer = { status: 503, body: { error: 'overloaded' } };
    const record = await extractWithProvider();
    expect(record.engine).toBe('built-in');
    expect(record.notice).toEqual(expect.stringContaining('built-in'));
    expect(record.fields.invoice_number).toMatchObject({ value: 'INV-2026-0042', engine: 'built-in' });
  });
});
