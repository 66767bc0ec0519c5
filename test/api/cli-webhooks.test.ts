/**
 * `industrial-ops webhooks ...` and `workflows link` as real processes against the test stack:
 * webhooks in trouble, the circuit breaker and its reset, failed deliveries and their requeue
 * through the tenant's own recover and redeliver, deliveries parked behind an open circuit and
 * their release, and the Temporal UI link of a plan and a delivery.
 */
import { randomUUID } from 'node:crypto';
import { appendEvent } from '../../db/outbox';
import { loadConfig } from '../../infra/config';
import { createTenant, startTestApi, TestApi, TestTenant } from '../support/api';
import { runCli, runJson, TEST_OPERATOR } from '../support/cli';
import { until } from '../support/until';
import { startWebhookReceiver, WebhookReceiver } from '../support/webhook-receiver';

jest.setTimeout(120_000);

const BASE = '/api/v1/integrations/webhooks';
const config = loadConfig(process.env);

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

async function createWebhook(t: TestTenant): Promise<{ id: string; path: string }> {
  // A receiver that takes a key in its query: the operator's listing shows the origin only.
  const path = `/hook-${randomUUID()}?key=receiver-secret`;
  const res = await api.request(BASE, { method: 'POST', token: t.token, json: { url: receiver.url(path), events: ['*'] } });
  if (res.status !== 201) throw new Error(`webhook not created: ${res.status} ${res.text}`);
  return { id: res.body.id, path };
}

/** As the delivery activities leave it after five timeouts in a row. */
const openCircuit = (t: TestTenant, webhookId: string) =>
  api.deps.db('webhook_circuit_breakers').insert({ tenant_id: t.tenantId, webhook_id: webhookId, state: 'open', since: new Date(), consecutive_failures: 5 });

describe('webhooks', () => {
  it("lists webhooks whose circuit is open (their destination's origin only), shows and resets the circuit with an audit record", async () => {
    const webhook = await createWebhook(tenant);
    const foreign = await createWebhook(other);
    await Promise.all([openCircuit(tenant, webhook.id), openCircuit(other, foreign.id)]);

    const mine = await runJson(['webhooks', 'failing', '--tenant', tenant.tenantId]);
    expect(mine.items).toEqual([
      {
        tenant_id: tenant.tenantId,
        webhook_id: webhook.id,
        destination: new URL(receiver.url('/')).origin,
        status: 'active',
        failing_since: null,
        disabled_reason: null,
        circuit: { state: 'open', since: expect.any(String), consecutive_failures: 5 },
        parked: 0,
      },
    ]);
    expect(JSON.stringify(mine)).not.toContain('receiver-secret');
    const everyone = await runJson(['webhooks', 'failing', '--limit', '100']);
    expect(everyone.items.map((w: { webhook_id: string }) => w.webhook_id)).toEqual(expect.arrayContaining([webhook.id, foreign.id]));

    expect(await runJson(['webhooks', 'breaker', 'show', webhook.id])).toMatchObject({
      webhook_id: webhook.id,
      tenant_id: tenant.tenantId,
      circuit: { state: 'open', consecutive_failures: 5 },
    });
    const reset = await runJson(['webhooks', 'breaker', 'reset', webhook.id]);
    expect(reset).toMatchObject({ webhook_id: webhook.id, previous: { state: 'open', consecutive_failures: 5 }, circuit: { state: 'closed', consecutive_failures: 0 } });
    expect(await api.deps.db('webhook_circuit_breakers').where({ webhook_id: webhook.id }).first('state', 'consecutive_failures', 'probe_delivery_id')).toEqual({
      state: 'closed',
      consecutive_failures: 0,
      probe_delivery_id: null,
    });
    expect(
      await api.deps.db('audit_log').where({ tenant_id: tenant.tenantId, action: 'webhook.breaker_reset' }).select('actor_type', 'actor_id', 'resource_id', 'details'),
    ).toEqual([{ actor_type: 'operator', actor_id: TEST_OPERATOR, resource_id: webhook.id, details: { previous_state: 'open', consecutive_failures: 5 } }]);
    expect((await runJson(['webhooks', 'failing', '--tenant', tenant.tenantId])).items).toEqual([]);
    // The other tenant's circuit is untouched.
    expect(await api.deps.db('webhook_circuit_breakers').where({ webhook_id: foreign.id }).first('state')).toEqual({ state: 'open' });
    const shown = await runCli(['webhooks', 'breaker', 'show', webhook.id]);
    expect(shown.stdout).toMatch(/\ncircuit +closed\n/);

    const unknown = await runCli(['--json', 'webhooks', 'breaker', 'reset', randomUUID()]);
    expect({ code: unknown.code, json: unknown.json }).toEqual({ code: 1, json: { error_code: 'NOT_FOUND', detail: 'webhook not found' } });
  });

  it('lists the deliveries that failed for good and requeues them as new deliveries, audited as the operator; links their workflow', async () => {
    const webhook = await createWebhook(tenant);
    const eventId = await api.deps.db.transaction(async (tx) => {
      const { id } = await appendEvent(tx, { tenantId: tenant.tenantId, type: 'asset.created', data: { asset_id: 'requeued' } });
      await tx('outbox_events').where({ id }).update({ dispatched_at: tx.fn.now() });
      return id;
    });
    const failed = randomUUID();
    await api.deps.db('webhook_deliveries').insert(
      [1, 2, 3, 4, 5].map((attempt) => ({
        tenant_id: tenant.tenantId,
        webhook_id: webhook.id,
        delivery_id: failed,
        event_id: eventId,
        event_type: 'asset.created',
        attempt,
        status: 'failed',
        status_code: 500,
        failure_cause: 'http_status',
        next_attempt_at: null,
      })),
    );
    const since = new Date(Date.now() - 3600_000).toISOString();
    expect(await runJson(['webhooks', 'deliveries', webhook.id, '--since', since])).toEqual({
      webhook_id: webhook.id,
      tenant_id: tenant.tenantId,
      since,
      deliveries: [{ delivery_id: failed, event_id: eventId }],
      truncated: false,
    });

    const requeued = await runJson(['webhooks', 'requeue', webhook.id, '--since', since]);
    expect(requeued).toEqual({
      webhook_id: webhook.id,
      tenant_id: tenant.tenantId,
      since,
      requeued: [{ delivery_id: expect.any(String), redelivery_of: failed }],
      truncated: false,
    });
    await receiver.waitFor(() => receiver.on(webhook.path).length === 1, 20_000, 'the requeued delivery');
    expect(JSON.parse(receiver.on(webhook.path)[0].body)).toMatchObject({ id: eventId, data: { asset_id: 'requeued' } });
    expect(await api.deps.db('audit_log').where({ tenant_id: tenant.tenantId, action: 'webhook.recovered', resource_id: webhook.id }).select('actor_type', 'actor_id')).toEqual([
      { actor_type: 'operator', actor_id: TEST_OPERATOR },
    ]);
    expect((await runJson(['webhooks', 'deliveries', webhook.id, '--since', since])).deliveries).toEqual([]);

    // One delivery by its id (the redeliver of the tenant's routes).
    const again = await runJson(['webhooks', 'requeue', webhook.id, '--delivery', failed]);
    expect(again.requeued).toEqual([{ delivery_id: expect.any(String), redelivery_of: failed }]);
    await receiver.waitFor(() => receiver.on(webhook.path).length === 2, 20_000, 'the redelivered delivery');
    const both = await runCli(['webhooks', 'requeue', webhook.id, '--since', since, '--delivery', failed]);
    expect({ code: both.code, stderr: both.stderr }).toEqual({ code: 2, stderr: 'error: give --since or --delivery, not both (USAGE)\n' });

    // The delivery's workflow in the Temporal UI, found from the delivery id alone.
    const deliveryId = requeued.requeued[0].delivery_id;
    await until(() => api.deps.db('webhook_deliveries').where({ delivery_id: deliveryId }).first('id'), Boolean, 'the delivery record');
    const link = await runJson(['workflows', 'link', 'delivery', deliveryId]);
    const workflowId = `webhook-delivery/${tenant.tenantId}/${deliveryId}`;
    expect(link).toEqual({
      kind: 'delivery',
      id: deliveryId,
      tenant_id: tenant.tenantId,
      workflow_id: workflowId,
      namespace: config.temporal.namespace,
      run_id: expect.any(String),
      status: 'COMPLETED',
      url: `${config.temporal.uiUrl}/namespaces/${config.temporal.namespace}/workflows/${encodeURIComponent(workflowId)}/${link.run_id}/history`,
    });
    // Another tenant's id with this delivery: not found.
    const foreign = await runCli(['--json', 'workflows', 'link', 'delivery', deliveryId, '--tenant', other.tenantId]);
    expect({ code: foreign.code, json: foreign.json }).toEqual({ code: 1, json: { error_code: 'NOT_FOUND', detail: 'webhook delivery not found' } });
  });
});

describe('parked deliveries', () => {
  /** Open with five failures, and for the whole test: no probe goes before the operator's release. */
  const openForTheTest = (t: TestTenant, webhookId: string) =>
    api.deps.db('webhook_circuit_breakers').insert({ tenant_id: t.tenantId, webhook_id: webhookId, state: 'open', since: new Date(Date.now() + 600_000), consecutive_failures: 5 });
  const createAsset = async (t: TestTenant, name: string): Promise<string> => {
    const res = await api.request('/api/v1/assets', { method: 'POST', token: t.token, json: { name, type: 'pump' } });
    if (res.status !== 201) throw new Error(`asset not created: ${res.status} ${res.text}`);
    return res.body.id;
  };
  const parkedOf = async (webhookId: string) => Number((await api.deps.db('webhook_parked_deliveries').where({ webhook_id: webhookId }).count({ n: '*' }))[0].n);

  it("lists a dead receiver's parked deliveries per webhook with the tenant's total against its bound, and releases them once it is back, audited as the operator", async () => {
    const [owner, bystander] = await Promise.all([createTenant(api), createTenant(api)]);
    const webhook = await createWebhook(owner);
    const foreign = await createWebhook(bystander);
    // A dead receiver: every attempt would fail; its circuit is open, so none is sent.
    receiver.script(webhook.path, [{ status: 500 }]);
    await Promise.all([openForTheTest(owner, webhook.id), openForTheTest(bystander, foreign.id)]);
    const assets = [await createAsset(owner, 'Parked pump 1'), await createAsset(owner, 'Parked pump 2'), await createAsset(owner, 'Parked pump 3')];
    await createAsset(bystander, 'Parked elsewhere');
    await until(
      () => Promise.all([parkedOf(webhook.id), parkedOf(foreign.id)]),
      ([mine, theirs]) => mine === 3 && theirs === 1,
      'the deliveries parked',
    );
    expect(receiver.on(webhook.path)).toEqual([]);

    const limit = config.outbound.webhookParkedPerTenant;
    const listed = await runJson(['webhooks', 'parked', '--tenant', owner.tenantId]);
    expect(listed).toEqual({
      items: [
        {
          tenant_id: owner.tenantId,
          webhook_id: webhook.id,
          destination: new URL(receiver.url('/')).origin,
          status: 'active',
          circuit: 'open',
          parked: 3,
          oldest_parked_at: expect.any(String),
          tenant: { parked: 3, limit },
        },
      ],
      total: 1,
      skip: 0,
      limit: 20,
    });
    expect(Date.now() - Date.parse(listed.items[0].oldest_parked_at)).toBeLessThan(120_000);
    expect(JSON.stringify(listed)).not.toContain('receiver-secret');
    const everyone = await runJson(['webhooks', 'parked', '--limit', '100']);
    const ours = everyone.items.filter((w: { tenant_id: string }) => [owner.tenantId, bystander.tenantId].includes(w.tenant_id));
    expect(ours).toHaveLength(2);
    expect(ours).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ webhook_id: webhook.id, parked: 3, tenant: { parked: 3, limit } }),
        expect.objectContaining({ webhook_id: foreign.id, parked: 1, tenant: { parked: 1, limit } }),
      ]),
    );
    expect((await runCli(['webhooks', 'parked', '--tenant', owner.tenantId])).stdout).toContain(`3 of ${limit}`);
    expect((await runJson(['webhooks', 'failing', '--tenant', owner.tenantId])).items).toEqual([expect.objectContaining({ webhook_id: webhook.id, parked: 3 })]);

    // The receiver is back: the release closes the circuit and sends what was parked.
    receiver.script(webhook.path, [{ status: 200 }]);
    const released = await runJson(['webhooks', 'release', webhook.id]);
    expect(released).toEqual({
      webhook_id: webhook.id,
      tenant_id: owner.tenantId,
      previous: { state: 'open', since: expect.any(String), consecutive_failures: 5 },
      parked: 3,
      released: 3,
    });
    await receiver.waitFor(() => receiver.on(webhook.path).length === 3, 30_000, 'the released deliveries');
    expect(
      receiver
        .on(webhook.path)
        .map((r) => (JSON.parse(r.body) as { data: { asset_id: string } }).data.asset_id)
        .sort(),
    ).toEqual([...assets].sort());
    await until(
      () => parkedOf(webhook.id),
      (n) => n === 0,
      'the released deliveries no longer parked',
    );
    expect(await api.deps.db('webhook_circuit_breakers').where({ webhook_id: webhook.id }).first('state')).toEqual({ state: 'closed' });
    expect(
      await api.deps.db('audit_log').where({ tenant_id: owner.tenantId, action: 'webhook.parked_released' }).select('actor_type', 'actor_id', 'resource_id', 'details'),
    ).toEqual([{ actor_type: 'operator', actor_id: TEST_OPERATOR, resource_id: webhook.id, details: { previous_state: 'open', consecutive_failures: 5, parked: 3 } }]);
    expect((await runJson(['webhooks', 'parked', '--tenant', owner.tenantId])).items).toEqual([]);
    // The other tenant's webhook is untouched: still parked behind its open circuit.
    expect(await parkedOf(foreign.id)).toBe(1);
    expect(await api.deps.db('webhook_circuit_breakers').where({ webhook_id: foreign.id }).first('state')).toEqual({ state: 'open' });

    const unknown = await runCli(['--json', 'webhooks', 'release', randomUUID()]);
    expect({ code: unknown.code, json: unknown.json }).toEqual({ code: 1, json: { error_code: 'NOT_FOUND', detail: 'webhook not found' } });
    // A deleted webhook's parked deliveries end (the releaser sends them to their end), leaving nothing parked behind.
    expect((await api.request(`${BASE}/${foreign.id}`, { method: 'DELETE', token: bystander.token })).status).toBe(204);
    await until(
      () => parkedOf(foreign.id),
      (n) => n === 0,
      "the deleted webhook's deliveries ended",
    );
  });
});

describe('workflows link', () => {
  it("answers a maintenance plan's running workflow and its UI page; the filtered list when Temporal does not answer", async () => {
    const startAt = new Date(Math.ceil((Date.now() + 24 * 3600_000) / 3600_000) * 3600_000).toISOString();
    const plan = await api.request('/api/v1/maintenance/plans', {
      method: 'POST',
      token: tenant.token,
      json: { name: 'Grease pump bearings', trigger: { type: 'calendar', every: 1, unit: 'weeks', start_at: startAt, mode: 'fixed' } },
    });
    expect(plan.status).toBe(201);
    const workflowId = `maintenance-plan/${tenant.tenantId}/${plan.body.id}`;
    const text = await runCli(['workflows', 'link', 'plan', plan.body.id]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`^workflow +${workflowId}\\nstatus +RUNNING\\nrun +[0-9a-f-]{36}\\nlink +${config.temporal.uiUrl}/namespaces/`));

    // Temporal unreachable: the link is the UI's list filtered on the workflow id.
    const down = await runJson(['workflows', 'link', 'plan', plan.body.id], { env: { ...process.env, TEMPORAL_ADDRESS: '127.0.0.1:1', TEMPORAL_CALL_DEADLINE_MS: '1000' } });
    expect(down).toMatchObject({
      workflow_id: workflowId,
      run_id: null,
      status: null,
      url: `${config.temporal.uiUrl}/namespaces/${config.temporal.namespace}/workflows?query=${encodeURIComponent(`WorkflowId="${workflowId}"`)}`,
    });
    const missing = await runCli(['--json', 'workflows', 'link', 'plan', randomUUID()]);
    expect({ code: missing.code, json: missing.json }).toEqual({ code: 1, json: { error_code: 'NOT_FOUND', detail: 'maintenance plan not found' } });
  });
});
