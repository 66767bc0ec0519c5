/**
 * The delivery workflow on the time-skipping server, with its real activities: a real PostgreSQL
 * (migrated), a real loopback HTTP receiver, real signing. The schedule's timers are skipped, so
 * the whole five-attempt schedule (2 h 35.5 min) runs in seconds.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { MockActivityEnvironment, TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { Knex } from 'knex';
import { Webhook } from 'standardwebhooks';
import { createNotificationActivities } from '../../activities/notifications';
import { createWebhookDeliveryActivities } from '../../activities/webhooks/deliver';
import { createWebhookHealthActivities } from '../../activities/webhooks/health';
import { appendEvent } from '../../db/outbox';
import { webhookSecretColumns } from '../../db/queries/webhooks';
import { provisionTenant } from '../../db/tenants';
import { verifyXSignature, generateSecret } from '../../domain/webhooks/signing';
import { TASK_QUEUES } from '../../infra/task-queues';
import type { TemporalGateway } from '../../infra/temporal';
import { startNotificationDelivery } from '../../orchestration/notifications';
import { workflowIds } from '../../infra/workflow-ids';
import type { WebhookDeliveryInput, WebhookDeliveryResult } from '../../workflows/webhook-delivery';
import { recordHistory } from '../support/record-history';
import { createTimeSkippingEnv, registerSearchAttributes } from '../support/temporal-env';
import { startTestPostgres, TestPostgres } from '../support/test-postgres';
import { startWebhookReceiver, WebhookReceiver } from '../support/webhook-receiver';
import { until } from '../support/until';

jest.setTimeout(180_000);

const KEY = randomBytes(32);
const SECOND = 1000;
const MINUTE = 60 * SECOND;

let pg: TestPostgres;
let env: TestWorkflowEnvironment;
let receiver: WebhookReceiver;
let tenantId: string;
let webhookWorker: Worker;
let mainWorker: Worker;
let workersRunning: Promise<unknown>;

beforeAll(async () => {
  [pg, env, receiver] = await Promise.all([startTestPostgres(), createTimeSkippingEnv(), startWebhookReceiver()]);
  await registerSearchAttributes(env);
  const suffix = randomUUID().slice(0, 8);
  tenantId = (await provisionTenant(pg.db, { name: `wh ${suffix}`, plan: 'enterprise', adminEmail: `admin-${suffix}@example.com`, adminPassword: 'pw-0123456789' })).tenant_id;
  const workflowsPath = require.resolve('../../workflows');
  const gateway: TemporalGateway = { client: async () => env.client, callDeadlineMs: 5_000, ping: async () => undefined, close: async () => undefined };
  [webhookWorker, mainWorker] = await Promise.all([
    Worker.create({
      connection: env.nativeConnection,
      taskQueue: TASK_QUEUES.webhooks,
      workflowsPath,
      activities: {
        ...createWebhookDeliveryActivities({
          db: pg.db,
          dataEncryptionKey: KEY,
          allowPrivateDestinations: true,
          startNotification: (tenant, notificationId) => startNotificationDelivery(gateway, tenant, notificationId),
          // These tests follow SPEC.md's schedule on the server's skipped clock; an open circuit waits on
          // the wall clock, which that clock leaves behind. The circuit is tested on its own
          // (unit/webhooks/circuit-breaker, api/webhook-capacity).
          breaker: { failureThreshold: 1_000_000 },
        }),
        // The periodic jobs run on the same queue (their schedules start them there).
        ...createWebhookHealthActivities({ db: pg.db, startNotification: (tenant, notificationId) => startNotificationDelivery(gateway, tenant, notificationId) }),
      },
    }),
    Worker.create({
      connection: env.nativeConnection,
      taskQueue: TASK_QUEUES.main,
      workflowsPath,
      activities: createNotificationActivities({ db: pg.db, mailer: null, from: 'test@example.com' }),
    }),
  ]);
  // Both queues served for the whole file: the failing path starts a notification child on `main`.
  workersRunning = Promise.all([webhookWorker.run(), mainWorker.run()]);
});

afterAll(async () => {
  if (workersRunning !== undefined) {
    webhookWorker.shutdown();
    mainWorker.shutdown();
    await workersRunning;
  }
  await env?.teardown();
  await receiver?.close();
  await pg?.stop();
});

interface TestWebhook {
  id: string;
  secret: string;
  path: string;
}

/** Both per-webhook opt-ins beyond SPEC.md's rules. */
const OPTED_IN = { disable_on_gone: true, honour_retry_after: true };

async function createWebhook(status: 'active' | 'paused' = 'active', columns: Record<string, unknown> = {}): Promise<TestWebhook> {
  const id = randomUUID();
  const secret = generateSecret();
  const path = `/hook/${id}`;
  const url = (columns.url as string | undefined) ?? receiver.url(path);
  await pg.db('webhooks').insert({
    id,
    tenant_id: tenantId,
    events: ['*'],
    status,
    ...webhookSecretColumns({ id, url }, secret, KEY),
    ...columns,
    url,
  });
  return { id, secret, path };
}

async function newEvent(data: Record<string, unknown> = { task_id: 't1' }): Promise<string> {
  return pg.db.transaction(async (tx) => (await appendEvent(tx, { tenantId, type: 'task.created', data })).id);
}

/** Runs one delivery to completion with both workers, answering its history (recorded as `historyName` for the replay test). */
async function deliver(webhook: TestWebhook, eventId?: string, historyName?: string, workflowType = 'webhookDeliveryWorkflowV3') {
  const input: WebhookDeliveryInput = { tenantId, webhookId: webhook.id, eventId: eventId ?? (await newEvent()), deliveryId: randomUUID() };
  const run = async () => {
    const handle = await env.client.workflow.start(workflowType, {
      taskQueue: TASK_QUEUES.webhooks,
      workflowId: workflowIds.webhookDelivery(tenantId, input.deliveryId),
      args: [input],
    });
    const result = (await handle.result()) as WebhookDeliveryResult;
    if (historyName) await recordHistory(historyName, handle);
    return { result, history: await handle.fetchHistory() };
  };
  const { result, history } = await run();
  const events = history.events ?? [];
  const ms = (t: { seconds?: unknown; nanos?: number | null } | null | undefined) => Number(t?.seconds ?? 0) * 1000 + (t?.nanos ?? 0) / 1e6;
  return {
    input,
    result,
    workflowTasks: events.filter((e) => e.workflowTaskCompletedEventAttributes).length,
    activityTasks: events.filter((e) => e.activityTaskScheduledEventAttributes).length,
    /** startToFireTimeout of every timer, in order. */
    timers: events.filter((e) => e.timerStartedEventAttributes).map((e) => ms(e.timerStartedEventAttributes!.startToFireTimeout)),
    /** Server time (skipped clock) at which each attempt was recorded (its local activity's marker: the attempt is the workflow's only local activity). */
    attemptTimes: events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity').map((e) => ms(e.eventTime)),
    historyText: JSON.stringify(history),
  };
}

const gaps = (times: number[]) => times.slice(1).map((t, i) => t - times[i]);
const records = (deliveryId: string) => pg.db('webhook_deliveries').where({ delivery_id: deliveryId }).orderBy('attempt');
const webhookRow = (id: string) => pg.db('webhooks').where({ id }).first();
const failingNotifications = () => pg.db('notifications').where({ tenant_id: tenantId, category: 'webhook.failing' }).orderBy('created_at');

describe('webhook delivery workflow', () => {
  it('delivers at once, signed with both schemes, and records the attempt', async () => {
    const webhook = await createWebhook();
    const { result, timers, input, workflowTasks, activityTasks } = await deliver(webhook);
    expect(result).toEqual({ status: 'delivered', attempts: 1 });
    expect(timers).toEqual([]);
    // The attempt is a local activity (issue 19): one workflow task, no activity task.
    expect([workflowTasks, activityTasks]).toEqual([1, 0]);

    const [received] = receiver.on(webhook.path);
    expect(JSON.parse(received.body)).toMatchObject({ id: input.eventId, type: 'task.created', tenant_id: tenantId, api_version: 'v1', data: { task_id: 't1' } });
    expect(received.headers['x-webhook-id']).toBe(input.deliveryId);
    expect(new Webhook(webhook.secret).verify(received.body, received.headers)).toEqual(JSON.parse(received.body));
    expect(
      verifyXSignature({
        secret: webhook.secret,
        signature: received.headers['x-signature'],
        timestamp: received.headers['x-signature-timestamp'],
        body: received.body,
        now: Math.floor(Date.now() / 1000),
      }),
    ).toEqual({ ok: true });

    const [record] = await records(input.deliveryId);
    expect(record).toMatchObject({
      tenant_id: tenantId,
      webhook_id: webhook.id,
      event_id: input.eventId,
      event_type: 'task.created',
      attempt: 1,
      status: 'succeeded',
      status_code: 200,
      response_body: 'ok',
      failure_cause: null,
      next_attempt_at: null,
    });
    expect(record.latency_ms).toBeGreaterThanOrEqual(0);
  });

  it('still runs the workflow type of deliveries started before the local attempt (attempts as activity tasks)', async () => {
    const webhook = await createWebhook();
    receiver.script(webhook.path, [{ status: 500 }, { status: 200 }]);
    const { result, timers, input, workflowTasks, activityTasks } = await deliver(webhook, undefined, 'webhook-delivery-v1-retried', 'webhookDeliveryWorkflow');
    expect(result).toEqual({ status: 'delivered', attempts: 2 });
    expect(timers).toEqual([30 * SECOND]);
    expect([workflowTasks, activityTasks]).toEqual([4, 2]);
    expect((await records(input.deliveryId)).map((r) => [r.attempt, r.status])).toEqual([
      [1, 'failed'],
      [2, 'succeeded'],
    ]);
  });

  it('retries on the exact schedule and stops at the success of attempt 3', async () => {
    const webhook = await createWebhook();
    receiver.script(webhook.path, [{ status: 500, body: 'boom' }, { status: 502 }, { status: 204 }]);
    const { result, timers, attemptTimes, input } = await deliver(webhook, undefined, 'webhook-delivery-retried');

    expect(result).toEqual({ status: 'delivered', attempts: 3 });
    expect(timers).toEqual([30 * SECOND, 5 * MINUTE]);
    expect(attemptTimes).toHaveLength(3);
    // Each attempt starts its delay after the previous attempt (a few ms of real HTTP) ended.
    gaps(attemptTimes).forEach((gap, i) => {
      expect(gap).toBeGreaterThanOrEqual(timers[i]);
      expect(gap).toBeLessThan(timers[i] + 5 * SECOND);
    });
    expect(receiver.on(webhook.path)).toHaveLength(3);
    expect(new Set(receiver.on(webhook.path).map((r) => r.headers['webhook-id']))).toEqual(new Set([input.deliveryId]));
    const rows = await records(input.deliveryId);
    expect(rows.map((r) => [r.attempt, r.status, r.status_code, r.failure_cause, r.response_body])).toEqual([
      [1, 'failed', 500, 'http_status', 'boom'],
      [2, 'failed', 502, 'http_status', ''],
      [3, 'succeeded', 204, null, ''],
    ]);
    expect(rows[0].next_attempt_at.getTime() - rows[0].created_at.getTime()).toBe(30 * SECOND);
    expect(rows[2].next_attempt_at).toBeNull();
    expect((await webhookRow(webhook.id)).status).toBe('active');
  });

  it('by default (SPEC.md) retries a 410 on the schedule, ignores Retry-After and never deactivates the webhook', async () => {
    const webhook = await createWebhook();
    receiver.script(webhook.path, [
      { status: 410 },
      { status: 503, headers: { 'retry-after': '3600' } },
      { status: 410 },
      { status: 429, headers: { 'retry-after': '1' } },
      { status: 410 },
    ]);
    const { result, timers, input } = await deliver(webhook);
    expect(result).toEqual({ status: 'failed', attempts: 5 });
    expect(timers).toEqual([30 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * 60 * MINUTE]);
    expect((await records(input.deliveryId)).map((r) => [r.status_code, r.failure_cause])).toEqual([
      [410, 'http_status'],
      [503, 'http_status'],
      [410, 'http_status'],
      [429, 'http_status'],
      [410, 'http_status'],
    ]);
    // Failing after five failures, still receiving: SPEC.md's "not deactivated automatically".
    expect(await webhookRow(webhook.id)).toMatchObject({ status: 'failing', disabled_reason: null });
  });

  it('honours Retry-After on 429/503 within the bounds of the schedule when the webhook opted in', async () => {
    const webhook = await createWebhook('active', OPTED_IN);
    receiver.script(webhook.path, [
      { status: 503, headers: { 'retry-after': '3600' } }, // before attempt 2: at most 5 min
      { status: 429, headers: { 'retry-after': '600' } }, // before attempt 3: 10 min, within [5 min, 30 min]
      { status: 500, headers: { 'retry-after': '1' } }, // 500: Retry-After ignored, 30 min
      { status: 200 },
    ]);
    const { result, timers } = await deliver(webhook);
    expect(result).toEqual({ status: 'delivered', attempts: 4 });
    expect(timers).toEqual([5 * MINUTE, 10 * MINUTE, 30 * MINUTE]);
  });

  it('after the fifth failure marks the webhook failing and notifies the admins once per episode; a success ends the episode', async () => {
    const webhook = await createWebhook();
    receiver.script(webhook.path, [{ status: 500 }]);
    const before = (await failingNotifications()).length;

    const first = await deliver(webhook, undefined, 'webhook-delivery-failed');
    expect(first.result).toEqual({ status: 'failed', attempts: 5 });
    expect(first.timers).toEqual([30 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * 60 * MINUTE]);
    gaps(first.attemptTimes).forEach((gap, i) => expect(gap - first.timers[i]).toBeLessThan(5 * SECOND));
    expect(receiver.on(webhook.path)).toHaveLength(5);
    const failing = await webhookRow(webhook.id);
    expect(failing.status).toBe('failing');
    expect(failing.failing_since).toBeInstanceOf(Date);

    // A second exhausted delivery in the same episode: no second notification.
    const second = await deliver(webhook);
    expect(second.result).toEqual({ status: 'failed', attempts: 5 });
    const notifications = await failingNotifications();
    expect(notifications.length - before).toBe(1);
    const [notification] = notifications.slice(before);
    expect(notification.recipients).toEqual([expect.stringMatching(/^admin-.*@example\.com$/)]);
    expect(notification.body).toContain(webhook.id);
    // Its workflow (started by the activity after the commit) delivers it; without SMTP: recorded.
    await env.client.workflow.getHandle(workflowIds.notification(tenantId, notification.id)).result();
    expect((await pg.db('notifications').where({ id: notification.id }).first()).status).toBe('recorded');
    expect(await pg.db('outbox_events').where({ tenant_id: tenantId, type: 'webhook.failing' }).whereRaw(`data->>'webhook_id' = ?`, [webhook.id])).toHaveLength(1);
    // Histories carry ids, never the URL, the secret or an address.
    expect(first.historyText).not.toContain('127.0.0.1');
    expect(first.historyText).not.toContain(webhook.secret);

    receiver.script(webhook.path, [{ status: 200 }]);
    expect((await deliver(webhook)).result).toEqual({ status: 'delivered', attempts: 1 });
    const recovered = await webhookRow(webhook.id);
    expect([recovered.status, recovered.failing_since]).toEqual(['active', null]);

    // A new episode notifies again.
    receiver.script(webhook.path, [{ status: 500 }]);
    expect((await deliver(webhook)).result.status).toBe('failed');
    expect((await failingNotifications()).length - before).toBe(2);
  });

  it('the failure notice goes to every active admin and to the owner, each once', async () => {
    const suffix = randomUUID().slice(0, 8);
    const addUser = async (email: string, role: string, status = 'active') =>
      (await pg.db('users').insert({ tenant_id: tenantId, email, password_hash: 'x', role, status }).returning(['id', 'email']))[0] as { id: string; email: string };
    const secondAdmin = await addUser(`second-admin-${suffix}@example.com`, 'admin');
    await addUser(`former-admin-${suffix}@example.com`, 'admin', 'disabled');
    const technician = await addUser(`tech-owner-${suffix}@example.com`, 'technician');
    const admins: string[] = await pg.db('users').where({ tenant_id: tenantId, role: 'admin', status: 'active' }).pluck('email');
    expect(admins).toEqual(expect.arrayContaining([expect.stringMatching(/^admin-/), secondAdmin.email]));

    const recipientsAfterFailure = async (ownerId: string) => {
      const webhook = await createWebhook('active', { owner_user_id: ownerId });
      receiver.script(webhook.path, [{ status: 500 }]);
      expect((await deliver(webhook)).result).toEqual({ status: 'failed', attempts: 5 });
      const notices = (await failingNotifications()).filter((n) => n.body.includes(webhook.id));
      return notices.map((n) => [...n.recipients].sort());
    };
    // An owner who is not an admin: the admins and the owner.
    expect(await recipientsAfterFailure(technician.id)).toEqual([[...admins, technician.email].sort()]);
    // An owner who is an admin: told once, with the other admins.
    expect(await recipientsAfterFailure(secondAdmin.id)).toEqual([[...admins].sort()]);
  });

  it('410 Gone disables the webhook without retrying when the webhook opted in', async () => {
    const webhook = await createWebhook('active', { disable_on_gone: true });
    receiver.script(webhook.path, [{ status: 410 }]);
    const { result, timers, input } = await deliver(webhook);
    expect(result).toEqual({ status: 'gone', attempts: 1 });
    expect(timers).toEqual([]);
    expect(await webhookRow(webhook.id)).toMatchObject({ status: 'disabled', disabled_reason: 'gone' });
    expect((await records(input.deliveryId)).map((r) => [r.status, r.status_code, r.failure_cause, r.next_attempt_at])).toEqual([['failed', 410, 'gone', null]]);
    // A disabled webhook gets no further attempt.
    expect((await deliver(webhook)).result).toEqual({ status: 'skipped', reason: 'webhook_disabled', attempts: 0 });
    expect(receiver.on(webhook.path)).toHaveLength(1);
  });

  it('a URL changed behind the API (SQL) never receives the secret: every attempt sends nothing and records why', async () => {
    const webhook = await createWebhook();
    const elsewhere = `/elsewhere/${webhook.id}`;
    await pg
      .db('webhooks')
      .where({ id: webhook.id })
      .update({ url: receiver.url(elsewhere) });
    const { result, input } = await deliver(webhook);
    expect(result).toEqual({ status: 'failed', attempts: 5 });
    expect(receiver.on(elsewhere)).toHaveLength(0);
    expect(receiver.on(webhook.path)).toHaveLength(0);
    const rows = await records(input.deliveryId);
    expect(rows.map((r) => [r.status, r.status_code, r.failure_cause])).toEqual(Array(5).fill(['failed', null, 'refused_destination']));
    expect(rows[0].error).toBe('destination refused: the signing secret was issued for another url; rotate it');
  });

  it('a connection failure is a failed attempt, and pausing the webhook stops the retries', async () => {
    // Nothing listens on port 1: connection refused.
    const webhook = await createWebhook('active', { url: 'http://127.0.0.1:1/nothing' });
    const eventId = await newEvent();
    const input: WebhookDeliveryInput = { tenantId, webhookId: webhook.id, eventId, deliveryId: randomUUID() };
    const handle = await env.client.workflow.start('webhookDeliveryWorkflowV3', {
      taskQueue: TASK_QUEUES.webhooks,
      workflowId: workflowIds.webhookDelivery(tenantId, input.deliveryId),
      args: [input],
    });
    // Pause during the first 30 s wait (time is not skipped until we wait for the result).
    await until(
      () => records(input.deliveryId),
      (rows) => rows.length > 0,
      "the first attempt's record",
      { intervalMs: 20 },
    );
    await pg.db('webhooks').where({ id: webhook.id }).update({ status: 'paused' });
    const outcome = await handle.result();
    expect(outcome).toEqual({ status: 'skipped', reason: 'webhook_paused', attempts: 1 });
    const [record] = await records(input.deliveryId);
    expect(record).toMatchObject({ attempt: 1, status: 'failed', status_code: null, failure_cause: 'connection_error' });
    expect(record.error).toMatch(/ECONNREFUSED/);
  });
});

describe('per-webhook in-flight limit', () => {
  const acquire = async (webhookId: string, deliveryId: string, max = 2) =>
    (await pg.db.raw('select webhook_acquire_lease(?, ?, ?, ?::interval) as ok', [webhookId, deliveryId, max, '30 seconds'])).rows[0].ok as boolean;

  it('grants at most N leases per webhook, renews a holder, and frees expired ones', async () => {
    const webhook = await createWebhook();
    const other = await createWebhook();
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    expect([await acquire(webhook.id, a), await acquire(webhook.id, b), await acquire(webhook.id, c)]).toEqual([true, true, false]);
    expect(await acquire(other.id, c)).toBe(true); // limits are per webhook
    await pg.db('webhook_delivery_leases').where({ delivery_id: c }).delete();
    expect(await acquire(webhook.id, a)).toBe(true); // a retried attempt renews its own lease
    await pg
      .db('webhook_delivery_leases')
      .where({ delivery_id: a })
      .update({ expires_at: pg.db.raw(`now() - interval '1 second'`) });
    expect(await acquire(webhook.id, c)).toBe(true); // a dead worker's lease expires
  });

  it('an attempt of a webhook at its limit waits for a free slot instead of failing or being counted', async () => {
    const webhook = await createWebhook();
    // Every slot taken by other deliveries for the next 2 s.
    await pg
      .db('webhook_delivery_leases')
      .insert(Array.from({ length: 16 }, () => ({ delivery_id: randomUUID(), webhook_id: webhook.id, expires_at: pg.db.raw(`now() + interval '2 seconds'`) })));
    const started = Date.now();
    const { result, timers, input } = await deliver(webhook);
    expect(result).toEqual({ status: 'delivered', attempts: 1 });
    expect(timers).toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_500);
    expect(receiver.on(webhook.path)).toHaveLength(1);
    expect(await records(input.deliveryId)).toHaveLength(1);
    expect(await pg.db('webhook_delivery_leases').where({ delivery_id: input.deliveryId })).toHaveLength(0); // released
  });
});

describe('periodic webhook jobs', () => {
  const notify = jest.fn(async () => undefined);
  const activities = () => createWebhookHealthActivities({ db: pg.db, startNotification: notify });
  /** Runs an activity in an activity context (heartbeats need one). */
  const inActivity = <R>(fn: () => Promise<R>) => new MockActivityEnvironment().run(fn) as Promise<R>;
  const addRecords = (webhookId: string, statuses: Array<'succeeded' | 'failed'>, createdAt: Date | Knex.Raw = pg.db.raw('now()')) =>
    pg.db('webhook_deliveries').insert(
      statuses.map((status) => ({
        tenant_id: tenantId,
        webhook_id: webhookId,
        delivery_id: randomUUID(),
        event_id: randomUUID(),
        event_type: 'asset.created',
        attempt: 1,
        status,
        status_code: status === 'succeeded' ? 200 : 500,
        created_at: createdAt,
      })),
    );

  it('alerts the owner once the rate has stayed below 50 % for 24 hours (workflow time, skipped), and again after a recovery', async () => {
    const suffix = randomUUID().slice(0, 8);
    const [owner] = await pg
      .db('users')
      .insert({ tenant_id: tenantId, email: `owner-${suffix}@example.com`, password_hash: 'x', role: 'technician' })
      .returning('id');
    const webhook = await createWebhook('active', { owner_user_id: owner.id });
    const healthy = await createWebhook();
    /** A record at the test server's current time (moved by env.sleep), minus `agoMs`. */
    const at = async (agoMs = 60_000) => new Date((await env.currentTimeMs()) - agoMs);
    const HOUR = 60 * MINUTE;
    /**
     * One run of the hourly check. Waited for with describe(), not result(): result() lets the
     * test server skip time while it waits, which would move the clock past the records just written.
     */
    const runCheck = async () => {
      const handle = await env.client.workflow.start('webhookSuccessRateCheckWorkflow', { taskQueue: TASK_QUEUES.webhooks, workflowId: `success-rate-check-${randomUUID()}` });
      const closed = await until(
        () => handle.describe(),
        (d) => d.status.name !== 'RUNNING',
        'the check to close',
        { intervalMs: 20 },
      );
      expect(closed.status.name).toBe('COMPLETED');
    };
    const row = () => pg.db('webhooks').where({ id: webhook.id }).first('low_success_since', 'low_success_alerted_at');
    const alertsOf = () => pg.db('outbox_events').where({ tenant_id: tenantId, type: 'webhook.low_success_rate' }).whereRaw(`data->>'webhook_id' = ?`, [webhook.id]);
    const notificationsOf = () => pg.db('notifications').where({ tenant_id: tenantId, category: 'webhook.low_success_rate' }).whereLike('body', `%${webhook.id}%`);

    await addRecords(webhook.id, ['failed', 'failed', 'failed', 'failed', 'succeeded', 'succeeded'], await at()); // 33 %
    await addRecords(webhook.id, Array(20).fill('succeeded'), await at(25 * HOUR)); // outside the window
    await addRecords(healthy.id, ['failed', 'failed', 'succeeded', 'succeeded', 'succeeded'], await at()); // 60 %

    // First low reading: the episode opens, nobody is told yet.
    const opened = await env.currentTimeMs();
    await runCheck();
    const first = await row();
    expect(first.low_success_alerted_at).toBeNull();
    expect(Math.abs(first.low_success_since.getTime() - opened)).toBeLessThan(60_000);
    expect((await pg.db('webhooks').where({ id: healthy.id }).first()).low_success_since).toBeNull();

    // Twelve hours later, still low: still no alert.
    await env.sleep(12 * HOUR);
    await addRecords(webhook.id, ['failed', 'failed', 'failed'], await at());
    await runCheck();
    expect(await alertsOf()).toHaveLength(0);

    // Twenty-four hours after the first low reading, still low: one alert, to the owner.
    await env.sleep(12 * HOUR + MINUTE);
    await addRecords(webhook.id, ['failed', 'failed', 'failed', 'failed', 'succeeded'], await at());
    await runCheck();
    expect((await alertsOf()).map((e) => e.data)).toEqual([
      { webhook_id: webhook.id, success_rate: expect.any(Number), attempts: expect.any(Number), window_hours: 24, low_since: first.low_success_since.toISOString() },
    ]);
    const notifications = await notificationsOf();
    expect(notifications.map((n) => n.recipients)).toEqual([[`owner-${suffix}@example.com`]]);

    // Still low an hour later: no second alert for the same episode.
    await env.sleep(HOUR);
    await addRecords(webhook.id, ['failed', 'failed', 'failed', 'failed', 'failed'], await at());
    await runCheck();
    expect(await alertsOf()).toHaveLength(1);

    // A recovered reading closes the episode; a new drop must stay low 24 h again before alerting.
    await addRecords(webhook.id, Array(40).fill('succeeded'), await at());
    await runCheck();
    expect(await row()).toEqual({ low_success_since: null, low_success_alerted_at: null });
    await env.sleep(25 * HOUR);
    await addRecords(webhook.id, Array(10).fill('failed'), await at());
    await runCheck();
    expect(await alertsOf()).toHaveLength(1);
    await env.sleep(24 * HOUR);
    await addRecords(webhook.id, Array(10).fill('failed'), await at());
    await runCheck();
    expect(await alertsOf()).toHaveLength(2);
    expect((await notificationsOf()).map((n) => n.recipients)).toEqual([[`owner-${suffix}@example.com`], [`owner-${suffix}@example.com`]]);
  });

  it('the retention sweep deletes delivery records older than 30 days only', async () => {
    const webhook = await createWebhook();
    await addRecords(webhook.id, ['failed', 'succeeded'], pg.db.raw(`now() - interval '31 days'`));
    await addRecords(webhook.id, ['succeeded'], pg.db.raw(`now() - interval '29 days'`));
    const { deleted } = await inActivity(() => activities().sweepWebhookDeliveries({}));
    expect(deleted).toBeGreaterThanOrEqual(2);
    expect(await pg.db('webhook_deliveries').where({ webhook_id: webhook.id })).toHaveLength(1);
    expect(await pg.db('webhook_deliveries').where('created_at', '<', pg.db.raw(`now() - interval '30 days'`))).toHaveLength(0);
  });
});
