/**
 * The processes' start and stop as an orchestrator sees them. Stops: SIGTERM to a real API process
 * under load (real HTTP on loopback) and to a real worker process while one of its activities runs.
 * The API says 503 on /readyz from the first moment, answers every request it had, and exits 0; the
 * worker lets the activity finish and report its result before it exits 0. Starts that fail: one
 * JSON line saying why, and exit code 1.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import path from 'node:path';
import { loadConfig } from '../../infra/config';
import { workflowIds } from '../../infra/workflow-ids';
import { INVOICE_FIELDS } from '../fixtures/extraction/templates';
import { createTenant, send, startTestApi, TestApi, TestTenant } from '../support/api';
import { startServiceProcess } from '../../scripts/service-process';
import { startDevServerForTest } from '../support/temporal-env';
import { halfSentPost, heldProvider } from '../support/held-requests';
import { until } from '../support/until';

jest.setTimeout(240_000);

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
