/**
 * The processes' start and stop as an orchestrator sees them. Stops: SIGTERM to a real API process
 * under load (real HTTP on loopback) and to a real worker process while one of its activities runs.
 * The API says 503 on /readyz from the first moment, answers every request it had, and exits 0; the
 * worker lets the activity finish and report its result before it exits 0. Starts that fail: one
 * JSON line saying why, and exit code 1. Crashes and stalls (docs/SECURITY.md, "Crash and stall
 * policy"), made by the test stack's fault trigger (TEST_FAULTS, refused outside APP_ENV=test;
 * infra/test-faults.ts): an uncaught exception or an unhandled rejection is logged once with the
 * request or job it came from (ids, never personal data), readiness flips to 503, the work in
 * flight finishes, and the process exits 70; an event loop that stops for good is ended by the
 * watchdog thread (SIGALRM) after EVENT_LOOP_STALL_LIMIT_MS, its /livez failing meanwhile.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import path from 'node:path';
import { loadConfig } from '../../infra/config';
import { EXIT_CRASHED } from '../../infra/crash-policy';
import { workflowIds } from '../../infra/workflow-ids';
import { INVOICE_FIELDS } from '../fixtures/extraction/templates';
import { createTenant, send, startTestApi, TestApi, TestTenant } from '../support/api';
import { startServiceProcess, type ServiceProcess } from '../../scripts/service-process';
import { startDevServerForTest } from '../support/temporal-env';
import { halfSentPost, heldProvider } from '../support/held-requests';
import { until } from '../support/until';

jest.setTimeout(300_000);

const ROOT = path.resolve(__dirname, '..', '..');
const logFile = (name: string) => path.join(ROOT, '.run', `process-lifecycle-${name}.log`);

let admin: TestApi;
let tenant: TestTenant;

beforeAll(async () => {
  admin = await startTestApi();
  tenant = await createTenant(admin);
});
afterAll(() => admin?.close());

/** Whether a new TCP connection to the origin is refused (the server stopped accepting). */
function refusesConnections(origin: string): Promise<boolean> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });
}

describe('the API on SIGTERM', () => {
  it('flips /readyz to 503, answers every request in flight and exits 0', async () => {
    const api = await startServiceProcess('api', { API_SHUTDOWN_DELAY_MS: '5000', API_SHUTDOWN_GRACE_MS: '60000' }, logFile('api'));
    expect((await send(api.url, '/readyz')).status).toBe(200);
    const uploads = await Promise.all([1, 2, 3].map((i) => halfSentPost(api.url, '/api/v1/assets', tenant.token, { name: `Drained pump ${i}`, type: 'pump' })));

    // Load on keep-alive connections until the "balancer" sees readiness fail, as a real one would.
    let balancerSendsHere = true;
    const statuses: number[] = [];
    const failures: string[] = [];
    const client = async () => {
      while (balancerSendsHere) {
        try {
          statuses.push((await send(api.url, '/api/v1/assets?limit=5', { token: tenant.token })).status);
        } catch (err) {
          failures.push(String((err as Error).cause ?? err));
        }
      }
    };
    const clients = [1, 2, 3, 4, 5, 6].map(client);
    await until(
      async () => statuses.length,
      (n) => n >= 30,
      'the load to run',
    );

    const exited = api.terminate();
    await api.logLine('api draining');
    const ready = await send(api.url, '/readyz');
    expect({ status: ready.status, code: ready.body?.error_code }).toEqual({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    balancerSendsHere = false;
    await Promise.all(clients);

    // Past the delay the server takes no new connection; the half-sent uploads are still in flight.
    await until(
      () => refusesConnections(api.url),
      (refused) => refused,
      'the API to stop accepting connections',
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    const answers = await Promise.all(uploads.map((upload) => upload.finish()));
    expect(answers.map((a) => [a.status, a.connection])).toEqual([
      [201, 'close'],
      [201, 'close'],
      [201, 'close'],
    ]);
    const names = (await admin.deps.db('assets').where({ tenant_id: tenant.tenantId }).pluck('name')).sort();
    expect(names).toEqual(['Drained pump 1', 'Drained pump 2', 'Drained pump 3']);

    expect(failures).toEqual([]);
    expect(new Set(statuses)).toEqual(new Set([200]));
    expect(await exited).toEqual({ code: 0, signal: null });
    expect((await api.logLine('api stopped')).cut_off).toBe(0);
  });
});

describe('the worker on SIGTERM', () => {
  it('lets the running activity finish and report, then exits 0', async () => {
    // A Temporal server of its own: the stack's worker must not take this activity.
    const [temporal, provider] = await Promise.all([startDevServerForTest(), heldProvider()]);
    const base = loadConfig(process.env);
    const own = await startTestApi({ temporal: { ...base.temporal, address: temporal.address } });
    try {
      const worker = await startServiceProcess('worker', { TEMPORAL_ADDRESS: temporal.address, LLM_BASE_URL: provider.baseUrl, LLM_API_KEY: 'sk-test' }, logFile('worker'));
      const t = await createTenant(own);
      const template = await own.request('/api/v1/extraction-templates', { method: 'POST', token: t.token, json: { name: 'Held invoice', fields: INVOICE_FIELDS } });
      expect(template.status).toBe(201);
      const text = fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'extraction', 'invoice.txt'), 'utf8');
      const job = await own.request('/api/v1/extractions', { method: 'POST', token: t.token, json: { template_id: template.body.id, text } });
      expect(job.status).toBe(202);

      await provider.requested; // the chunk's activity is running, waiting for the model
      const exited = worker.terminate();
      await worker.logLine('worker stopping');
      provider.release();
      expect(await provider.answered).toBe(true);
      expect(await exited).toEqual({ code: 0, signal: null });

      const client = await own.deps.temporal.client();
      const { events } = await client.workflow.getHandle(workflowIds.extraction(t.tenantId, job.body.id)).fetchHistory();
      const chunkScheduled = events!.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'extractExtractionChunk');
      expect(chunkScheduled).toBeDefined();
      const outcome = events!.find(
        (e) => Number(e.activityTaskCompletedEventAttributes?.scheduledEventId ?? e.activityTaskFailedEventAttributes?.scheduledEventId ?? -1) === Number(chunkScheduled!.eventId),
      );
      expect(outcome?.activityTaskCompletedEventAttributes).toBeTruthy();
    } finally {
      await own.close();
      await Promise.all([provider.close(), temporal.stop()]);
    }
  });
});

describe('a start that fails', () => {
  /** The process's output: exit code and its lines, each of which must be JSON. */
  function run(script: string, env: Record<string, string>) {
    const result = spawnSync(process.execPath, [path.join(ROOT, 'dist', script)], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 60_000 });
    const lines = `${result.stdout}${result.stderr}`.split('\n').filter(Boolean);
    return { status: result.status, lines: lines.map((line) => JSON.parse(line) as Record<string, any>) };
  }

  it('of the API on a port in use is one JSON line naming the cause', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const { status, lines } = run('api/server.js', { API_HOST: '127.0.0.1', API_PORT: String((taken.address() as AddressInfo).port) });
      expect(status).toBe(1);
      expect(lines.filter((l) => l.level === 60)).toEqual([
        expect.objectContaining({ component: 'api', msg: 'api failed to start', err: expect.objectContaining({ code: 'EADDRINUSE' }) }),
      ]);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('of the migrations is one JSON line naming the cause', () => {
    const { status, lines } = run('db/migrate-cli.js', {
      DATABASE_URL: 'postgres://nobody:wrong@127.0.0.1:1/none',
      DATABASE_MIGRATION_URL: 'postgres://nobody:wrong@127.0.0.1:1/none',
    });
    expect(status).toBe(1);
    expect(lines.at(-1)).toMatchObject({ level: 60, component: 'migrate', msg: 'migrations failed', err: { code: 'ECONNREFUSED' } });
  });
});

const livez = (origin: string, timeoutMs: number) =>
  fetch(`${origin}/livez`, { signal: AbortSignal.timeout(timeoutMs) }).then(
    (res) => res.status,
    () => 'no answer',
  );

describe('the API on a crash or a stall', () => {
  let api: ServiceProcess | null = null;
  afterEach(async () => {
    await api?.kill().catch(() => undefined);
    api = null;
  });

  it.each(['uncaught_exception', 'unhandled_rejection'])('on an %s: logs it with its request, drains, exits 70', async (kind) => {
    api = await startServiceProcess('api', { TEST_FAULTS: 'request-header', API_SHUTDOWN_DELAY_MS: '1000', API_SHUTDOWN_GRACE_MS: '60000' }, logFile(`crash-api-${kind}`));
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
    api = await startServiceProcess('api', { TEST_FAULTS: 'request-header', EVENT_LOOP_STALL_LIMIT_MS: '3000' }, logFile('crash-api-stall'));
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

describe('the worker on a crash or a stall', () => {
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
      logFile(`crash-worker-${kind}`),
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
