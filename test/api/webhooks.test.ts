/**
 * Webhooks over real HTTP against the real stack: the API, the worker from dist/ (its outbox
 * dispatcher and delivery workflows), PostgreSQL, Temporal, and a real loopback receiver.
 */
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { WorkflowNotFoundError } from '@temporalio/client';
import { MockActivityEnvironment } from '@temporalio/testing';
import { Webhook } from 'standardwebhooks';
import { createWebhookHealthActivities } from '../../activities/webhooks/health';
import { appendEvent } from '../../db/outbox';
import { FULL_SERVICE_GRANT, signInternalToken } from '../../domain/auth/tokens';
import { deliveryIdFor } from '../../domain/webhooks/delivery-id';
import { ResourceIdKey, TenantIdKey, WebhookIdKey } from '../../infra/search-attributes';
import { TASK_QUEUES } from '../../infra/task-queues';
import { workflowIds } from '../../infra/workflow-ids';
import { WEBHOOK_SCHEDULES } from '../../orchestration/webhook-schedules';
import { startWebhookDelivery } from '../../orchestration/webhooks';
import { createTenant, createUser, expectError, startTestApi, TestApi, TestTenant } from '../support/api';
import { startWebhookReceiver, WebhookReceiver } from '../support/webhook-receiver';
import { sample } from '../support/prometheus';
import { until } from '../support/until';
import { DEFAULT_PLAN_MODELS } from '../../domain/tenancy/plans';

jest.setTimeout(60_000);

const BASE = '/api/v1/integrations/webhooks';
let api: TestApi;
let tenant: TestTenant;
let other: TestTenant;
let receiver: WebhookReceiver;

beforeAll(async () => {
  api = await startTestApi();
  [tenant, other, receiver] = await Promise.all([createTenant(api), createTenant(api), startWebhookReceiver()]);
});
afterAll(async () => {
  await receiver?.close();
  await api?.close();
});

interface Created {
  id: string;
  secret: string;
  path: string;
  body: any;
}

async function createWebhook(t: TestTenant, fields: Record<string, unknown> = {}): Promise<Created> {
  const path = `/r/${randomUUID()}`;
  const res = await api.request(BASE, { method: 'POST', token: t.token, json: { url: receiver.url(path), events: ['*'], ...fields } });
  expect(res.status).toBe(201);
  return { id: res.body.id, secret: res.body.secret, path, body: res.body };
}

/** The snippet of domain/webhooks/README.md and docs/webhooks.md, as a receiver would run it. */
function receiverVerifies(secret: string, headers: Record<string, string>, rawBody: string): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const timestamp = headers['x-signature-timestamp'];
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const expected = createHmac('sha256', key).update(`${timestamp}.${rawBody}`).digest();
  return headers['x-signature']
    .split(',')
    .map((s) => s.trim().replace(/^sha256=/, ''))
    .some((hex) => hex.length === 64 && timingSafeEqual(Buffer.from(hex, 'hex'), expected));
}

/**
 * The dispatcher marks an event only after starting the delivery of every webhook it matched, so
 * once the event is marked, a webhook with no delivery workflow was not chosen and never will be.
 */
async function expectNotDelivered(t: TestTenant, eventId: string, webhook: Created): Promise<void> {
  await until(() => api.deps.db('outbox_events').where({ id: eventId }).whereNotNull('dispatched_at').first('id'), Boolean, `event ${eventId} to be dispatched`);
  const delivery = (await api.deps.temporal.client()).workflow.getHandle(workflowIds.webhookDelivery(t.tenantId, deliveryIdFor(eventId, webhook.id)));
  await expect(delivery.describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
  expect(receiver.on(webhook.path)).toHaveLength(0);
}

describe('webhook CRUD', () => {
  it('creates with the secret shown once, reads, lists, updates and deletes', async () => {
    const created = await createWebhook(tenant, { events: ['maintenance.*', 'asset.created'], filters: { 'data.asset_id': 'a1' }, description: 'ERP' });
    expect(created.body).toEqual({
      id: expect.any(String),
      url: receiver.url(created.path),
      events: ['maintenance.*', 'asset.created'],
      filters: { 'data.asset_id': 'a1' },
      description: 'ERP',
      status: 'active',
      failing_since: null,
      disabled_reason: null,
      // SPEC.md's failure rules by default; the creator owns the webhook (receives its alerts).
      disable_on_gone: false,
      honour_retry_after: false,
      owner_id: tenant.adminUserId,
      previous_secret_expires_at: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    // Stored encrypted, never in clear.
    const row = await api.deps.db('webhooks').where({ id: created.id }).first();
    expect(row.secret_encrypted).toMatch(/^v1\./);
    expect(JSON.stringify(row)).not.toContain(created.secret.slice(6));

    const got = await api.request(`${BASE}/${created.id}`, { token: tenant.token });
    expect(got.status).toBe(200);
    // The GET adds the endpoint's circuit breaker (closed since creation for a webhook that never failed) and its parked deliveries (none).
    expect(got.body).toEqual({
      ...created.body,
      secret: undefined,
      circuit_breaker: { state: 'closed', since: created.body.created_at, consecutive_failures: 0 },
      parked_deliveries: { count: 0, oldest_parked_at: null, tenant_count: 0, tenant_limit: 10_000 },
    });
    expect(got.body).not.toHaveProperty('secret');

    const list = await api.request(`${BASE}?limit=100`, { token: tenant.token });
    expect(list.body.items.map((w: any) => w.id)).toContain(created.id);
    expect(list.body.items.every((w: any) => !('secret' in w))).toBe(true);

    const updated = await api.request(`${BASE}/${created.id}`, { method: 'PUT', token: tenant.token, json: { events: ['asset.*'], status: 'paused', description: null } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ events: ['asset.*'], status: 'paused', description: null, filters: { 'data.asset_id': 'a1' } });
    const paused = await api.request(`${BASE}?status=paused&limit=100`, { token: tenant.token });
    expect(paused.body.items.map((w: any) => w.id)).toEqual([created.id]);

    const actions = await api.deps.db('audit_log').where({ tenant_id: tenant.tenantId, resource_id: created.id }).orderBy('seq').pluck('action');
    expect(actions).toEqual(['webhook.created', 'webhook.updated']);

    expect((await api.request(`${BASE}/${created.id}`, { method: 'DELETE', token: tenant.token })).status).toBe(204);
    expectError(await api.request(`${BASE}/${created.id}`, { token: tenant.token }), 404, 'NOT_FOUND');
  });

  it('refuses bad URLs, event patterns, filters and statuses with 422', async () => {
    const post = (json: unknown) => api.request(BASE, { method: 'POST', token: tenant.token, json });
    const url = receiver.url('/x');
    for (const [json, field] of [
      [{ url: 'ftp://example.com/x', events: ['*'] }, 'body.url'],
      [{ url: 'not a url', events: ['*'] }, 'body.url'],
      [{ url: 'https://user:pw@example.com/x', events: ['*'] }, 'body.url'],
      [{ url, events: ['maint*'] }, 'body.events.0'],
      [{ url, events: ['*.created'] }, 'body.events.0'],
      [{ url, events: [] }, 'body.events'],
      [{ url, events: ['asset.created'], filters: { asset_id: 'a1' } }, 'body.filters'],
      [{ url, events: ['asset.created'], filters: { 'data.asset_id': { nested: true } } }, 'body.filters'],
      [{ url, events: ['asset.created'], status: 'failing' }, 'body.status'],
      [{ url, events: ['asset.created'], secret: 'whsec_mine' }, 'body.secret'],
    ] as const) {
      const res = await post(json);
      expectError(res, 422, 'VALIDATION_ERROR');
      expect(res.body.fields.map((f: any) => f.field)).toContain(field);
    }
  });

  it('counts webhooks against the plan', async () => {
    const free = await createTenant(api, 'free');
    await createWebhook(free);
    await createWebhook(free);
    const third = await api.request(BASE, { method: 'POST', token: free.token, json: { url: receiver.url('/x'), events: ['*'] } });
    expectError(third, 403, 'PLAN_LIMIT_REACHED');
    expect(third.body).toMatchObject({ resource: 'webhooks', limit: 2 });
  });

  it('needs view_webhooks to read and manage_webhooks to write', async () => {
    const viewer = await createUser(api, tenant.tenantId, 'viewer');
    expectError(await api.request(BASE, { token: viewer.token }), 403, 'FORBIDDEN');
    const manager = await createUser(api, tenant.tenantId, 'manager');
    expect((await api.request(BASE, { token: manager.token })).status).toBe(200);
  });
});

describe('owner and delivery policy', () => {
  it('defaults to SPEC.md (both opt-ins off), takes the opt-ins, and changes the owner only to an active user of the tenant', async () => {
    const created = await createWebhook(tenant, { events: ['asset.*'], honour_retry_after: true });
    expect(created.body).toMatchObject({ disable_on_gone: false, honour_retry_after: true, owner_id: tenant.adminUserId });
    const manager = await createUser(api, tenant.tenantId, 'manager');
    const moved = await api.request(`${BASE}/${created.id}`, { method: 'PUT', token: tenant.token, json: { owner_id: manager.userId, disable_on_gone: true } });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ owner_id: manager.userId, disable_on_gone: true, honour_retry_after: true });
    expect(await api.deps.db('webhooks').where({ id: created.id }).first('owner_user_id', 'disable_on_gone')).toEqual({ owner_user_id: manager.userId, disable_on_gone: true });

    // Another tenant's user, a user that does not exist, a malformed id: refused, nothing changed.
    const stranger = await createUser(api, other.tenantId, 'admin');
    for (const owner_id of [stranger.userId, '00000000-0000-4000-8000-000000000000']) {
      const res = await api.request(`${BASE}/${created.id}`, { method: 'PUT', token: tenant.token, json: { owner_id } });
      expectError(res, 422, 'VALIDATION_ERROR');
      expect(res.body.fields).toEqual([expect.objectContaining({ field: 'body.owner_id' })]);
    }
    expectError(await api.request(`${BASE}/${created.id}`, { method: 'PUT', token: tenant.token, json: { owner_id: 'nobody' } }), 422, 'VALIDATION_ERROR');
    expectError(
      await api.request(BASE, { method: 'POST', token: tenant.token, json: { url: receiver.url('/x'), events: ['*'], owner_id: stranger.userId } }),
      422,
      'VALIDATION_ERROR',
    );
    expect((await api.request(`${BASE}/${created.id}`, { token: tenant.token })).body.owner_id).toBe(manager.userId);

    // The owner's account deleted: the webhook keeps working, unowned (its alerts go to the admins).
    await api.deps.db('users').where({ id: manager.userId }).delete();
    expect((await api.request(`${BASE}/${created.id}`, { token: tenant.token })).body.owner_id).toBeNull();
  });

  it('by default a 410 is an ordinary failure: retried, and the webhook is not deactivated', async () => {
    const webhook = await createWebhook(tenant, { events: ['asset.created'] });
    receiver.script(webhook.path, [{ status: 410 }, { status: 200 }]);
    const asset = await api.request('/api/v1/assets', { method: 'POST', token: tenant.token, json: { name: 'Gone pump', type: 'pump' } });
    expect(asset.status).toBe(201);
    await receiver.waitFor(() => receiver.on(webhook.path).length === 1, 20_000, 'the first attempt');
    const records = await until(
      async () => (await api.request(`${BASE}/${webhook.id}/deliveries`, { token: tenant.token })).body.items as any[],
      (items) => items.length > 0,
      "the first attempt's record",
    );
    expect(records).toEqual([expect.objectContaining({ attempt: 1, status: 'failed', status_code: 410, failure_cause: 'http_status', next_attempt_at: expect.any(String) })]);
    const nextAt = Date.parse(records[0].next_attempt_at) - Date.parse(records[0].created_at);
    expect(Math.abs(nextAt - 30_000)).toBeLessThan(1_000);
    expect((await api.request(`${BASE}/${webhook.id}`, { token: tenant.token })).body).toMatchObject({ status: 'active', disabled_reason: null });
  });
});

describe('test call', () => {
  /** `webhook_tests_total{result}` of the API's /metrics (0 before the first such call). */
  const testsCounted = (metrics: { text: string }, result: string) => sample(metrics.text, 'webhook_tests_total', { result }) ?? 0;

  it('POSTs sample_payload itself (its JSON, byte for byte), signed (both schemes verify), marked by a header, with no audit or delivery record, counted in /metrics', async () => {
    const webhook = await createWebhook(tenant);
    receiver.script(webhook.path, [{ status: 202, body: 'accepted' }]);
    // Key order as the caller wrote it, a type that reads like a real event's: the receiver gets exactly this.
    const sample = { type: 'task.created', task_id: 't-42', nested: { b: 2, a: 1 }, list: [1, 'two', null, true], text: 'é ü "q" \\' };
    const auditBefore = await api.deps.db('audit_log').where({ tenant_id: tenant.tenantId, resource_id: webhook.id }).select('action');
    const countedBefore = testsCounted(await api.request('/metrics'), 'success');

    const res = await api.request(`${BASE}/${webhook.id}/test`, { method: 'POST', token: tenant.token, json: { sample_payload: sample } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status_code: 202, response_body: 'accepted', latency_ms: expect.any(Number), success: true });

    const [received] = receiver.on(webhook.path);
    expect(received.method).toBe('POST');
    expect(received.headers['content-type']).toBe('application/json');
    expect(received.body).toBe(JSON.stringify(sample));
    expect(received.headers['x-webhook-test']).toBe('true');
    const id = received.headers['webhook-id'];
    expect(id).toMatch(/^test_[0-9a-f-]{36}$/);
    expect(received.headers['x-webhook-id']).toBe(id);
    expect(new Webhook(webhook.secret).verify(received.body, received.headers)).toEqual(sample);
    expect(receiverVerifies(webhook.secret, received.headers, received.body)).toBe(true);
    expect(receiverVerifies(webhook.secret, received.headers, received.body.replace('t-42', 't-43'))).toBe(false);

    // An operator's view of test calls is the log and the counter, not the tenant's audit trail.
    expect(await api.deps.db('audit_log').where({ tenant_id: tenant.tenantId, resource_id: webhook.id }).select('action')).toEqual(auditBefore);
    expect(await api.deps.db('audit_log').where({ tenant_id: tenant.tenantId }).whereLike('action', 'webhook.test%')).toHaveLength(0);
    expect(await api.deps.db('webhook_deliveries').where({ webhook_id: webhook.id })).toHaveLength(0);
    expect(testsCounted(await api.request('/metrics'), 'success')).toBe(countedBefore + 1);
  });

  it('reports a failing destination with the first 1 KB of its answer', async () => {
    const webhook = await createWebhook(tenant);
    receiver.script(webhook.path, [{ status: 500, body: 'é'.repeat(700) }]);
    const countedBefore = testsCounted(await api.request('/metrics'), 'http_error');
    const res = await api.request(`${BASE}/${webhook.id}/test`, { method: 'POST', token: tenant.token, json: { sample_payload: {} } });
    expect(res.body).toMatchObject({ status_code: 500, success: false });
    expect(receiver.on(webhook.path).map((r) => r.body)).toEqual(['{}']);
    expect(testsCounted(await api.request('/metrics'), 'http_error')).toBe(countedBefore + 1);
    expect(res.body.response_body).toBe('é'.repeat(512)); // 1024 bytes of 2-byte characters
    expectError(await api.request(`${BASE}/${webhook.id}/test`, { method: 'POST', token: tenant.token, json: {} }), 422, 'VALIDATION_ERROR');
  });
});

describe('secret rotation', () => {
  it('answers a new secret once; both secrets sign for 24 h, the new one first', async () => {
    const webhook = await createWebhook(tenant);
    const rotated = await api.request(`${BASE}/${webhook.id}/rotate-secret`, { method: 'POST', token: tenant.token });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(webhook.secret);
    const expires = Date.parse(rotated.body.previous_secret_expires_at) - Date.now();
    expect(expires).toBeGreaterThan(24 * 3600_000 - 60_000);
    expect(expires).toBeLessThanOrEqual(24 * 3600_000);
    expect((await api.request(`${BASE}/${webhook.id}`, { token: tenant.token })).body).not.toHaveProperty('secret');

    await api.request(`${BASE}/${webhook.id}/test`, { method: 'POST', token: tenant.token, json: { sample_payload: { n: 1 } } });
    const [received] = receiver.on(webhook.path);
    expect(received.headers['x-signature'].split(', ')).toHaveLength(2);
    expect(received.headers['webhook-signature'].split(' ')).toHaveLength(2);
    for (const secret of [rotated.body.secret, webhook.secret]) {
      expect(new Webhook(secret).verify(received.body, received.headers)).toEqual({ n: 1 });
      expect(receiverVerifies(secret, received.headers, received.body)).toBe(true);
    }

    // After the 24 h, only the new secret signs.
    await api.deps
      .db('webhooks')
      .where({ id: webhook.id })
      .update({ previous_secret_expires_at: new Date(Date.now() - 1000) });
    await api.request(`${BASE}/${webhook.id}/test`, { method: 'POST', token: tenant.token, json: { sample_payload: { n: 2 } } });
    const second = receiver.on(webhook.path)[1];
    expect(second.headers['webhook-signature'].split(' ')).toHaveLength(1);
    expect(() => new Webhook(webhook.secret).verify(second.body, second.headers)).toThrow();
    expect(new Webhook(rotated.body.secret).verify(second.body, second.headers)).toEqual({ n: 2 });
  });
});

describe('a new URL and the signing secret', () => {
  const row = (id: string) => api.deps.db('webhooks').where({ id }).first();

  it('refuses a new url without rotate_secret (422 CREDENTIAL_REQUIRED) and changes nothing', async () => {
    const webhook = await createWebhook(tenant);
    const before = await row(webhook.id);
    expect(before.secret_destination).toEqual({ url: receiver.url(webhook.path) });
    const res = await api.request(`${BASE}/${webhook.id}`, { method: 'PUT', token: tenant.token, json: { url: receiver.url(`/r/${randomUUID()}`), description: 'moved' } });
    expectError(res, 422, 'CREDENTIAL_REQUIRED');
    expect(res.body).toMatchObject({ field: 'body.rotate_secret', moved_fields: ['url'] });
    expect(await row(webhook.id)).toEqual(before);
    // The same url, or rotate_secret false, moves nothing / gives nothing.
    expect((await api.request(`${BASE}/${webhook.id}`, { method: 'PUT', token: tenant.token, json: { url: receiver.url(webhook.path) } })).status).toBe(200);
    const falsy = await api.request(`${BASE}/${webhook.id}`, { method: 'PUT', token: tenant.token, json: { url: receiver.url('/r/other'), rotate_secret: false } });
    expectError(falsy, 422, 'CREDENTIAL_REQUIRED');
  });

  it('with rotate_secret: answers a new secret once, bound to the new url; the old secret stops signing at once', async () => {
    const webhook = await createWebhook(tenant);
    const path = `/r/${randomUUID()}`;
    const res = await api.request(`${BASE}/${webhook.id}`, { method: 'PUT', token: tenant.token, json: { url: receiver.url(path), rotate_secret: true } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ url: receiver.url(path), previous_secret_expires_at: null, secret: expect.stringMatching(/^whsec_/) });
    expect(res.body.secret).not.toBe(webhook.secret);
    const after = await row(webhook.id);
    expect(after.secret_destination).toEqual({ url: receiver.url(path) });
    expect(after.previous_secret_encrypted).toBeNull();
    expect((await api.request(`${BASE}/${webhook.id}`, { token: tenant.token })).body).not.toHaveProperty('secret');

    await api.request(`${BASE}/${webhook.id}/test`, { method: 'POST', token: tenant.token, json: { sample_payload: { n: 1 } } });
    const [received] = receiver.on(path);
    expect(received.headers['webhook-signature'].split(' ')).toHaveLength(1);
    expect(new Webhook(res.body.secret).verify(received.body, received.headers)).toEqual({ n: 1 });
    expect(() => new Webhook(webhook.secret).verify(received.body, received.headers)).toThrow();
  });

  it('a url changed behind the API (SQL) gets nothing signed: the test call sends nothing and says why', async () => {
    const webhook = await createWebhook(tenant);
    const elsewhere = `/r/${randomUUID()}`;
    await api.deps
      .db('webhooks')
      .where({ id: webhook.id })
      .update({ url: receiver.url(elsewhere) });
    const res = await api.request(`${BASE}/${webhook.id}/test`, { method: 'POST', token: tenant.token, json: { sample_payload: { n: 1 } } });
    expect(res.body).toEqual({
      status_code: null,
      response_body: '',
      latency_ms: 0,
      success: false,
      error: 'refused_destination: the signing secret was issued for another url; rotate it',
    });
    expect(receiver.on(elsewhere)).toHaveLength(0);
    // Rotating binds a new secret to the url it now has; the previous one does not sign beside it.
    const rotated = await api.request(`${BASE}/${webhook.id}/rotate-secret`, { method: 'POST', token: tenant.token });
    expect(rotated.body.previous_secret_expires_at).toBeNull();
    await api.request(`${BASE}/${webhook.id}/test`, { method: 'POST', token: tenant.token, json: { sample_payload: { n: 2 } } });
    const [received] = receiver.on(elsewhere);
    expect(received.headers['webhook-signature'].split(' ')).toHaveLength(1);
    expect(new Webhook(rotated.body.secret).verify(received.body, received.headers)).toEqual({ n: 2 });
  });
});

describe('events reaching webhooks', () => {
  it('an asset created through the API reaches the webhook signed, and is logged as a delivery', async () => {
    const webhook = await createWebhook(tenant, { events: ['asset.created'] });
    const unrelated = await createWebhook(tenant, { events: ['maintenance.*'] });
    const asset = await api.request('/api/v1/assets', { method: 'POST', token: tenant.token, json: { name: 'Pump 7', type: 'pump' } });
    expect(asset.status).toBe(201);

    await receiver.waitFor(() => receiver.on(webhook.path).length === 1, 20_000, 'the asset.created delivery');
    const [received] = receiver.on(webhook.path);
    const payload = new Webhook(webhook.secret).verify(received.body, received.headers) as any;
    expect(payload).toEqual({
      id: expect.any(String),
      type: 'asset.created',
      tenant_id: tenant.tenantId,
      occurred_at: expect.any(String),
      api_version: 'v1',
      data: { asset_id: asset.body.id, type: 'pump', parent_id: null },
    });
    expect(receiverVerifies(webhook.secret, received.headers, received.body)).toBe(true);
    expect(received.headers['webhook-id']).toBe(deliveryIdFor(payload.id, webhook.id));

    // The record is written right after the receiver answered.
    const deliveries = await until(
      () => api.request(`${BASE}/${webhook.id}/deliveries`, { token: tenant.token }),
      (res) => res.body.total === 1,
      'the delivery record',
    );
    expect(deliveries.body).toMatchObject({ total: 1, skip: 0, limit: 20 });
    expect(deliveries.body.items[0]).toMatchObject({
      delivery_id: received.headers['webhook-id'],
      webhook_id: webhook.id,
      event_id: payload.id,
      event_type: 'asset.created',
      payload,
      attempt: 1,
      status: 'succeeded',
      status_code: 200,
      response_body: 'ok',
      next_attempt_at: null,
      redelivery_of: null,
    });
    expect(receiver.on(unrelated.path)).toHaveLength(0);

    // The workflow is findable by tenant, delivery and webhook, on the webhook queue.
    const description = await (await api.deps.temporal.client()).workflow.getHandle(workflowIds.webhookDelivery(tenant.tenantId, received.headers['webhook-id'])).describe();
    expect(description.taskQueue).toBe(TASK_QUEUES.webhooks);
    expect([description.typedSearchAttributes.get(TenantIdKey), description.typedSearchAttributes.get(ResourceIdKey), description.typedSearchAttributes.get(WebhookIdKey)]).toEqual(
      [tenant.tenantId, received.headers['webhook-id'], webhook.id],
    );
  });

  it('keeps each delivery record with its payload for 30 days, after its outbox row and its webhook are gone, until the sweep', async () => {
    const webhook = await createWebhook(tenant, { events: ['asset.created'] });
    const asset = await api.request('/api/v1/assets', { method: 'POST', token: tenant.token, json: { name: 'Pump 9', type: 'pump' } });
    await receiver.waitFor(() => receiver.on(webhook.path).length === 1, 20_000, 'the asset.created delivery');
    const sent = JSON.parse(receiver.on(webhook.path)[0]!.body);
    expect(sent.data).toMatchObject({ asset_id: asset.body.id });
    const deliveries = () => api.request(`${BASE}/${webhook.id}/deliveries`, { token: tenant.token });
    await until(deliveries, (res) => res.body.total === 1, 'the delivery record');

    // Outbox retention may delete the event after a day: the record still shows what was sent.
    expect(await api.deps.db('outbox_events').where({ tenant_id: tenant.tenantId, id: sent.id }).delete()).toBe(1);
    const afterOutbox = await deliveries();
    expect(afterOutbox.body.items).toEqual([expect.objectContaining({ event_id: sent.id, payload: sent, status: 'succeeded' })]);

    // Deleting the webhook leaves its log, still readable by its tenant only.
    expect((await api.request(`${BASE}/${webhook.id}`, { method: 'DELETE', token: tenant.token })).status).toBe(204);
    expectError(await api.request(`${BASE}/${webhook.id}`, { token: tenant.token }), 404, 'NOT_FOUND');
    const rows = () => api.deps.db('webhook_deliveries').where({ webhook_id: webhook.id }).select('payload', 'created_at');
    expect(await rows()).toEqual([expect.objectContaining({ payload: sent })]);
    const afterDelete = await deliveries();
    expect(afterDelete.status).toBe(200);
    expect(afterDelete.body.items).toEqual([expect.objectContaining({ webhook_id: webhook.id, payload: sent })]);
    const intruder = await createTenant(api);
    expectError(await api.request(`${BASE}/${webhook.id}/deliveries`, { token: intruder.token }), 404, 'NOT_FOUND');

    // The sweep keeps it while younger than 30 days, and removes it after.
    const sweep = () =>
      new MockActivityEnvironment().run(() => createWebhookHealthActivities({ db: api.deps.db, startNotification: async () => undefined }).sweepWebhookDeliveries({}));
    await sweep();
    expect(await rows()).toHaveLength(1);
    await api.deps
      .db('webhook_deliveries')
      .where({ webhook_id: webhook.id })
      .update({ created_at: api.deps.db.raw(`now() - interval '30 days 1 minute'`) });
    await sweep();
    expect(await rows()).toEqual([]);
    expectError(await deliveries(), 404, 'NOT_FOUND');
  });

  it('a task created by a plan reaches webhooks subscribed to task.created (SPEC.md) and to its former name', async () => {
    const spec = await createWebhook(tenant, { events: ['task.created'] });
    const former = await createWebhook(tenant, { events: ['maintenance.task.created'] });
    const prefix = await createWebhook(tenant, { events: ['maintenance.*'] });
    const completedOnly = await createWebhook(tenant, { events: ['task.completed'] });
    const asset = await api.request('/api/v1/assets', { method: 'POST', token: tenant.token, json: { name: 'Pump 9', type: 'pump' } });
    const start = new Date(Date.now() + 48 * 3_600_000).toISOString();
    const plan = await api.request('/api/v1/maintenance/plans', {
      method: 'POST',
      token: tenant.token,
      json: { name: 'Grease', asset_ids: [asset.body.id], trigger: { type: 'calendar', every: 1, unit: 'weeks', start_at: start, mode: 'fixed' } },
    });
    expect(plan.status).toBe(201);
    const executed = await api.request(`/api/v1/maintenance/plans/${plan.body.id}/execute`, { method: 'POST', token: tenant.token, json: {} });
    expect(executed.status).toBe(200);

    for (const hook of [spec, former, prefix]) {
      await receiver.waitFor(() => receiver.on(hook.path).some((r) => JSON.parse(r.body).type === 'task.created'), 20_000, `task.created at ${hook.path}`);
      const payload = new Webhook(hook.secret).verify(
        receiver.on(hook.path).find((r) => JSON.parse(r.body).type === 'task.created')!.body,
        receiver.on(hook.path)[0].headers,
      ) as any;
      expect(payload).toMatchObject({ type: 'task.created', data: { task_id: executed.body.task_id, plan_id: plan.body.id } });
    }
    const taskEvent = await api.deps.db('outbox_events').where({ tenant_id: tenant.tenantId }).whereRaw(`data->>'task_id' = ?`, [executed.body.task_id]).first('id');
    await expectNotDelivered(tenant, taskEvent.id, completedOnly);
  });

  it('an internal event with filters reaches only the webhooks whose filters hold', async () => {
    const matching = await createWebhook(tenant, { events: ['machine.*'], filters: { 'data.line': ['L1', 'L2'] } });
    const filteredOut = await createWebhook(tenant, { events: ['machine.*'], filters: { 'data.line': 'L9' } });
    const token = signInternalToken('tests', api.deps.config.secrets.internalJwt, FULL_SERVICE_GRANT);
    const event = await api.request('/internal/events', {
      method: 'POST',
      token,
      json: { tenant_id: tenant.tenantId, type: 'machine.vibration.threshold_exceeded', data: { line: 'L2' } },
    });
    expect(event.status).toBe(202);
    await receiver.waitFor(() => receiver.on(matching.path).length === 1, 20_000, 'the internal event');
    expect(JSON.parse(receiver.on(matching.path)[0].body)).toMatchObject({ id: event.body.id, type: 'machine.vibration.threshold_exceeded', data: { line: 'L2' } });
    await expectNotDelivered(tenant, event.body.id, filteredOut);
    // Another tenant's webhooks never see it.
    const foreign = await createWebhook(other, { events: ['*'] });
    expect(receiver.on(foreign.path)).toHaveLength(0);
  });

  it('a dispatch redone after a crash (workflow started, event not marked) starts nothing twice', async () => {
    const webhook = await createWebhook(tenant, { events: ['asset.deleted'] });
    // The event as a crashed dispatcher leaves it: its delivery started, the row not marked.
    const eventId = await api.deps.db.transaction(async (tx) => {
      const { id } = await appendEvent(tx, { tenantId: tenant.tenantId, type: 'asset.deleted', data: { asset_id: 'a-crash' } });
      await tx('outbox_events').where({ id }).update({ dispatched_at: tx.fn.now() });
      return id;
    });
    const deliveryId = deliveryIdFor(eventId, webhook.id);
    const client = await api.deps.temporal.client();
    expect(await startWebhookDelivery(client, { tenantId: tenant.tenantId, webhookId: webhook.id, eventId, deliveryId })).toBe('started');
    await receiver.waitFor(() => receiver.on(webhook.path).length === 1, 20_000, 'the first delivery');
    await api.deps.db('outbox_events').where({ id: eventId }).update({ dispatched_at: null });

    // The dispatcher (fallback poll) redoes the batch: same delivery id, refused by Temporal.
    await until(() => api.deps.db('outbox_events').where({ id: eventId }).whereNotNull('dispatched_at').first('id'), Boolean, 'the redone dispatch');
    expect(await startWebhookDelivery(client, { tenantId: tenant.tenantId, webhookId: webhook.id, eventId, deliveryId })).toBe('already_started');
    // The one delivery workflow has finished, so nothing else can still be on its way.
    await client.workflow.getHandle(workflowIds.webhookDelivery(tenant.tenantId, deliveryId)).result();
    expect(receiver.on(webhook.path)).toHaveLength(1);
  });
});

describe('delivery log', () => {
  /** Known records, written as the engine writes them. */
  async function seed(webhookId: string, rows: Array<{ status: 'succeeded' | 'failed'; code: number | null; cause?: string; latency?: number; daysAgo?: number; type?: string }>) {
    await api.deps.db('webhook_deliveries').insert(
      rows.map((r, i) => ({
        tenant_id: tenant.tenantId,
        webhook_id: webhookId,
        delivery_id: randomUUID(),
        event_id: randomUUID(),
        event_type: r.type ?? 'asset.created',
        attempt: 1,
        status: r.status,
        status_code: r.code,
        latency_ms: r.latency ?? null,
        failure_cause: r.status === 'failed' ? (r.cause ?? 'http_status') : null,
        created_at: api.deps.db.raw(`date_trunc('day', now() at time zone 'utc') at time zone 'utc' - make_interval(days => ?) + make_interval(mins => ?)`, [r.daysAgo ?? 0, i]),
      })),
    );
  }

  it('pages and filters by status and event type', async () => {
    const webhook = await createWebhook(tenant);
    await seed(webhook.id, [
      { status: 'succeeded', code: 200 },
      { status: 'failed', code: 500 },
      { status: 'failed', code: 503, type: 'task.created' },
      { status: 'succeeded', code: 204, type: 'task.created' },
      { status: 'succeeded', code: 200 },
    ]);
    const page = async (query: string) => (await api.request(`${BASE}/${webhook.id}/deliveries?${query}`, { token: tenant.token })).body;
    const first = await page('limit=2');
    expect(first).toMatchObject({ total: 5, skip: 0, limit: 2 });
    expect(first.items.map((d: any) => d.status_code)).toEqual([200, 204]); // newest first
    expect((await page('limit=2&skip=4')).items.map((d: any) => d.status_code)).toEqual([200]);
    expect((await page('status=failed')).items.map((d: any) => d.status_code)).toEqual([503, 500]);
    expect((await page('event_type=task.created')).items.map((d: any) => d.status_code)).toEqual([204, 503]);
    expect((await page('event_type=task.created&status=succeeded')).total).toBe(1);
    expect((await page('limit=2')).items[0].payload).toBeNull(); // seeded records have no stored payload
    expectError(await api.request(`${BASE}/${webhook.id}/deliveries?limit=101`, { token: tenant.token }), 422, 'VALIDATION_ERROR');
    expectError(await api.request(`${BASE}/${webhook.id}/deliveries?status=pending`, { token: tenant.token }), 422, 'VALIDATION_ERROR');
  });

  it('analytics: 7 days with zeros, success rate, average latency and top 5 error codes, in SQL', async () => {
    const webhook = await createWebhook(tenant);
    await seed(webhook.id, [
      { status: 'succeeded', code: 200, latency: 100 },
      { status: 'succeeded', code: 200, latency: 300 },
      { status: 'failed', code: 500, latency: 50 },
      { status: 'failed', code: 500, latency: 50, daysAgo: 2 },
      { status: 'failed', code: 503, latency: 100, daysAgo: 2 },
      { status: 'failed', code: null, cause: 'timeout', latency: 10_000, daysAgo: 6 },
      { status: 'failed', code: 404, latency: 20, daysAgo: 6 },
      { status: 'failed', code: 410, cause: 'gone', latency: 20, daysAgo: 6 },
      { status: 'failed', code: 429, latency: 20, daysAgo: 6 },
      { status: 'succeeded', code: 200, latency: 100, daysAgo: 6 },
      { status: 'failed', code: 500, latency: 1, daysAgo: 7 }, // outside the 7 days
    ]);
    const res = await api.request(`${BASE}/${webhook.id}/analytics`, { token: tenant.token });
    expect(res.status).toBe(200);
    const day = (ago: number) => new Date(Date.now() - ago * 86_400_000).toISOString().slice(0, 10);
    expect(res.body).toEqual({
      window_days: 7,
      total_deliveries: 10,
      succeeded: 3,
      failed: 7,
      success_rate_percent: 30,
      average_latency_ms: 1076, // (100+300+50+50+100+10000+20+20+20+100) / 10
      deliveries_per_day: [
        { date: day(6), total: 5, succeeded: 1, failed: 4 },
        { date: day(5), total: 0, succeeded: 0, failed: 0 },
        { date: day(4), total: 0, succeeded: 0, failed: 0 },
        { date: day(3), total: 0, succeeded: 0, failed: 0 },
        { date: day(2), total: 2, succeeded: 0, failed: 2 },
        { date: day(1), total: 0, succeeded: 0, failed: 0 },
        { date: day(0), total: 3, succeeded: 2, failed: 1 },
      ],
      top_error_codes: [
        { code: '500', count: 2 },
        { code: '404', count: 1 },
        { code: '410', count: 1 },
        { code: '429', count: 1 },
        { code: '503', count: 1 },
      ],
    });
    const empty = await createWebhook(tenant);
    const none = await api.request(`${BASE}/${empty.id}/analytics`, { token: tenant.token });
    expect(none.body).toMatchObject({ total_deliveries: 0, success_rate_percent: null, average_latency_ms: null, top_error_codes: [] });
    expect(none.body.deliveries_per_day).toHaveLength(7);
  });

  it('redeliver sends the same event again as a new delivery', async () => {
    const webhook = await createWebhook(tenant, { events: ['asset.created'] });
    await api.request('/api/v1/assets', { method: 'POST', token: tenant.token, json: { name: 'Fan', type: 'fan' } });
    await receiver.waitFor(() => receiver.on(webhook.path).length === 1, 20_000, 'the delivery');
    const first = receiver.on(webhook.path)[0];
    const originalId = first.headers['webhook-id'];
    await waitForRecords(webhook.id, 1);

    const res = await api.request(`${BASE}/${webhook.id}/deliveries/${originalId}/redeliver`, { method: 'POST', token: tenant.token });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ delivery_id: expect.any(String), redelivery_of: originalId, event_id: JSON.parse(first.body).id });
    await receiver.waitFor(() => receiver.on(webhook.path).length === 2, 20_000, 'the redelivery');
    const again = receiver.on(webhook.path)[1];
    expect(again.headers['webhook-id']).toBe(res.body.delivery_id);
    expect(again.body).toBe(first.body); // byte for byte the same payload
    await waitForRecords(webhook.id, 2);
    const records = (await api.request(`${BASE}/${webhook.id}/deliveries`, { token: tenant.token })).body.items;
    expect(records[0]).toMatchObject({ delivery_id: res.body.delivery_id, redelivery_of: originalId, status: 'succeeded' });
    expectError(await api.request(`${BASE}/${webhook.id}/deliveries/${randomUUID()}/redeliver`, { method: 'POST', token: tenant.token }), 404, 'NOT_FOUND');

    await api.request(`${BASE}/${webhook.id}`, { method: 'PUT', token: tenant.token, json: { status: 'paused' } });
    expectError(await api.request(`${BASE}/${webhook.id}/deliveries/${originalId}/redeliver`, { method: 'POST', token: tenant.token }), 409, 'INVALID_STATE');
  });

  it('recover resends the deliveries that failed for good since a time, once', async () => {
    const webhook = await createWebhook(tenant);
    // Two stored events (already dispatched) whose deliveries failed: one for good, one still retrying.
    const [gaveUp, retrying] = await api.deps.db.transaction(async (tx) => {
      const ids: string[] = [];
      for (const n of [1, 2]) {
        const { id } = await appendEvent(tx, { tenantId: tenant.tenantId, type: 'asset.created', data: { asset_id: `rec-${n}` } });
        await tx('outbox_events').where({ id }).update({ dispatched_at: tx.fn.now() });
        ids.push(id);
      }
      return ids;
    });
    const failedDelivery = randomUUID();
    await api.deps.db('webhook_deliveries').insert([
      ...[1, 2, 3, 4, 5].map((attempt) => ({
        tenant_id: tenant.tenantId,
        webhook_id: webhook.id,
        delivery_id: failedDelivery,
        event_id: gaveUp,
        event_type: 'asset.created',
        attempt,
        status: 'failed',
        status_code: 500,
        failure_cause: 'http_status',
        next_attempt_at: null,
      })),
      {
        tenant_id: tenant.tenantId,
        webhook_id: webhook.id,
        delivery_id: randomUUID(),
        event_id: retrying,
        event_type: 'asset.created',
        attempt: 1,
        status: 'failed',
        status_code: 500,
        failure_cause: 'http_status',
        next_attempt_at: new Date(Date.now() + 30_000),
      },
    ]);
    const since = new Date(Date.now() - 3600_000).toISOString();
    expectError(await api.request(`${BASE}/${webhook.id}/recover`, { method: 'POST', token: tenant.token }), 422, 'VALIDATION_ERROR');

    const res = await api.request(`${BASE}/${webhook.id}/recover?since=${encodeURIComponent(since)}`, { method: 'POST', token: tenant.token });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ since, recovered: 1, truncated: false, deliveries: [{ delivery_id: expect.any(String), redelivery_of: failedDelivery, event_id: gaveUp }] });
    await receiver.waitFor(() => receiver.on(webhook.path).length === 1, 20_000, 'the recovered delivery');
    expect(JSON.parse(receiver.on(webhook.path)[0].body)).toMatchObject({ id: gaveUp, data: { asset_id: 'rec-1' } });
    await waitForRecords(webhook.id, 7);

    const again = await api.request(`${BASE}/${webhook.id}/recover?since=${encodeURIComponent(since)}`, { method: 'POST', token: tenant.token });
    expect(again.body).toMatchObject({ recovered: 0, deliveries: [] });
  });
});

async function waitForRecords(webhookId: string, count: number): Promise<void> {
  await until(
    async () => (await api.deps.db('webhook_deliveries').where({ webhook_id: webhookId })).length,
    (n) => n >= count,
    `${count} delivery records for ${webhookId}`,
    10_000,
    50,
  );
}

describe('ai-config', () => {
  it('drafts a configuration with the built-in engine and creates nothing', async () => {
    const before = await api.deps.db('webhooks').where({ tenant_id: tenant.tenantId }).count({ n: '*' });
    const res = await api.request(`${BASE}/ai-config`, {
      method: 'POST',
      token: tenant.token,
      json: { description: 'Open a ticket in our CMMS whenever a maintenance task is overdue' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      engine: 'built-in',
      model: 'built-in',
      draft: true,
      suggestion: { events: ['task.overdue'], filters: {}, payload_format: { content_type: 'application/json' } },
    });
    expect(res.body.suggestion.auth_headers.map((h: any) => h.name)).toEqual([
      'X-Signature',
      'X-Signature-Timestamp',
      'X-Webhook-Id',
      'webhook-id',
      'webhook-timestamp',
      'webhook-signature',
    ]);
    expect(await api.deps.db('webhooks').where({ tenant_id: tenant.tenantId }).count({ n: '*' })).toEqual(before);
    expectError(await api.request(`${BASE}/ai-config`, { method: 'POST', token: tenant.token, json: {} }), 422, 'VALIDATION_ERROR');
  });
});

describe('ai-config with a configured language model (a fake OpenAI-compatible endpoint on loopback)', () => {
  let modelApi: TestApi;
  let modelTenant: TestTenant;
  let model: WebhookReceiver;
  const answer = (content: string) => ({
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'fake-1', choices: [{ message: { content } }] }),
  });
  beforeAll(async () => {
    model = await startWebhookReceiver();
    modelApi = await startTestApi({ llm: { baseUrl: model.url('/v1'), apiKey: null, model: 'fake-1', planModels: DEFAULT_PLAN_MODELS } });
    modelTenant = await createTenant(modelApi);
  });
  afterAll(async () => {
    await modelApi?.close();
    await model?.close();
  });

  it("answers the model's configuration, labelled as the model's, after checking it", async () => {
    model.script('/v1/chat/completions', [answer('{"events": ["asset.alert.raised"], "filters": {"data.asset_id": "a-9"}, "rationale": "alerts of pump a-9"}')]);
    const res = await modelApi.request(`${BASE}/ai-config`, { method: 'POST', token: modelTenant.token, json: { description: 'tell me about alarms on pump a-9' } });
    expect(res.body).toMatchObject({
      engine: 'openai-compatible',
      model: 'fake-1',
      draft: true,
      suggestion: { events: ['asset.alert.raised'], filters: { 'data.asset_id': 'a-9' }, notes: ['alerts of pump a-9'] },
    });
    const sent = JSON.parse(model.on('/v1/chat/completions')[0].body);
    expect(sent).toMatchObject({ model: 'fake-1', temperature: 0 });
    expect(sent.messages[1]).toEqual({ role: 'user', content: 'tell me about alarms on pump a-9' });
  });

  it('falls back to the built-in engine, saying so, when the model answers an invalid configuration', async () => {
    model.script('/v1/chat/completions', [answer('{"events": ["alarms!"]}')]);
    const res = await modelApi.request(`${BASE}/ai-config`, { method: 'POST', token: modelTenant.token, json: { description: 'whenever a work order is overdue' } });
    expect(res.body).toMatchObject({ engine: 'built-in', model: 'built-in', suggestion: { events: ['task.overdue'] }, notice: expect.stringContaining('built-in') });
  });
});

describe('tenant isolation', () => {
  it("another tenant's webhook is 404 on every route, like a missing or malformed id", async () => {
    const foreign = await createWebhook(other);
    const deliveryId = randomUUID();
    const since = encodeURIComponent(new Date(Date.now() - 60_000).toISOString());
    for (const id of [foreign.id, randomUUID(), 'not-a-uuid']) {
      const routes: Array<[string, string, unknown?]> = [
        ['GET', `${BASE}/${id}`],
        ['PUT', `${BASE}/${id}`, { description: 'x' }],
        ['DELETE', `${BASE}/${id}`],
        ['POST', `${BASE}/${id}/rotate-secret`],
        ['POST', `${BASE}/${id}/test`, { sample_payload: {} }],
        ['GET', `${BASE}/${id}/deliveries`],
        ['POST', `${BASE}/${id}/deliveries/${deliveryId}/redeliver`],
        ['POST', `${BASE}/${id}/recover?since=${since}`],
        ['GET', `${BASE}/${id}/analytics`],
      ];
      for (const [method, path, json] of routes) {
        expectError(await api.request(path, { method, token: tenant.token, json }), 404, 'NOT_FOUND');
      }
    }
    expect(receiver.on(foreign.path)).toHaveLength(0);
    expect((await api.request(`${BASE}/${foreign.id}`, { token: other.token })).body.description).toBeNull();
  });
});

describe('destinations in production mode (development setting off)', () => {
  let strict: TestApi;
  let strictTenant: TestTenant;
  beforeAll(async () => {
    strict = await startTestApi({ webhooks: { allowPrivateDestinations: false } });
    strictTenant = await createTenant(strict);
  });
  afterAll(() => strict?.close());

  it.each(['http://127.0.0.1:8080/x', 'https://127.0.0.1/x', 'https://10.1.2.3/x', 'https://169.254.169.254/latest/meta-data', 'https://[::1]/x', 'https://[::ffff:10.0.0.1]/x'])(
    'refuses %s when the webhook is saved',
    async (url) => {
      const res = await strict.request(BASE, { method: 'POST', token: strictTenant.token, json: { url, events: ['*'] } });
      expectError(res, 422, 'VALIDATION_ERROR');
      expect(res.body.fields[0].field).toBe('body.url');
    },
  );

  it('refuses, at call time and without sending anything, a host name that resolves to loopback', async () => {
    const created = await strict.request(BASE, { method: 'POST', token: strictTenant.token, json: { url: `https://localhost:${receiver.port}/ssrf`, events: ['*'] } });
    expect(created.status).toBe(201);
    const res = await strict.request(`${BASE}/${created.body.id}/test`, { method: 'POST', token: strictTenant.token, json: { sample_payload: {} } });
    expect(res.body).toMatchObject({ status_code: null, success: false, error: expect.stringMatching(/^refused_destination: localhost resolves to .*loopback/) });
    expect(receiver.on('/ssrf')).toHaveLength(0);
  });
});

describe('schedules', () => {
  it('the worker created the webhook schedules (hourly success-rate check, daily retention sweep)', async () => {
    const client = await api.deps.temporal.client();
    for (const schedule of Object.values(WEBHOOK_SCHEDULES)) {
      const description = await client.schedule.getHandle(schedule.id).describe();
      expect(description.action).toMatchObject({ type: 'startWorkflow', workflowType: schedule.workflowType });
      expect(description.spec.intervals?.[0].every).toBe(schedule.every === '1 hour' ? 3_600_000 : 86_400_000);
    }
  });
});
