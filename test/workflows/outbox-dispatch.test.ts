/**
 * The outbox dispatcher's unit of work (orchestration/webhook-dispatch.ts) against a real migrated
 * PostgreSQL and a real Temporal server (issue 23): tenants share each batch fairly, a failing
 * item is retried on its own and parked after repeated failures while the rest of its batch is
 * dispatched, Temporal being unreachable leaves every row as it was, and events for a machine
 * agent in its cooldown are counted on the run without a signal each, whatever their number.
 */
import { randomUUID } from 'node:crypto';
import { Client, Connection, WorkflowClientInterceptor } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import pino from 'pino';
import { createMachineAgentActivities } from '../../activities/machine-agents';
import { provisionTenant } from '../../db/tenants';
import { deliveryIdFor } from '../../domain/webhooks/delivery-id';
import { TASK_QUEUES } from '../../infra/task-queues';
import { StartToAttemptTimes } from '../../infra/start-to-attempt';
import { workflowIds } from '../../infra/workflow-ids';
import { dispatchOutboxBatch, MAX_DISPATCH_ATTEMPTS, msUntilNextDue, TemporalUnreachableError } from '../../orchestration/webhook-dispatch';
import { RESPONSIVE_WORKER_START_TO_ATTEMPT_MS } from '../../orchestration/webhooks';
import { startWebhookDispatcher } from '../../workers/webhook-dispatcher';
import { createTimeSkippingEnv, registerSearchAttributes } from '../support/temporal-env';
import { startTestPostgres, TestPostgres } from '../support/test-postgres';
import { until } from '../support/until';

jest.setTimeout(240_000);

let pg: TestPostgres;
let env: TestWorkflowEnvironment;
let worker: Worker;
let running: Promise<void>;

beforeAll(async () => {
  [pg, env] = await Promise.all([startTestPostgres(), createTimeSkippingEnv()]);
  await registerSearchAttributes(env);
  worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: TASK_QUEUES.main,
    workflowsPath: require.resolve('../../workflows'),
    activities: createMachineAgentActivities({ db: pg.db, startNotification: async () => undefined, llm: null }),
  });
  running = worker.run();
});

afterAll(async () => {
  if (worker && worker.getState() === 'RUNNING') worker.shutdown();
  await running?.catch(() => undefined);
  await env?.teardown();
  await pg?.stop();
});

// Each test starts from an empty outbox: the dispatcher serves every tenant of the database.
beforeEach(async () => {
  await pg.db('outbox_events').whereNull('dispatched_at').update({ dispatched_at: pg.db.fn.now() });
});

async function tenant(): Promise<string> {
  const suffix = randomUUID().slice(0, 8);
  const { tenant_id: tenantId } = await provisionTenant(pg.db, {
    name: `Plant ${suffix}`,
    plan: 'enterprise',
    adminEmail: `admin-${suffix}@example.com`,
    adminPassword: `pw-${randomUUID()}`,
  });
  return tenantId;
}

async function storeEvents(tenantId: string, type: string, count: number, data: Record<string, unknown> = {}): Promise<string[]> {
  const rows = await pg
    .db('outbox_events')
    .insert(Array.from({ length: count }, (_, seq) => ({ tenant_id: tenantId, type, data: JSON.stringify({ ...data, seq }), occurred_at: new Date() })))
    .returning('id');
  return rows.map((r: { id: string }) => r.id);
}

async function webhook(tenantId: string, events: string[]): Promise<string> {
  const [row] = await pg
    .db('webhooks')
    .insert({ tenant_id: tenantId, url: 'https://hooks.example.com/in', events, secret_encrypted: 'x', status: 'active', created_at: new Date(Date.now() - 60_000) })
    .returning('id');
  return row.id;
}

const undispatched = async (ids: string[]) => pg.db('outbox_events').whereIn('id', ids).whereNull('dispatched_at').pluck('id');

/** The delivery workflow of (event, webhook): its type and its workflow task timeout in seconds, as the server runs it. */
async function startedDelivery(tenantId: string, eventId: string, webhookId: string): Promise<{ type: string; taskTimeoutS: number }> {
  const description = await env.client.workflow.getHandle(workflowIds.webhookDelivery(tenantId, deliveryIdFor(eventId, webhookId))).describe();
  const timeout = description.raw.executionConfig?.defaultWorkflowTaskTimeout;
  return { type: description.type, taskTimeoutS: Number(timeout?.seconds) + (timeout?.nanos ?? 0) / 1e9 };
}

describe('dispatchOutboxBatch', () => {
  it("shares a batch between tenants: a burst of one tenant does not hold back another's events", async () => {
    const [noisy, quiet] = [await tenant(), await tenant()];
    const burst = await storeEvents(noisy, 'machine.reading', 600);
    const few = await storeEvents(quiet, 'machine.reading', 3);
    const result = await dispatchOutboxBatch(pg.db, env.client, { batchSize: 200 });
    expect(result).toMatchObject({ events: 200, deliveries: 0, retrying: 0, parked: 0 });
    expect(await undispatched(few)).toEqual([]);
    expect(await undispatched(burst)).toHaveLength(403);
  });

  it('retries a failing item on its own and parks it after repeated failures, while the rest of its batch is dispatched', async () => {
    const tenantId = await tenant();
    const webhookId = await webhook(tenantId, ['order.created']);
    const [good, poison, alsoGood] = await storeEvents(tenantId, 'order.created', 3);
    const poisonWorkflowId = workflowIds.webhookDelivery(tenantId, deliveryIdFor(poison, webhookId));
    // The server refuses one start (as it would a malformed or oversized request); every other call is real.
    const refuseOne: WorkflowClientInterceptor = {
      async startWithDetails(input, next) {
        if (input.options.workflowId === poisonWorkflowId) throw new Error('refused by the server for this workflow');
        return next(input);
      },
    };
    const client = new Client({ connection: env.client.connection, namespace: env.namespace, interceptors: { workflow: [refuseOne] } });

    const first = await dispatchOutboxBatch(pg.db, client);
    expect(first).toMatchObject({ events: 3, deliveries: 3, retrying: 1, parked: 0 });
    expect(await undispatched([good, poison, alsoGood])).toEqual([poison]);
    for (const id of [good, alsoGood]) {
      const delivery = await startedDelivery(tenantId, id, webhookId);
      expect(delivery.type).toBe('webhookDeliveryWorkflowV3');
      // A task a dead worker held is handed over after 5 s, not the server's default 10 s.
      expect(delivery.taskTimeoutS).toBe(5);
    }
    const row = await pg.db('outbox_events').where({ id: poison }).first('attempts', 'last_error', 'parked_at', pg.db.raw('extract(epoch from next_attempt_at - now()) as wait_s'));
    expect(row).toMatchObject({ attempts: 1, parked_at: null, last_error: 'Error: refused by the server for this workflow' });
    expect(Number(row.wait_s)).toBeGreaterThan(0);
    expect(Number(row.wait_s)).toBeLessThanOrEqual(2);
    // Not due yet: the next pass leaves it alone.
    expect(await dispatchOutboxBatch(pg.db, client)).toMatchObject({ events: 0 });

    for (let attempt = 2; attempt <= MAX_DISPATCH_ATTEMPTS; attempt += 1) {
      await pg
        .db('outbox_events')
        .where({ id: poison })
        .update({ next_attempt_at: pg.db.raw(`now() - interval '1 second'`) });
      const pass = await dispatchOutboxBatch(pg.db, client);
      expect(pass).toMatchObject({ events: 1, retrying: attempt < MAX_DISPATCH_ATTEMPTS ? 1 : 0, parked: attempt < MAX_DISPATCH_ATTEMPTS ? 0 : 1 });
    }
    const parked = await pg.db('outbox_events').where({ id: poison }).first('attempts', 'parked_at', 'dispatched_at', 'last_error');
    expect(parked).toMatchObject({
      attempts: MAX_DISPATCH_ATTEMPTS,
      parked_at: expect.any(Date),
      dispatched_at: expect.any(Date),
      last_error: 'Error: refused by the server for this workflow',
    });
    expect(await dispatchOutboxBatch(pg.db, client)).toMatchObject({ events: 0 });
  });

  it('gives a delivery to a receiver known to answer fast a 3 s task timeout; one to a receiver without attempts, or with a slow one among its latest, 5 s', async () => {
    const tenantId = await tenant();
    const [fast, hung, fresh] = [await webhook(tenantId, ['order.created']), await webhook(tenantId, ['order.created']), await webhook(tenantId, ['order.created'])];
    // The delivery log: 20 answers in 40 ms each, and for `hung` a latest attempt that ran to its deadline.
    const logged = (webhookId: string, latencies: number[]) =>
      latencies.map((latency, i) => ({
        tenant_id: tenantId,
        webhook_id: webhookId,
        delivery_id: randomUUID(),
        event_id: randomUUID(),
        event_type: 'order.created',
        attempt: 1,
        status: latency < 10_000 ? 'succeeded' : 'failed',
        latency_ms: latency,
        created_at: new Date(Date.now() - 60_000 + i * 1_000),
      }));
    await pg.db('webhook_deliveries').insert([...logged(fast, Array(20).fill(40)), ...logged(hung, [...Array(19).fill(40), 10_000])]);
    const [eventId] = await storeEvents(tenantId, 'order.created', 1);
    expect(await dispatchOutboxBatch(pg.db, env.client)).toMatchObject({ events: 1, deliveries: 3, retrying: 0 });
    const taskTimeoutS = async (webhookId: string) => (await startedDelivery(tenantId, eventId!, webhookId)).taskTimeoutS;
    expect([await taskTimeoutS(fast), await taskTimeoutS(hung), await taskTimeoutS(fresh)]).toEqual([3, 5, 5]);
  });

  it('gives a delivery to a fast receiver the 5 s task timeout while the starting process turns its starts around slowly (a starved worker)', async () => {
    const tenantId = await tenant();
    const fast = await webhook(tenantId, ['order.created']);
    await pg.db('webhook_deliveries').insert(
      Array.from({ length: 20 }, (_, i) => ({
        tenant_id: tenantId,
        webhook_id: fast,
        delivery_id: randomUUID(),
        event_id: randomUUID(),
        event_type: 'order.created',
        attempt: 1,
        status: 'succeeded',
        latency_ms: 40,
        created_at: new Date(Date.now() - 60_000 + i * 1_000),
      })),
    );
    // One of this process's recent deliveries began its first attempt 1.5 s after its start.
    let now = 0;
    const startToAttempt = new StartToAttemptTimes(() => now);
    startToAttempt.started('earlier-delivery');
    now = RESPONSIVE_WORKER_START_TO_ATTEMPT_MS + 1_000;
    startToAttempt.attemptBegins('earlier-delivery');
    const [slowEvent] = await storeEvents(tenantId, 'order.created', 1);
    expect(await dispatchOutboxBatch(pg.db, env.client, { startToAttempt })).toMatchObject({ events: 1, deliveries: 1, retrying: 0 });
    expect((await startedDelivery(tenantId, slowEvent!, fast)).taskTimeoutS).toBe(5);

    // Responsive again (its latest figures fast): the same receiver's next delivery gets 3 s.
    for (let i = 0; i < 32; i++) {
      startToAttempt.started(`later-${i}`);
      now += 20;
      startToAttempt.attemptBegins(`later-${i}`);
    }
    const [nextEvent] = await storeEvents(tenantId, 'order.created', 1);
    expect(await dispatchOutboxBatch(pg.db, env.client, { startToAttempt })).toMatchObject({ events: 1, deliveries: 1, retrying: 0 });
    expect((await startedDelivery(tenantId, nextEvent!, fast)).taskTimeoutS).toBe(3);
  });

  it('starts with the claim committed and no transaction open; a batch whose dispatcher died is dispatched again once its claim runs out, the repeated starts refused', async () => {
    const tenantId = await tenant();
    await webhook(tenantId, ['order.created']);
    const ids = await storeEvents(tenantId, 'order.created', 2);
    // Seen from another connection during each start: the claim is already committed.
    const claimSeconds: number[] = [];
    const observe: WorkflowClientInterceptor = {
      async startWithDetails(input, next) {
        const row = await pg.db('outbox_events').where({ id: ids[0] }).first(pg.db.raw('extract(epoch from next_attempt_at - now())::float as s'));
        claimSeconds.push(row.s);
        return next(input);
      },
    };
    const client = new Client({ connection: env.client.connection, namespace: env.namespace, interceptors: { workflow: [observe] } });
    expect(await dispatchOutboxBatch(pg.db, client)).toMatchObject({ events: 2, deliveries: 2, alreadyStarted: 0, retrying: 0 });
    expect(claimSeconds).toHaveLength(2);
    // A short claim (6 s): a dispatcher killed mid-batch holds its events that long at most.
    for (const s of claimSeconds) {
      expect(s).toBeGreaterThan(0);
      expect(s).toBeLessThanOrEqual(6);
    }

    // As a dispatcher that died after its starts leaves them: claimed, not recorded.
    await pg
      .db('outbox_events')
      .whereIn('id', ids)
      .update({ dispatched_at: null, next_attempt_at: pg.db.raw(`now() + interval '5 seconds'`) });
    expect(await dispatchOutboxBatch(pg.db, env.client)).toMatchObject({ events: 0 });
    await pg
      .db('outbox_events')
      .whereIn('id', ids)
      .update({ next_attempt_at: pg.db.raw(`now() - interval '1 second'`) });
    expect(await dispatchOutboxBatch(pg.db, env.client)).toMatchObject({ events: 2, deliveries: 2, alreadyStarted: 2, retrying: 0 });
    expect(await undispatched(ids)).toEqual([]);
  });

  it('finds when the next claim or retry falls due (null when none waits), from the database clock', async () => {
    const tenantId = await tenant();
    expect(await msUntilNextDue(pg.db)).toBeNull();
    const [claimed, retrying, due] = await storeEvents(tenantId, 'order.created', 3);
    await pg
      .db('outbox_events')
      .where({ id: claimed })
      .update({ next_attempt_at: pg.db.raw(`now() + interval '3 seconds'`) });
    await pg
      .db('outbox_events')
      .where({ id: retrying })
      .update({ next_attempt_at: pg.db.raw(`now() + interval '40 seconds'`) });
    await pg
      .db('outbox_events')
      .where({ id: due })
      .update({ next_attempt_at: pg.db.raw(`now() - interval '1 second'`) });
    const ms = await msUntilNextDue(pg.db);
    expect(ms).toBeGreaterThan(2_000);
    expect(ms).toBeLessThanOrEqual(3_000);
    await pg.db('outbox_events').where({ id: claimed }).update({ dispatched_at: pg.db.fn.now() }); // recorded: no longer waited for
    expect(await msUntilNextDue(pg.db)).toBeGreaterThan(30_000);
  });

  it('renews the claim while a slow batch runs, so a live dispatcher keeps its events past the claim', async () => {
    const tenantId = await tenant();
    await webhook(tenantId, ['order.created']);
    const [id] = await storeEvents(tenantId, 'order.created', 1);
    const claimedUntil = async () => ((await pg.db('outbox_events').where({ id }).first('next_attempt_at')) as { next_attempt_at: Date }).next_attempt_at.getTime();
    // The start waits until the claim has been renewed twice (seen from another connection).
    const renewals: number[] = [];
    const slowStart: WorkflowClientInterceptor = {
      async startWithDetails(input, next) {
        const first = await claimedUntil();
        renewals.push(first);
        await until(
          async () => {
            const now = await claimedUntil();
            if (now !== renewals[renewals.length - 1]) renewals.push(now);
            return renewals.length;
          },
          (n) => n >= 3,
          'two renewals of the claim',
          10_000,
          20,
        );
        return next(input);
      },
    };
    const client = new Client({ connection: env.client.connection, namespace: env.namespace, interceptors: { workflow: [slowStart] } });
    expect(await dispatchOutboxBatch(pg.db, client, { claimRenewEveryMs: 50 })).toMatchObject({ events: 1, deliveries: 1, retrying: 0 });
    expect(renewals[2]).toBeGreaterThan(renewals[0]!);
    expect(await undispatched([id!])).toEqual([]);
    // Recorded, the row is no longer renewed.
    expect(await pg.db('outbox_events').where({ id }).first('next_attempt_at')).toEqual({ next_attempt_at: null });
  });

  it('leaves every row as it was when Temporal cannot be reached at all, and counts no attempt', async () => {
    const tenantId = await tenant();
    await webhook(tenantId, ['order.created']);
    const ids = await storeEvents(tenantId, 'order.created', 2);
    const nowhere = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }), namespace: env.namespace });
    await expect(dispatchOutboxBatch(pg.db, nowhere, { callDeadlineMs: 2_000 })).rejects.toBeInstanceOf(TemporalUnreachableError);
    expect(await pg.db('outbox_events').whereIn('id', ids).select('attempts', 'dispatched_at', 'next_attempt_at', 'last_error')).toEqual([
      { attempts: 0, dispatched_at: null, next_attempt_at: null, last_error: null },
      { attempts: 0, dispatched_at: null, next_attempt_at: null, last_error: null },
    ]);
    await nowhere.connection.close();
  });

  it("counts a flood of events for an agent in its cooldown on the run, without a signal each: the workflow's history stays small", async () => {
    const tenantId = await tenant();
    const [agent] = await pg
      .db('agents')
      .insert({
        tenant_id: tenantId,
        name: 'Vibration watcher',
        type: 'machine',
        system_prompt: 'x',
        model: 'built-in',
        temperature: 0.2,
        trigger_config: JSON.stringify({ event_types: ['vibration.threshold_exceeded'], cooldown_minutes: 60 }),
        created_at: new Date(Date.now() - 60_000),
      })
      .returning('id');
    const assetId = randomUUID();
    await storeEvents(tenantId, 'vibration.threshold_exceeded', 1, { asset_id: assetId });
    expect(await dispatchOutboxBatch(pg.db, env.client)).toMatchObject({ events: 1, suppressed: 0 });
    await until(() => pg.db('machine_agent_runs').where({ agent_id: agent.id }).whereNotNull('cooldown_until').first('id'), Boolean, 'the first run and its cooldown');

    const flood = 5_000;
    await storeEvents(tenantId, 'vibration.threshold_exceeded', flood, { asset_id: assetId });
    let suppressed = 0;
    for (;;) {
      const pass = await dispatchOutboxBatch(pg.db, env.client, { batchSize: 500 });
      if (pass.events === 0) break;
      expect(pass).toMatchObject({ retrying: 0, parked: 0 });
      suppressed += pass.suppressed;
    }
    expect(suppressed).toBe(flood);
    const [run] = await pg.db('machine_agent_runs').where({ agent_id: agent.id }).select('suppressed_events', 'suppressed_unsignalled');
    expect(run).toEqual({ suppressed_events: flood, suppressed_unsignalled: flood });
    const history = await env.client.workflow.getHandle(workflowIds.machineAgent(tenantId, agent.id, assetId)).fetchHistory();
    const signals = history.events!.filter((e) => e.workflowExecutionSignaledEventAttributes);
    expect(signals).toHaveLength(1);
    expect(history.events!.length).toBeLessThan(30);
  });
});

describe('the dispatcher loop', () => {
  it("picks up a dead dispatcher's batch when its claim runs out, without waiting for the next poll", async () => {
    const tenantId = await tenant();
    const ids = await storeEvents(tenantId, 'order.created', 2);
    // As a dispatcher killed mid-batch leaves them: claimed for one more second, never recorded.
    await pg
      .db('outbox_events')
      .whereIn('id', ids)
      .update({ next_attempt_at: pg.db.raw(`now() + interval '1 second'`) });
    const temporal = { client: async () => env.client, callDeadlineMs: 5_000, ping: async () => undefined, close: async () => undefined };
    // A poll ten minutes apart: only the wake-up at the claim's end can dispatch them within the test.
    const dispatcher = startWebhookDispatcher({ db: pg.db, databaseUrl: pg.databaseUrl, temporal, log: pino({ enabled: false }), fallbackPollMs: 600_000 });
    try {
      await until(
        () => undispatched(ids),
        (left) => left.length === 0,
        'the dead claim picked up',
        30_000,
      );
    } finally {
      await dispatcher.stop();
    }
    expect(await pg.db('outbox_events').whereIn('id', ids).pluck('attempts')).toEqual([0, 0]);
  });
});
