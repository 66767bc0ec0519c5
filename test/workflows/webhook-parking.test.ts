/**
 * Parked deliveries on the time-skipping server, with the real activities, PostgreSQL, a real
 * loopback receiver and the real releaser: 25 dead endpoints hold 1 125 deliveries for 10 minutes of
 * skipped time at no cost (their histories do not move: no workflow task, no timer, no retry), then
 * a probe per endpoint, and the backlog goes out in event order at the endpoint's pace.
 *
 * The circuit runs on the wall clock, which the skipped clock leaves behind: its open period is an
 * hour here, and the test moves a circuit's `since` back to let a probe go (as the other tests move
 * a secret's expiry), so the 10 minutes of skipped time never let one go by accident.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Client, type WorkflowHandle } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createNotificationActivities } from '../../activities/notifications';
import { createWebhookDeliveryActivities } from '../../activities/webhooks/deliver';
import { DEFAULT_BREAKER } from '../../domain/webhooks/circuit-breaker';
import { MAX_IN_FLIGHT_PER_WEBHOOK } from '../../domain/webhooks/parking';
import { appendEvent } from '../../db/outbox';
import { claimReleases, parkDelivery, parkedSummary, parkingTotals, type Release } from '../../db/queries/webhook-parking';
import { webhookSecretColumns } from '../../db/queries/webhooks';
import { tenantScope } from '../../db/tenant-scope';
import { provisionTenant } from '../../db/tenants';
import { generateSecret } from '../../domain/webhooks/signing';
import { TASK_QUEUES } from '../../infra/task-queues';
import type { TemporalGateway } from '../../infra/temporal';
import { workflowIds } from '../../infra/workflow-ids';
import { mapSettled } from '../../orchestration/concurrency';
import { startNotificationDelivery } from '../../orchestration/notifications';
import { releaseParkedDeliveries, type ReleaserSettings } from '../../orchestration/webhook-release';
import type { WebhookDeliveryInput, WebhookDeliveryResult } from '../../workflows/webhook-delivery';
import { recordHistory } from '../support/record-history';
import { createTimeSkippingEnv, registerSearchAttributes } from '../support/temporal-env';
import { startTestPostgres, TestPostgres } from '../support/test-postgres';
import { until } from '../support/until';
import { startWebhookReceiver, WebhookReceiver } from '../support/webhook-receiver';

jest.setTimeout(900_000);

const KEY = randomBytes(32);
const ENDPOINTS = 25;
/** Events that fail at once on every endpoint and open its circuit (its threshold). */
const OPENING_EVENTS = 5;
/** Events whose deliveries find the circuit open: 40 x 25 = 1 000 parked at their first attempt. */
const HELD_EVENTS = 40;
const OPEN_MS = 60 * 60 * 1000;
const BOUND_QUEUE = 'webhooks-parking-bound';
const BOUND = 3;

let pg: TestPostgres;
let env: TestWorkflowEnvironment;
let receiver: WebhookReceiver;
let workers: Worker[];
let workersRunning: Promise<unknown>;
/**
 * A client whose result() does not let the server skip time: with deliveries parked (no timer),
 * the time-skipping server would skip to their run's timeout (env.client.result() unlocks skipping).
 */
let client: Client;

const settings: ReleaserSettings = {
  endpointWindow: MAX_IN_FLIGHT_PER_WEBHOOK,
  tenantWindow: 64,
  breaker: { ...DEFAULT_BREAKER, openMs: OPEN_MS },
};

beforeAll(async () => {
  [pg, env, receiver] = await Promise.all([startTestPostgres(), createTimeSkippingEnv(), startWebhookReceiver()]);
  await registerSearchAttributes(env);
  client = new Client({ connection: env.connection, namespace: env.namespace });
  const workflowsPath = require.resolve('../../workflows');
  const gateway: TemporalGateway = { client: async () => env.client, callDeadlineMs: 5_000, ping: async () => undefined, close: async () => undefined };
  const deliveryActivities = (maxParkedPerTenant: number) =>
    createWebhookDeliveryActivities({
      db: pg.db,
      dataEncryptionKey: KEY,
      allowPrivateDestinations: true,
      startNotification: (tenant, notificationId) => startNotificationDelivery(gateway, tenant, notificationId),
      breaker: { openMs: OPEN_MS },
      // Wide enough that 1 000 parkings at once are not refused a slot of the process (they wait on retry timers otherwise).
      tenantLimits: { maxInFlight: 200, maxWaiting: 2_000, maxWaitMs: 60_000 },
      maxParkedPerTenant,
    });
  workers = await Promise.all([
    Worker.create({ connection: env.nativeConnection, taskQueue: TASK_QUEUES.webhooks, workflowsPath, activities: deliveryActivities(10_000) }),
    Worker.create({ connection: env.nativeConnection, taskQueue: BOUND_QUEUE, workflowsPath, activities: deliveryActivities(BOUND) }),
    Worker.create({
      connection: env.nativeConnection,
      taskQueue: TASK_QUEUES.main,
      workflowsPath,
      activities: createNotificationActivities({ db: pg.db, mailer: null, from: 'test@example.com' }),
    }),
  ]);
  workersRunning = Promise.all(workers.map((w) => w.run()));
});

afterAll(async () => {
  if (workersRunning !== undefined) {
    for (const w of workers) w.shutdown();
    await workersRunning;
  }
  await env?.teardown();
  await receiver?.close();
  await pg?.stop();
});

/** Where a long run is (its phases take minutes on a loaded machine). */
const progress = (what: string) => process.stderr.write(`[webhook-parking ${new Date().toISOString()}] ${what}\n`);

async function newTenant(): Promise<string> {
  const suffix = randomUUID().slice(0, 8);
  return (await provisionTenant(pg.db, { name: `park ${suffix}`, plan: 'enterprise', adminEmail: `admin-${suffix}@example.com`, adminPassword: 'pw-0123456789' })).tenant_id;
}

async function createWebhook(tenantId: string): Promise<{ id: string; path: string }> {
  const id = randomUUID();
  const path = `/dead/${id}`;
  const url = receiver.url(path);
  await pg.db('webhooks').insert({ id, tenant_id: tenantId, events: ['*'], status: 'active', url, ...webhookSecretColumns({ id, url }, generateSecret(), KEY) });
  return { id, path };
}

/** Events one transaction each, so each has its own time: the release order. */
async function newEvents(tenantId: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push(await pg.db.transaction(async (tx) => (await appendEvent(tx, { tenantId, type: 'task.created', data: { n: i } })).id));
  return ids;
}

interface Started {
  input: WebhookDeliveryInput;
  handle: WorkflowHandle;
}

async function startDelivery(tenantId: string, webhookId: string, eventId: string, taskQueue: string = TASK_QUEUES.webhooks): Promise<Started> {
  const input: WebhookDeliveryInput = { tenantId, webhookId, eventId, deliveryId: randomUUID() };
  const handle = await env.client.workflow.start('webhookDeliveryWorkflowV3', { taskQueue, workflowId: workflowIds.webhookDelivery(tenantId, input.deliveryId), args: [input] });
  return { input, handle };
}

const parkedCount = async (tenantId: string) => Number((await pg.db('webhook_parked_deliveries').where({ tenant_id: tenantId }).count({ n: '*' }))[0].n);
const parkedAt = async (tenantId: string, attempt: number) =>
  Number((await pg.db('webhook_parked_deliveries').where({ tenant_id: tenantId, attempt }).whereNull('released_at').count({ n: '*' }))[0].n);

/** The delivery's result, waited for without letting the server skip time. */
const resultOf = ({ input }: Started) => client.workflow.getHandle(workflowIds.webhookDelivery(input.tenantId, input.deliveryId)).result() as Promise<WebhookDeliveryResult>;

const lastIndex = <T>(items: readonly T[], has: (item: T) => unknown) => items.reduce((last, item, i) => (has(item) ? i : last), -1);

/** What a history says about its cost: its events, workflow tasks and timers. */
async function costOf(handle: WorkflowHandle) {
  const events = (await handle.fetchHistory()).events ?? [];
  return {
    events: events.length,
    workflowTasks: events.filter((e) => e.workflowTaskCompletedEventAttributes).length,
    timers: events.filter((e) => e.timerStartedEventAttributes).length,
    /** Its last task completed (its commands follow): no task scheduled since, the workflow waits. */
    idle: lastIndex(events, (e) => e.workflowTaskCompletedEventAttributes) > lastIndex(events, (e) => e.workflowTaskScheduledEventAttributes),
  };
}

/** `work` over `items`, 32 at a time; the first failure fails the whole. */
async function mapAll<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<R[]> {
  return (await mapSettled(items, 32, work)).map((settled) => {
    if (settled.status === 'rejected') throw settled.reason;
    return settled.value;
  });
}

/** Every circuit of the tenant as if its open period had passed: the next pass of the releaser may probe. */
const letProbesGo = (tenantId: string) =>
  pg
    .db('webhook_circuit_breakers')
    .where({ tenant_id: tenantId })
    .update({ since: pg.db.raw(`since - interval '2 hours'`) });

/** The releaser, pass after pass, until stopped; every release in the order the passes made them. */
function runReleaser() {
  const passes: Release[][] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const pass = await releaseParkedDeliveries(pg.db, env.client, settings);
      if (pass.released.length > 0) passes.push(pass.released);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    passes,
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

describe('deliveries to dead endpoints', () => {
  it('hold 1 125 deliveries for 10 minutes of skipped time with no workflow task, then release them in event order after one successful probe per endpoint', async () => {
    const tenantId = await newTenant();
    const webhooks = await Promise.all(Array.from({ length: ENDPOINTS }, () => createWebhook(tenantId)));
    for (const w of webhooks) receiver.script(w.path, [{ status: 503 }]);
    const events = await newEvents(tenantId, OPENING_EVENTS + HELD_EVENTS);
    const rank = new Map(events.map((id, i) => [id, i]));

    // Five failed attempts per endpoint open its circuit; those deliveries wait 30 s for their second attempt.
    const opening = await mapAll(
      webhooks.flatMap((w) => events.slice(0, OPENING_EVENTS).map((e) => [w.id, e] as const)),
      ([webhookId, eventId]) => startDelivery(tenantId, webhookId, eventId),
    );
    await until(
      () => pg.db('webhook_circuit_breakers').where({ tenant_id: tenantId, state: 'open' }).count({ n: '*' }),
      ([{ n }]) => Number(n) === ENDPOINTS,
      'every circuit to open',
      { timeoutMs: 120_000, intervalMs: 250 },
    );
    const sentBeforeHold = receiver.requests.length;
    progress('every circuit open');

    // 1 000 more find their circuit open: each parks at its first attempt.
    const held = await mapAll(
      webhooks.flatMap((w) => events.slice(OPENING_EVENTS).map((e) => [w.id, e] as const)),
      ([webhookId, eventId]) => startDelivery(tenantId, webhookId, eventId),
    );
    await until(
      () => parkedAt(tenantId, 1),
      (n) => n === ENDPOINTS * HELD_EVENTS,
      'the 1 000 deliveries to park',
      { timeoutMs: 300_000, intervalMs: 500 },
    );
    // Parked in the database when its attempt ends; its workflow task completes right after.
    const before = await until(
      () => mapAll(held, ({ handle }) => costOf(handle)),
      (costs) => costs.every((c) => c.idle),
      'every parked workflow to finish its task',
      { timeoutMs: 120_000, intervalMs: 1_000 },
    );
    progress('1 000 parked');
    // Parking took one workflow task each.
    expect(before.map((c) => [c.workflowTasks, c.timers])).toEqual(held.map(() => [1, 0]));

    await env.sleep('10 minutes');
    progress('10 minutes skipped');

    // The opening deliveries' second attempts came due meanwhile: their circuit was still open, so they parked too, unsent.
    await until(
      () => parkedAt(tenantId, 2),
      (n) => n === ENDPOINTS * OPENING_EVENTS,
      'the second attempts to park',
      { timeoutMs: 120_000, intervalMs: 250 },
    );
    expect(receiver.requests.length).toBe(sentBeforeHold);
    // The held deliveries cost nothing for 10 minutes: not one history event, workflow task or timer.
    const after = await mapAll(held, ({ handle }) => costOf(handle));
    expect(after).toEqual(before);
    const totals = await parkingTotals(pg.db, 10_000);
    expect(totals.parked).toBe(ENDPOINTS * (OPENING_EVENTS + HELD_EVENTS));
    expect(await parkedSummary(tenantScope(pg.db, tenantId), webhooks[0].id)).toMatchObject({ count: OPENING_EVENTS + HELD_EVENTS, tenantCount: totals.parked });

    // First probe per endpoint: its oldest delivery, which fails (its second attempt); the circuit opens again.
    const releaser = runReleaser();
    progress('releasing');
    try {
      await letProbesGo(tenantId);
      await receiver.waitFor(() => receiver.requests.length === sentBeforeHold + ENDPOINTS, 60_000, 'one failed probe per endpoint');
      await until(
        () => pg.db('webhook_circuit_breakers').where({ tenant_id: tenantId, state: 'open', consecutive_failures: 6 }).count({ n: '*' }),
        ([{ n }]) => Number(n) === ENDPOINTS,
        'every failed probe to open its circuit again',
        { timeoutMs: 60_000, intervalMs: 250 },
      );
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(receiver.requests.length).toBe(sentBeforeHold + ENDPOINTS);

      // The receivers recover; the next probe (the next oldest) succeeds and the backlog follows.
      // (Awaiting the results lets the server skip time: only once the probes have gone, so the
      // failed probe's own retry, 5 min later, cannot come due before them.)
      for (const w of webhooks) receiver.script(w.path, [{ status: 200 }]);
      await letProbesGo(tenantId);
      await until(
        () => pg.db('webhook_circuit_breakers').where({ tenant_id: tenantId, state: 'closed' }).count({ n: '*' }),
        ([{ n }]) => Number(n) === ENDPOINTS,
        'every second probe to succeed and close its circuit',
        { timeoutMs: 60_000, intervalMs: 250 },
      );
      // The backlog goes out; then the failed probe's retry (5 min later: skipped) comes due and is sent.
      await until(
        () => parkedCount(tenantId),
        (n) => n === 0,
        'the backlog to go out',
        { timeoutMs: 300_000, intervalMs: 500 },
      );
      progress('backlog sent');
      await env.sleep('6 minutes');
      const results = await Promise.all([...opening, ...held].map(resultOf));
      expect(results.filter((r) => r.status !== 'delivered')).toEqual([]);
    } finally {
      await releaser.stop();
    }

    const byWebhook = (webhookId: string) => receiver.on(webhooks.find((w) => w.id === webhookId)!.path);
    for (const w of webhooks) {
      const arrivals = byWebhook(w.id).slice(OPENING_EVENTS);
      const eventOf = (body: string) => rank.get(JSON.parse(body).id as string)!;
      // The failed probe was the oldest delivery, the successful one the next oldest, alone before the rest.
      expect(eventOf(arrivals[0].body)).toBe(0);
      expect(eventOf(arrivals[1].body)).toBe(1);
      // Released in event order (each delivery's first release), at most a window per pass.
      const releases = releaser.passes.flatMap((pass) => pass.filter((r) => r.webhookId === w.id));
      const firstReleases = releases.filter((r, i) => releases.findIndex((o) => o.deliveryId === r.deliveryId) === i);
      const delivered = [...opening, ...held].filter(({ input }) => input.webhookId === w.id);
      const eventRank = (deliveryId: string) => rank.get(delivered.find(({ input }) => input.deliveryId === deliveryId)!.input.eventId)!;
      const order = firstReleases.map((r) => eventRank(r.deliveryId));
      expect(order).toEqual([...order].sort((a, b) => a - b));
      expect(new Set(order).size).toBe(OPENING_EVENTS + HELD_EVENTS);
      for (const pass of releaser.passes) expect(pass.filter((r) => r.webhookId === w.id).length).toBeLessThanOrEqual(MAX_IN_FLIGHT_PER_WEBHOOK);
      // Each delivery reached the receiver (once, unless a worker resent it under the same id).
      expect(new Set(byWebhook(w.id).map((r) => r.headers['webhook-id'])).size).toBe(OPENING_EVENTS + HELD_EVENTS);
    }

    // Attempt numbers count what was sent, not the waiting: a held delivery succeeded at its first
    // attempt; the first probe's delivery failed its first two, then succeeded at its third.
    const records = (deliveryId: string) => pg.db('webhook_deliveries').where({ delivery_id: deliveryId }).orderBy('attempt');
    const heldRecords = await records(held[0].input.deliveryId);
    expect(heldRecords.map((r) => [r.attempt, r.status])).toEqual([[1, 'succeeded']]);
    const firstProbe = opening.find(({ input }) => input.webhookId === webhooks[0].id && input.eventId === events[0])!;
    expect((await records(firstProbe.input.deliveryId)).map((r) => [r.attempt, r.status, r.status_code])).toEqual([
      [1, 'failed', 503],
      [2, 'failed', 503],
      [3, 'succeeded', 200],
    ]);
    expect(await resultOf(firstProbe)).toEqual({ status: 'delivered', attempts: 3 });
    await recordHistory('webhook-delivery-parked', firstProbe.handle);
    expect(await parkingTotals(pg.db, 10_000)).toMatchObject({ parked: 0, tenantsAtLimit: 0 });
    expect((await pg.db('webhooks').where({ tenant_id: tenantId }).select('status')).map((r) => r.status)).toEqual(Array(ENDPOINTS).fill('active'));
  });

  it("past its tenant's bound a delivery is not parked: it is recorded failed (parked_backlog_full) for recover, and its workflow ends", async () => {
    const tenantId = await newTenant();
    const webhook = await createWebhook(tenantId);
    receiver.script(webhook.path, [{ status: 503 }]);
    const events = await newEvents(tenantId, OPENING_EVENTS + BOUND + 2);
    for (const eventId of events.slice(0, OPENING_EVENTS)) await startDelivery(tenantId, webhook.id, eventId, BOUND_QUEUE);
    await until(
      () => pg.db('webhook_circuit_breakers').where({ tenant_id: tenantId }).first('state'),
      (row) => row?.state === 'open',
      'the circuit to open',
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    const parked = [];
    for (const eventId of events.slice(OPENING_EVENTS, OPENING_EVENTS + BOUND)) {
      parked.push(await startDelivery(tenantId, webhook.id, eventId, BOUND_QUEUE));
      await until(
        () => parkedCount(tenantId),
        (n) => n === parked.length,
        'the delivery to park',
        { timeoutMs: 30_000, intervalMs: 100 },
      );
    }
    const refused = await Promise.all(events.slice(OPENING_EVENTS + BOUND).map((eventId) => startDelivery(tenantId, webhook.id, eventId, BOUND_QUEUE)));
    for (const started of refused) {
      const { input } = started;
      expect(await resultOf(started)).toEqual({ status: 'skipped', reason: 'parked_backlog_full', attempts: 0 });
      expect(await pg.db('webhook_deliveries').where({ delivery_id: input.deliveryId })).toEqual([
        expect.objectContaining({
          attempt: 1,
          status: 'failed',
          status_code: null,
          failure_cause: 'parked_backlog_full',
          error: `not sent: the tenant already has its maximum of ${BOUND} parked deliveries`,
          next_attempt_at: null,
        }),
      ]);
    }
    expect(await parkedCount(tenantId)).toBe(BOUND);
    expect(receiver.on(webhook.path)).toHaveLength(OPENING_EVENTS);
    // Deleting the webhook releases its parked deliveries: their workflows end at once, and nothing stays parked.
    await pg.db('webhooks').where({ id: webhook.id }).delete();
    const releaser = runReleaser();
    try {
      for (const started of parked) expect(await resultOf(started)).toEqual({ status: 'skipped', reason: 'webhook_deleted', attempts: 0 });
    } finally {
      await releaser.stop();
    }
    expect(await parkedCount(tenantId)).toBe(0);
    expect(await pg.db('webhook_parking_counts').where({ tenant_id: tenantId }).first('parked')).toEqual({ parked: 0 });
  });
  it('orders parked deliveries by their events to the microsecond: two events of one millisecond go out in their order, whatever their delivery ids', async () => {
    const tenantId = await newTenant();
    const webhook = await createWebhook(tenantId);
    const [older, newer] = await newEvents(tenantId, 2);
    // One millisecond, two microseconds: a Date of either reads the same.
    await pg.db('outbox_events').where({ id: older }).update({ created_at: '2026-03-01T10:00:00.000100Z' });
    await pg.db('outbox_events').where({ id: newer }).update({ created_at: '2026-03-01T10:00:00.000200Z' });
    const sameMillisecond = new Date('2026-03-01T10:00:00.000Z');
    // The older event's delivery has the larger id, so an order by delivery id would be the wrong one.
    const deliveries = { [older]: 'ffffffff-0000-4000-8000-000000000001', [newer]: '00000000-0000-4000-8000-000000000002' };
    for (const eventId of [newer, older]) {
      const parked = await parkDelivery(pg.db, { tenantId, webhookId: webhook.id, eventId, deliveryId: deliveries[eventId], attempt: 1, eventAt: sameMillisecond }, 10_000);
      expect(parked.kind).toBe('parked');
    }
    const claimed = await pg.db.transaction((tx) => claimReleases(tx, [{ tenantId, webhookId: webhook.id, quota: 2 }], 120_000));
    expect(claimed.map((r) => r.deliveryId)).toEqual([deliveries[older], deliveries[newer]]);
  });
});
