/**
 * The crash and stall policy, on real processes from dist/ made to fail by the test stack's fault
 * trigger (TEST_FAULTS, refused outside APP_ENV=test; infra/test-faults.ts): an uncaught exception
 * or an unhandled rejection is logged once with the request or job it came from (ids, never
 * personal data), readiness flips to 503, the work in flight finishes, and the process exits 70
 * for its supervisor to restart; an event loop that stops for good is ended by the watchdog
 * thread (SIGALRM) after EVENT_LOOP_STALL_LIMIT_MS, its /livez failing meanwhile.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { EXIT_CRASHED } from '../../infra/crash-policy';
import { loadConfig } from '../../infra/config';
import { workflowIds } from '../../infra/workflow-ids';
import { startServiceProcess, type ServiceProcess } from '../../scripts/service-process';
import { INVOICE_FIELDS } from '../fixtures/extraction/templates';
import { createTenant, send, startTestApi, type TestApi, type TestTenant } from '../support/api';
import { halfSentPost, heldProvider } from '../support/held-requests';
import { startDevServerForTest } from '../support/temporal-env';

jest.setTimeout(300_000);

const ROOT = path.resolve(__dirname, '..', '..');
const logFile = (name: string) => path.join(ROOT, '.run', `crash-policy-${name}.log`);

let admin: TestApi;
let tenant: TestTenant;

beforeAll(async () => {
  admin = await startTestApi();
  tenant = await createTenant(admin);
});
afterAll(() => admin?.close());

const livez = (origin: string, timeoutMs: number) =>
  fetch(`${origin}/livez`, { signal: AbortSignal.timeout(timeoutMs) }).then(
    (res) => res.status,
    () => 'no answer',
  );

describe('the API', () => {
  let api: ServiceProcess | null = null;
  afterEach(async () => {
    await api?.kill().catch(() => undefined);
    api = null;
  });

  it.each(['uncaught_exception', 'unhandled_rejection'])('on an %s: logs it with its request, drains, exits 70', async (kind) => {
    api = await startServiceProcess('api', { TEST_FAULTS: 'request-header', API_SHUTDOWN_DELAY_MS: '1000', API_SHUTDOWN_GRACE_MS: '60000' }, logFile(`api-${kind}`));
    const inFlight = await halfSentPost(api.url, '/api/v1/assets', tenant.token, { name: `In flight at the ${kind}`, type: 'pump' });
    const requestId = `fault-${randomUUID()}`;
    const trigger = await send(api.url, '/api/v1/assets?limit=1', { token: tenant.token, headers: { 'X-Test-Fault': kind, 'X-Request-Id': requestId } });
    expect(trigger.status).toBe(200);

    const crashed = await api.logLine('api crashed: draining and exiting');
    expect(crashed).toMatchObject({ level: 60, kind, request_id: requestId, tenant_id: tenant.tenantId, crashes: 1 });
    expect(crashed.error).toMatchObject({ type: 'Error', message: expect.stringMatching(/^injected fault/) });
    expect(JSON.stringify(crashed)).not.toContain(tenant.email);
    await api.logLine('api draining');
    const ready = await send(api.url, '/readyz');
    expect({ status: ready.status, code: ready.body?.error_code }).toEqual({ status: 503, code: 'SERVICE_UNAVAILABLE' });

    // The request in flight is answered and its row written before the process goes.
    expect((await inFlight.finish()).status).toBe(201);
    expect(await api.exited).toEqual({ code: EXIT_CRASHED, signal: null });
    expect(await api.logLine('api stopped')).toMatchObject({ cut_off: 0, exit_code: EXIT_CRASHED });
    expect(
      await admin.deps
        .db('assets')
        .where({ tenant_id: tenant.tenantId, name: `In flight at the ${kind}` })
        .first(),
    ).toBeDefined();
  });

  it('whose event loop stops for good: fails liveness, and its watchdog ends it', async () => {
    api = await startServiceProcess('api', { TEST_FAULTS: 'request-header', EVENT_LOOP_STALL_LIMIT_MS: '3000' }, logFile('api-stall'));
    expect(await livez(api.url, 2_000)).toBe(200);
    const stalledAt = Date.now();
    expect((await send(api.url, '/api/v1/assets?limit=1', { token: tenant.token, headers: { 'X-Test-Fault': 'stall' } })).status).toBe(200);
    expect(await livez(api.url, 1_000)).toBe('no answer');

    const stalled = await api.logLine('api event loop stalled: ending the process', 30_000);
    expect(stalled).toMatchObject({ level: 60, component: 'api', limit_ms: 3_000, signal: 'SIGALRM' });
    expect(stalled.stalled_ms).toBeGreaterThan(3_000);
    expect(await api.exited).toEqual({ code: null, signal: 'SIGALRM' });
    expect(Date.now() - stalledAt).toBeLessThan(20_000);
  });
});

describe('the worker', () => {
  let temporal: Awaited<ReturnType<typeof startDevServerForTest>>;
  let own: TestApi;
  // A Temporal server of its own: the stack's worker must not take these activities.
  beforeAll(async () => {
    temporal = await startDevServerForTest();
    own = await startTestApi({ temporal: { ...loadConfig(process.env).temporal, address: temporal.address } });
  });
  afterAll(async () => {
    await own?.close();
    await temporal?.stop();
  });

  /** A worker whose first extraction chunk meets the fault, an extraction started, and the provider the chunk waits on. */
  async function faultyExtraction(kind: string, env: Record<string, string> = {}) {
    const provider = await heldProvider();
    const worker = await startServiceProcess(
      'worker',
      { TEMPORAL_ADDRESS: temporal.address, LLM_BASE_URL: provider.baseUrl, LLM_API_KEY: 'sk-test', TEST_FAULTS: `activity:extractExtractionChunk:${kind}`, ...env },
      logFile(`worker-${kind}`),
    );
    const t = await createTenant(own);
    const template = await own.request('/api/v1/extraction-templates', { method: 'POST', token: t.token, json: { name: 'Faulty invoice', fields: INVOICE_FIELDS } });
    const text = fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'extraction', 'invoice.txt'), 'utf8');
    const job = await own.request('/api/v1/extractions', { method: 'POST', token: t.token, json: { template_id: template.body.id, text } });
    expect(job.status).toBe(202);
    return { provider, worker, tenant: t, workflowId: workflowIds.extraction(t.tenantId, job.body.id) };
  }

  it('on an uncaught exception in an activity: logs it with the job, stops polling, lets the activity finish, exits 70', async () => {
    const { provider, worker, tenant: t, workflowId } = await faultyExtraction('uncaught_exception');
    try {
      const crashed = await worker.logLine('worker crashed: draining and exiting');
      expect(crashed).toMatchObject({ level: 60, kind: 'uncaught_exception', workflow_id: workflowId, activity_type: 'extractExtractionChunk', tenant_id: t.tenantId, attempt: 1 });
      await worker.logLine('worker stopping');
      expect((await send(worker.url, '/readyz')).status).toBe(503);

      await provider.requested; // the chunk's activity runs on, waiting for the model
      provider.release();
      expect(await provider.answered).toBe(true);
      expect(await worker.exited).toEqual({ code: EXIT_CRASHED, signal: null });
      expect(await worker.logLine('worker stopped')).toMatchObject({ exit_code: EXIT_CRASHED });

      const { events } = await (await own.deps.temporal.client()).workflow.getHandle(workflowId).fetchHistory();
      const scheduled = events!.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'extractExtractionChunk')!;
      const completed = events!.find((e) => Number(e.activityTaskCompletedEventAttributes?.scheduledEventId ?? -1) === Number(scheduled.eventId));
      expect(completed).toBeDefined();
    } finally {
      await worker.kill().catch(() => undefined);
      await provider.close();
    }
  });

  it('whose event loop stops for good inside an activity: its watchdog ends it', async () => {
    const { provider, worker } = await faultyExtraction('stall', { EVENT_LOOP_STALL_LIMIT_MS: '3000' });
    try {
      const stalled = await worker.logLine('worker event loop stalled: ending the process', 60_000);
      expect(stalled).toMatchObject({ level: 60, component: 'worker', limit_ms: 3_000, signal: 'SIGALRM' });
      expect(await worker.exited).toEqual({ code: null, signal: 'SIGALRM' });
    } finally {
      await worker.kill().catch(() => undefined);
      await provider.close();
    }
  });
});
