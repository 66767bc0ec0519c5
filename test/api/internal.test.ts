import { FULL_SERVICE_GRANT, signInternalToken } from '../../domain/auth/tokens';
import { createTenant, expectError, startTestApi, TestApi, TestTenant } from '../support/api';
import { expectNoPersonalData } from '../support/history-text';
import { startTestPostgres } from '../support/test-postgres';
import { until } from '../support/until';

let api: TestApi;
let tenant: TestTenant;
let internalToken: string;
beforeAll(async () => {
  api = await startTestApi();
  tenant = await createTenant(api);
  internalToken = signInternalToken('test-suite', api.deps.config.secrets.internalJwt, FULL_SERVICE_GRANT);
});
afterAll(() => api.close());

describe('internal service token', () => {
  it('refuses a missing token and a user token with 401', async () => {
    expectError(await api.request('/internal/health'), 401, 'UNAUTHENTICATED');
    expectError(await api.request('/internal/health', { token: tenant.token }), 401, 'UNAUTHENTICATED');
    const userSecretToken = signInternalToken('x', api.deps.config.secrets.jwt, FULL_SERVICE_GRANT);
    expectError(await api.request('/internal/health', { token: userSecretToken }), 401, 'UNAUTHENTICATED');
  });
});

describe('service token scopes (issue 17)', () => {
  const tokenFor = (scopes: Parameters<typeof signInternalToken>[2]['scopes'], tenants: string[] | '*') =>
    signInternalToken('partner', api.deps.config.secrets.internalJwt, { scopes, tenants });
  const event = (tenantId: string) => ({ tenant_id: tenantId, type: 'machine.cycle.done', data: { n: 1 } });

  it('each route needs its scope: 403 without it', async () => {
    const eventsOnly = tokenFor(['events:write'], '*');
    expectError(await api.request('/internal/health', { token: eventsOnly }), 403, 'FORBIDDEN');
    const notify = { tenant_id: tenant.tenantId, category: 'test', recipients: [tenant.email], subject: 's', body: 'b' };
    expectError(await api.request('/internal/notifications', { method: 'POST', token: eventsOnly, json: notify }), 403, 'FORBIDDEN');
    expect((await api.request('/internal/events', { method: 'POST', token: eventsOnly, json: event(tenant.tenantId) })).status).toBe(202);
    // A token signed before scopes existed (no grant) may do nothing.
    expectError(await api.request('/internal/events', { method: 'POST', token: tokenFor([], []), json: event(tenant.tenantId) }), 403, 'FORBIDDEN');
  });

  it('a token granted some tenants cannot act for another', async () => {
    const other = await createTenant(api);
    const forTenant = tokenFor(['events:write', 'notifications:send'], [tenant.tenantId]);
    expect((await api.request('/internal/events', { method: 'POST', token: forTenant, json: event(tenant.tenantId) })).status).toBe(202);
    const before = await api.deps.db('outbox_events').where({ tenant_id: other.tenantId }).count({ n: '*' }).first();
    expectError(await api.request('/internal/events', { method: 'POST', token: forTenant, json: event(other.tenantId) }), 403, 'FORBIDDEN');
    expect(await api.deps.db('outbox_events').where({ tenant_id: other.tenantId }).count({ n: '*' }).first()).toEqual(before);
  });

  it("notifications go to the tenant's own active users only: a service token is not a mail relay", async () => {
    const res = await api.request('/internal/notifications', {
      method: 'POST',
      token: internalToken,
      json: { tenant_id: tenant.tenantId, category: 'test', recipients: [tenant.email, 'anyone@example.org'], subject: 's', body: 'b' },
    });
    expectError(res, 422, 'VALIDATION_ERROR');
    expect(res.body.fields[0].field).toBe('body.recipients');
  });
});

describe('GET /internal/health', () => {
  it('answers 200 with every part up', async () => {
    const res = await api.request('/internal/health', { token: internalToken });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('ok');
    expect(Object.keys(res.body.components).sort()).toEqual(['object_store', 'postgres', 'temporal']);
    for (const c of Object.values<any>(res.body.components)) expect(c.status).toBe('up');
    // The readiness probe needs no token and reveals nothing but the verdict.
    const ready = await api.request('/readyz');
    expect({ status: ready.status, body: ready.body }).toEqual({ status: 200, body: { status: 'ready' } });
  });

  it('answers 503 naming PostgreSQL once PostgreSQL is stopped', async () => {
    // Migrated: the service token's revocation state is read from PostgreSQL, and kept for the
    // session check's cache time, which outlasts the test here (so the health route is reached).
    const pg = await startTestPostgres();
    const own = await startTestApi({ databaseUrl: pg.databaseUrl, auth: { ...api.deps.config.auth, sessionCheckCacheMs: 600_000 } });
    try {
      expect((await own.request('/internal/health', { token: internalToken })).status).toBe(200);
      await pg.stopServer();
      const res = await own.request('/internal/health', { token: internalToken });
      expectError(res, 503, 'DEPENDENCY_UNAVAILABLE');
      expect(res.body.down).toEqual(['postgres']);
      expect(res.body.detail).toBe('unavailable: postgres');
      expect(res.body.components.temporal.status).toBe('up');
      expect(res.body.components.object_store.status).toBe('up');
      // Readiness is this process's, not its dependencies': a database down for every replica
      // must not take them all out of the balancer (requests that need it answer 503 themselves).
      const ready = await own.request('/readyz');
      expect({ status: ready.status, body: ready.body }).toEqual({ status: 200, body: { status: 'ready' } });
    } finally {
      await own.close();
      await pg.stop();
    }
  });
});

describe('POST /internal/events', () => {
  it('stores the event in the outbox once per event_id, with an audit row', async () => {
    const body = { tenant_id: tenant.tenantId, type: 'machine.vibration.threshold_exceeded', data: { asset_id: 'a-1', value: 12.5 }, event_id: 'gw-7:991' };
    const first = await api.request('/internal/events', { method: 'POST', token: internalToken, json: body });
    const again = await api.request('/internal/events', { method: 'POST', token: internalToken, json: body });
    expect(first.status).toBe(202);
    expect(first.body.duplicate).toBe(false);
    expect(again.body).toEqual({ id: first.body.id, duplicate: true });
    const rows = await api.deps.db('outbox_events').where({ tenant_id: tenant.tenantId, idempotency_key: 'gw-7:991' });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ type: 'machine.vibration.threshold_exceeded', data: { asset_id: 'a-1', value: 12.5 }, source: 'internal' });
    const audit = await api.deps.db('audit_log').where({ tenant_id: tenant.tenantId, action: 'event.ingested', resource_id: first.body.id });
    expect(audit[0]).toMatchObject({ actor_type: 'service', actor_id: 'test-suite' });
  });

  it('refuses an undotted type (422) and an unknown tenant (404)', async () => {
    const bad = await api.request('/internal/events', { method: 'POST', token: internalToken, json: { tenant_id: tenant.tenantId, type: 'Alarm', data: {} } });
    expectError(bad, 422, 'VALIDATION_ERROR');
    const unknown = await api.request('/internal/events', {
      method: 'POST',
      token: internalToken,
      json: { tenant_id: '00000000-0000-4000-8000-000000000001', type: 'a.b', data: {} },
    });
    expectError(unknown, 404, 'NOT_FOUND');
  });
});

describe('POST /internal/notifications', () => {
  it('queues a notification that the notification workflow delivers', async () => {
    const res = await api.request('/internal/notifications', {
      method: 'POST',
      token: internalToken,
      json: { tenant_id: tenant.tenantId, category: 'test', recipients: [tenant.email], subject: 'Hello', body: 'Plant check' },
    });
    expect(res.status).toBe(202);
    const client = await api.deps.temporal.client();
    const handle = client.workflow.getHandle(`notification/${tenant.tenantId}/${res.body.id}`);
    const result = await handle.result();
    const row = await api.deps.db('notifications').where({ id: res.body.id }).first();
    // The suite's worker has an SMTP sink when MAIL_SINK_DIR is set; otherwise it records only.
    expect(result.status).toBe(row.status);
    expect(['sent', 'recorded']).toContain(row.status);
    // The workflow history holds ids, never the recipient or the text.
    await expectNoPersonalData(client, handle.workflowId, res.body.id, [tenant.email, 'Plant check']);
  });
});

describe('GET /internal/outbox and POST /internal/outbox/{id}/requeue (issue 23)', () => {
  it("lists parked and retrying events with their errors (never their data), only the granted tenants', and requeues a parked one", async () => {
    const db = api.deps.db;
    const other = await createTenant(api);
    const insert = async (tenantId: string, columns: Record<string, unknown>): Promise<string> => {
      const [row] = await db('outbox_events')
        .insert({ tenant_id: tenantId, type: 'order.created', data: JSON.stringify({ note: 'data is never listed' }), occurred_at: new Date(), ...columns })
        .returning('id');
      return row.id;
    };
    const parkedColumns = { attempts: 8, last_error: 'Error: refused by the server', parked_at: db.fn.now(), dispatched_at: db.fn.now() };
    const parked = await insert(tenant.tenantId, parkedColumns);
    const othersParked = await insert(other.tenantId, parkedColumns);
    const retrying = await insert(tenant.tenantId, { attempts: 2, last_error: 'Error: refused by the server', next_attempt_at: new Date(Date.now() + 3_600_000) });
    const token = signInternalToken('ops', api.deps.config.secrets.internalJwt, { scopes: ['outbox:read', 'outbox:write'], tenants: [tenant.tenantId] });

    const list = await api.request('/internal/outbox', { token });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ parked: 1, retrying: 1, total: 1, skip: 0, limit: 20 });
    expect(list.body.items).toEqual([
      {
        id: parked,
        tenant_id: tenant.tenantId,
        type: 'order.created',
        attempts: 8,
        last_error: 'Error: refused by the server',
        next_attempt_at: null,
        parked_at: expect.any(String),
        created_at: expect.any(String),
      },
    ]);
    expect(JSON.stringify(list.body)).not.toContain('data is never listed');
    const waiting = await api.request('/internal/outbox?status=retrying', { token });
    expect(waiting.body.items.map((i: { id: string }) => i.id)).toEqual([retrying]);

    expectError(await api.request(`/internal/outbox/${othersParked}/requeue`, { method: 'POST', token }), 404, 'NOT_FOUND');
    const requeued = await api.request(`/internal/outbox/${parked}/requeue`, { method: 'POST', token });
    expect(requeued.status).toBe(200);
    expect(requeued.body).toMatchObject({ id: parked, attempts: 0, parked_at: null, next_attempt_at: null });
    // The worker's dispatcher takes it again at once (no webhook matches it here, so it is done).
    await until(() => db('outbox_events').where({ id: parked }).whereNotNull('dispatched_at').first('id'), Boolean, 'the requeued event to be dispatched');
    expect(await db('outbox_events').where({ id: parked }).first('parked_at', 'attempts')).toEqual({ parked_at: null, attempts: 0 });
    expectError(await api.request(`/internal/outbox/${parked}/requeue`, { method: 'POST', token }), 404, 'NOT_FOUND');

    const readOnly = signInternalToken('ops', api.deps.config.secrets.internalJwt, { scopes: ['outbox:read'], tenants: '*' });
    expectError(await api.request(`/internal/outbox/${othersParked}/requeue`, { method: 'POST', token: readOnly }), 403, 'FORBIDDEN');
    expectError(
      await api.request('/internal/outbox', { token: signInternalToken('ops', api.deps.config.secrets.internalJwt, { scopes: ['events:write'], tenants: '*' }) }),
      403,
      'FORBIDDEN',
    );
    expect((await api.request('/internal/outbox', { token: readOnly })).body.parked).toBeGreaterThanOrEqual(1);
  });
});
