/**
 * A worker killed with SIGKILL in the middle of a burst of deliveries, then restarted: every
 * (event, webhook) pair still reaches the receiver, under exactly one delivery id (the one derived
 * from the pair), is recorded as succeeded exactly once, and every event leaves the outbox. A request the killed worker had already sent
 * may be sent again by the activity's retry (at-least-once HTTP); it carries the same delivery id,
 * which is what receivers deduplicate on.
 */
import path from 'node:path';
import { appendEvent } from '../../db/outbox';
import { deliveryIdFor } from '../../domain/webhooks/delivery-id';
import { workflowIds } from '../../infra/workflow-ids';
import { createTenant, startTestApi, TestApi, TestTenant } from '../support/api';
import { startServiceProcess, ServiceProcess } from '../../scripts/service-process';
import { until } from '../support/until';
import { startWebhookReceiver, WebhookReceiver } from '../support/webhook-receiver';

jest.setTimeout(240_000);

const ROOT = path.resolve(__dirname, '..', '..');
const EVENTS = 200;

let api: TestApi;
let tenant: TestTenant;
let receiver: WebhookReceiver;
const extraWorkers: ServiceProcess[] = [];

beforeAll(async () => {
  api = await startTestApi();
  [tenant, receiver] = await Promise.all([createTenant(api), startWebhookReceiver()]);
});
afterAll(async () => {
  await Promise.all(extraWorkers.map((w) => w.stop()));
  await receiver?.close();
  await api?.close();
});

/** Another worker process, with the environment the global setup gave its own. */
async function startExtraWorker(name: string): Promise<ServiceProcess> {
  const worker = await startServiceProcess('worker', {}, path.join(ROOT, '.run', `${name}.log`));
  extraWorkers.push(worker);
  return worker;
}

it('loses and doubles no delivery when a worker is killed mid-burst and restarted', async () => {
  const hooks: string[] = [];
  for (const name of ['a', 'b']) {
    const res = await api.request('/api/v1/integrations/webhooks', { method: 'POST', token: tenant.token, json: { url: receiver.url(`/burst/${name}`), events: ['asset.*'] } });
    expect(res.status).toBe(201);
    hooks.push(res.body.id);
    receiver.script(`/burst/${name}`, [{ status: 200, delayMs: 150 }]); // slow enough for the kill to land mid-burst
  }
  const pathOf = (webhookId: string) => `/burst/${['a', 'b'][hooks.indexOf(webhookId)]}`;

  const victim = await startExtraWorker('worker-victim');
  const eventIds = await api.deps.db.transaction(async (tx) => {
    const ids: string[] = [];
    for (let i = 0; i < EVENTS; i++) ids.push((await appendEvent(tx, { tenantId: tenant.tenantId, type: 'asset.created', data: { asset_id: `burst-${i}` } })).id);
    return ids;
  });
  const expected = EVENTS * hooks.length;

  await receiver.waitFor(() => receiver.requests.length >= expected / 10, 60_000, 'the burst to start');
  await victim.kill(); // the whole process group, no grace
  const receivedAtKill = receiver.requests.length;
  expect(receivedAtKill).toBeLessThan(expected);

  await startExtraWorker('worker-restarted');
  const distinct = () => new Set(receiver.requests.filter((r) => r.path.startsWith('/burst/')).map((r) => r.headers['webhook-id'])).size;
  await receiver.waitFor(() => distinct() === expected, 150_000, `all ${expected} deliveries`);
  // Attempts the killed worker had sent but not recorded are recorded by their retry, once their
  // activity timed out (30 s): wait for the log to be complete too.
  const recordCount = async () => Number((await api.deps.db('webhook_deliveries').whereIn('webhook_id', hooks).count({ n: '*' }))[0].n);
  await until(recordCount, (n) => n >= expected, `all ${expected} attempt records`, { timeoutMs: 90_000, intervalMs: 250 });
  // Only a delivery's own workflow sends it: once every one has closed, nothing more can arrive.
  const client = await api.deps.temporal.client();
  const deliveries = eventIds.flatMap((eventId) => hooks.map((webhookId) => workflowIds.webhookDelivery(tenant.tenantId, deliveryIdFor(eventId, webhookId))));
  for (let i = 0; i < deliveries.length; i += 50) {
    await Promise.all(deliveries.slice(i, i + 50).map((workflowId) => client.workflow.getHandle(workflowId).result()));
  }

  const requests = receiver.requests.filter((r) => r.path.startsWith('/burst/'));
  for (const webhookId of hooks) {
    const got = requests.filter((r) => r.path === pathOf(webhookId));
    const byEvent = new Map<string, Set<string>>();
    for (const r of got) {
      const eventId = JSON.parse(r.body).id as string;
      byEvent.set(eventId, new Set([...(byEvent.get(eventId) ?? []), r.headers['webhook-id']]));
    }
    // Every event reached this webhook, each under one delivery id: the one derived from the pair.
    expect([...byEvent.keys()].sort()).toEqual([...eventIds].sort());
    for (const [eventId, ids] of byEvent) expect([...ids]).toEqual([deliveryIdFor(eventId, webhookId)]);
  }
  // Every delivery succeeded exactly once, under its own id; the outbox is drained. An attempt
  // before the success may have failed on its own deadline (a 3 s connect deadline, when the
  // machine stalls the worker's event loop longer than that: a CI run saw 5 of 400): that is the
  // schedule's retry of one delivery, recorded as attempt 1 failed and attempt 2 succeeded, not a
  // second delivery.
  const records = await api.deps.db('webhook_deliveries').whereIn('webhook_id', hooks).select('delivery_id', 'attempt', 'status', 'failure_cause');
  const succeeded = records.filter((r) => r.status === 'succeeded');
  expect(succeeded).toHaveLength(expected);
  expect(new Set(succeeded.map((r) => r.delivery_id)).size).toBe(expected);
  const failed = records.filter((r) => r.status !== 'succeeded');
  for (const r of failed) {
    const success = succeeded.find((s) => s.delivery_id === r.delivery_id);
    expect({ failed: r, before: success && success.attempt > r.attempt, cause: ['timeout', 'connection_error'].includes(r.failure_cause) }).toEqual({
      failed: r,
      before: true,
      cause: true,
    });
  }
  expect(await api.deps.db('outbox_events').whereIn('id', eventIds).whereNull('dispatched_at')).toHaveLength(0);
  // Resent requests are attempts whose result no workflow task had recorded when it ended: the
  // killed worker's (in flight, or answered while their task was still open), and under a heavy
  // load also attempts whose workflow task timed out and ran again. How many depends on the load
  // (runs have seen 40 to 300 of 400), so the test reports them; what it asserts is the guarantee
  // receivers rely on, above: a resend carries the same delivery id and is recorded once.
  const resent = requests.length - expected;
  process.stderr.write(
    `[webhooks-crash] ${expected} deliveries, ${receivedAtKill} received before the kill, ${resent} resent with the same delivery id, ${failed.length} attempts failed before their delivery's success (${failed.map((r) => r.failure_cause).join(', ')})\n`,
  );
});
