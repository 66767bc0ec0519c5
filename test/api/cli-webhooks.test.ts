/**
 * `industrial-ops webhooks ...` and `workflows link` as real processes against the test stack:
 * webhooks in trouble, the circuit breaker and its reset, failed deliveries and their requeue
 * through the tenant's own recover and redeliver, and the Temporal UI link of a plan and a delivery.
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
