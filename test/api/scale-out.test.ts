/**
 * Scale-out and restarts (issue 18): two API processes and two workers against one Temporal dev
 * server (SQLite file) and one PostgreSQL, both of this test's own. A mixed load runs through the
 * APIs (counter readings that each create a work order through the plan workflows' Updates, the
 * task.created webhooks they cause, a privacy export), while, one after the other, one API and one
 * worker are killed with SIGKILL, the Temporal server is restarted and PostgreSQL is restarted.
 * Clients retry a failed request on the other API with the same Idempotency-Key, as a careful
 * integration would. Afterwards nothing is lost or doubled: every reading counted once, every work
 * order created once, every delivery recorded once and received, every plan's next due where its
 * readings put it, the audit chain intact. What it measured is printed (and in the closing note).
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../infra/config';
import { createTenant, send, startTestApi, TestApi, TestResponse, TestTenant } from '../support/api';
import { startServiceProcess, ServiceProcess } from '../../scripts/service-process';
import { DevServerForTest, startDevServerForTest } from '../support/temporal-env';
import { startTestPostgres, TestPostgres } from '../support/test-postgres';
import { startTogether } from '../support/start-together';
import { until } from '../support/until';
import { startWebhookReceiver, WebhookReceiver } from '../support/webhook-receiver';

jest.setTimeout(420_000);

const ROOT = path.resolve(__dirname, '..', '..');
const PLANS = 4;
const READINGS_PER_PLAN = 12;
const EVERY = 100;

let dir: string;
let temporal: DevServerForTest;
let postgres: TestPostgres;
let receiver: WebhookReceiver;
let admin: TestApi; // in this process: tenant set-up and the final checks
let tenant: TestTenant;
const apis: ServiceProcess[] = [];
const workers: ServiceProcess[] = [];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'industrial-ops-scale-'));
  [temporal, postgres, receiver] = await startTogether(
    startDevServerForTest({ dbFile: path.join(dir, 'temporal.db') }),
    startTestPostgres({ restartable: true }),
    startWebhookReceiver(),
  );
  const env = { TEMPORAL_ADDRESS: temporal.address, DATABASE_URL: postgres.databaseUrl };
  const log = (name: string) => path.join(ROOT, '.run', `scale-out-${name}.log`);
  // The workers first: each registers search attributes and schedules (idempotently).
  workers.push(await startServiceProcess('worker', env, log('worker-1')));
  workers.push(await startServiceProcess('worker', env, log('worker-2')));
  apis.push(...(await Promise.all([startServiceProcess('api', env, log('api-1')), startServiceProcess('api', env, log('api-2'))])));
  const base = loadConfig({ ...process.env, ...env });
  admin = await startTestApi({ databaseUrl: base.databaseUrl, temporal: base.temporal });
  tenant = await createTenant(admin);
});

afterAll(async () => {
  await Promise.all([...apis, ...workers].map((p) => p.stop().catch(() => undefined)));
  await admin?.close();
  await receiver?.close();
  await Promise.all([temporal?.stop(), postgres?.stop()]);
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

interface ClientStats {
  requests: number;
  retries: number;
  statuses: Map<string, number>;
  slowestMs: number;
}
const stats: ClientStats = { requests: 0, retries: 0, statuses: new Map(), slowestMs: 0 };
const dead = new Set<ServiceProcess>();

/**
 * A client of two API replicas: sends to one, and on a refused connection or a 5xx sends the same
 * request (same Idempotency-Key) to the other, with a short pause, for up to two minutes.
 */
async function call(preferred: number, pathAndQuery: string, init: RequestInit & { json?: unknown; token?: string }): Promise<TestResponse> {
  const started = Date.now();
  stats.requests += 1;
  for (let attempt = 0; ; attempt += 1) {
    const target = apis[(preferred + attempt) % apis.length]!;
    let outcome: string;
    if (dead.has(target)) {
      outcome = 'dead';
    } else {
      try {
        const res = await send(target.url, pathAndQuery, { ...init, signal: AbortSignal.timeout(15_000) });
        outcome = String(res.status);
        if (res.status < 500) {
          stats.slowestMs = Math.max(stats.slowestMs, Date.now() - started);
          stats.statuses.set(outcome, (stats.statuses.get(outcome) ?? 0) + 1);
          return res;
        }
      } catch {
        outcome = 'refused';
      }
    }
    stats.statuses.set(outcome, (stats.statuses.get(outcome) ?? 0) + 1);
    if (Date.now() - started > 120_000) throw new Error(`${pathAndQuery}: no answer within 2 minutes (last: ${outcome})`);
    stats.retries += 1;
    await new Promise((resolve) => setTimeout(resolve, outcome === 'dead' ? 0 : 300));
  }
}

it('loses and doubles nothing while an API and a worker are killed and Temporal and PostgreSQL restart', async () => {
  const token = tenant.token;
  const hook = await admin.request('/api/v1/integrations/webhooks', { method: 'POST', token, json: { url: receiver.url('/scale'), events: ['task.created'] } });
  expect(hook.status).toBe(201);
  const plans: string[] = [];
  for (let i = 0; i < PLANS; i++) {
    const res = await call(i, '/api/v1/maintenance/plans', {
      method: 'POST',
      token,
      json: { name: `Compressor ${i} service`, trigger: { type: 'counter', counter: 'operating_hours', unit: 'h', every: EVERY, start_value: 0 }, on_open_task: 'stack' },
      headers: { 'Idempotency-Key': randomUUID() },
    });
    expect(res.status).toBe(201);
    plans.push(res.body.id);
  }

  // The load: one gateway per plan sends rising run hours, each reading crossing one threshold.
  let done = 0;
  const gateway = async (index: number) => {
    for (let k = 1; k <= READINGS_PER_PLAN; k++) {
      const res = await call(index + k, `/api/v1/maintenance/plans/${plans[index]}/counter`, {
        method: 'POST',
        token,
        json: { value: k * EVERY, source: `gateway-${index}` },
        headers: { 'Idempotency-Key': `reading-${index}-${k}` },
      });
      if (res.status !== 200) throw new Error(`reading ${k} of plan ${index}: ${res.status} ${res.text}`);
      done += 1;
    }
  };
  // A data subject (a contact who reported a leak) whose export runs through the restarts.
  const [contact] = await admin.deps.db('contacts').insert({ tenant_id: tenant.tenantId, name: 'Ada Visitor', email: 'ada@example.test' }).returning('id');
  const started = Date.now();
  const load = Promise.all(plans.map((_, i) => gateway(i)));
  const exportRequest = call(0, '/api/v1/privacy/export-subject', { method: 'POST', token, json: { subject_id: contact.id, format: 'json' } });

  const total = PLANS * READINGS_PER_PLAN;
  const whenDone = (n: number) =>
    until(
      async () => done,
      (d) => d >= n,
      `${n} readings answered`,
      180_000,
      50,
    );
  const timeline: string[] = [];
  const mark = (what: string) => timeline.push(`${((Date.now() - started) / 1000).toFixed(1)} s ${what} (${done}/${total} readings)`);

  await whenDone(total / 4);
  dead.add(apis[0]!);
  await Promise.all([apis[0]!.kill(), workers[0]!.kill()]);
  mark('SIGKILL api-1 and worker-1');
  await whenDone(total / 2);
  await temporal.restart();
  mark('Temporal dev server restarted');
  await whenDone((3 * total) / 4);
  await postgres.restartServer();
  mark('PostgreSQL restarted');
  await load;
  mark('load done');
  const exported = await exportRequest;
  // Answered at once with its link: 202 while it builds (200 had it been ready already).
  expect([200, 202]).toContain(exported.status);

  // Work orders: one per reading, none twice.
  const tasks = await admin.deps.db('maintenance_tasks').where({ tenant_id: tenant.tenantId }).select('id', 'plan_id');
  expect(tasks).toHaveLength(total);
  for (const planId of plans) expect(tasks.filter((t) => t.plan_id === planId)).toHaveLength(READINGS_PER_PLAN);

  // Every plan's schedule where its readings put it: a repeated last reading crosses nothing and
  // names the next threshold, one interval above it.
  for (const [index, planId] of plans.entries()) {
    const again = await call(index, `/api/v1/maintenance/plans/${planId}/counter`, {
      method: 'POST',
      token,
      json: { value: READINGS_PER_PLAN * EVERY, source: `gateway-${index}` },
      headers: { 'Idempotency-Key': randomUUID() },
    });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ thresholds_crossed: 0, execution: null, next_threshold: (READINGS_PER_PLAN + 1) * EVERY });
  }

  // Deliveries: every task.created event delivered, recorded as succeeded exactly once.
  const events = await admin.deps.db('outbox_events').where({ tenant_id: tenant.tenantId, type: 'task.created' }).select('id');
  expect(events).toHaveLength(total);
  const received = () => new Set(receiver.on('/scale').map((r) => JSON.parse(r.body).id as string));
  await until(
    async () => received().size,
    (n) => n === total,
    'every task.created event at the receiver',
    120_000,
    250,
  );
  expect([...received()].sort()).toEqual(events.map((e) => e.id).sort());
  const succeeded = await until(
    async () => admin.deps.db('webhook_deliveries').where({ webhook_id: hook.body.id, status: 'succeeded' }).select('delivery_id'),
    (rows) => rows.length >= total,
    'every delivery recorded',
    90_000,
    250,
  );
  expect(succeeded).toHaveLength(total);
  expect(new Set(succeeded.map((r) => r.delivery_id)).size).toBe(total);

  // The export finished on the surviving worker, and the audit chain verifies.
  await until(
    async () => (await admin.request(`/api/v1/privacy/exports/${exported.body.export_id}`, { token })).body?.status,
    (status) => status === 'ready',
    'the export to complete',
    90_000,
    500,
  );
  const audit = await admin.request('/api/v1/audit/verify', { token });
  expect(audit.body).toMatchObject({ valid: true });

  const statuses = Object.fromEntries([...stats.statuses].sort());
  process.stderr.write(
    `[scale-out] ${stats.requests} requests, ${stats.retries} retried on the other API, answers ${JSON.stringify(statuses)}, slowest ${stats.slowestMs} ms, ` +
      `${total} work orders and ${total} deliveries once each, ${receiver.on('/scale').length - total} resent with the same id\n  ${timeline.join('\n  ')}\n`,
  );
  // No request was ever answered 500: a restart is a 503 (or a refused connection), never an internal error.
  expect(stats.statuses.get('500')).toBeUndefined();
});
