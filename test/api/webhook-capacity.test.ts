/**
 * Shared delivery capacity between tenants: a tenant whose receivers never answer holds a bounded
 * share of the worker's attempts (its attempts beyond the share wait or are retried later), each
 * endpoint's circuit opens after consecutive failures and then sends nothing, and another tenant's
 * deliveries keep arriving within seconds. The test stack's webhook deadlines are short
 * (global-setup.ts: WEBHOOK_RESPONSE_TIMEOUT_MS, WEBHOOK_CONNECT_TIMEOUT_MS), so a hung attempt
 * lasts 2 s, not 10 s. Loopback only.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { temporal } from '@temporalio/proto';
import { processCpuMs } from '../../bench/process-cpu';
import { appendEvent } from '../../db/outbox';
import { deliveryIdFor } from '../../domain/webhooks/delivery-id';
import { workflowIds } from '../../infra/workflow-ids';
import { createTenant, startTestApi, TestApi, TestTenant } from '../support/api';
import { sample } from '../support/prometheus';
import { stackPids } from '../support/test-stack';
import { until } from '../support/until';
import { startWebhookReceiver, WebhookReceiver } from '../support/webhook-receiver';

jest.setTimeout(120_000);

const HUNG_WEBHOOKS = 25;
const BURST_EVENTS = 40;
const HEALTHY_EVENTS = 20;
const HEALTHY_EVERY_MS = 250;
/** The isolation bound the test asserts: every delivery of the healthy tenant within this of its event. */
const BOUND_MS = 10_000;
/** Connections to the hung receiver that mean the burst holds its share (or, without one, every slot it can get). */
const SATURATED = 60;
/** The failures that open a circuit (WEBHOOK_BREAKER_FAILURES of the test stack: the default). */
const BREAKER_FAILURES = 5;
/** Connections the receiver still counts as open after the worker closed them. */
const CLOSING_IN_TRANSIT = 4;

let api: TestApi;
let receiver: WebhookReceiver;

beforeAll(async () => {
  api = await startTestApi();
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await api?.close();
});

/** A TCP server that accepts every connection and never answers; counts connections open at once. */
async function startHungReceiver() {
  const sockets = new Set<net.Socket>();
  let accepted = 0;
  let maxOpen = 0;
  const server = net.createServer((socket) => {
    accepted += 1;
    sockets.add(socket);
    maxOpen = Math.max(maxOpen, sockets.size);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    socket.resume(); // reads (and drops) the request, so a client's close is seen at once; answers nothing
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    stats: () => ({ accepted, open: sockets.size, maxOpen }),
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function createWebhook(tenant: TestTenant, url: string): Promise<string> {
  const res = await api.request('/api/v1/integrations/webhooks', { method: 'POST', token: tenant.token, json: { url, events: ['asset.*'] } });
  expect(res.status).toBe(201);
  return res.body.id;
}

async function appendEvents(tenantId: string, count: number, tag: string): Promise<string[]> {
  return api.deps.db.transaction(async (tx) => {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) ids.push((await appendEvent(tx, { tenantId, type: 'asset.created', data: { asset_id: `${tag}-${i}` } })).id);
    return ids;
  });
}

/** A healthy delivery's history, event by event from its event's append, for when a bound is missed. */
async function printHistory(victim: TestTenant, eventId: string, eventAt: Map<string, number>, what: string): Promise<void> {
  const webhookId = (await api.deps.db('webhooks').where({ tenant_id: victim.tenantId }).first('id')).id as string;
  const handle = (await api.deps.temporal.client()).workflow.getHandle(workflowIds.webhookDelivery(victim.tenantId, deliveryIdFor(eventId, webhookId)));
  const history = await handle.fetchHistory();
  const start = eventAt.get(eventId)!;
  const lines = (history.events ?? []).map((e) => {
    const at = Number(e.eventTime?.seconds ?? 0) * 1000 + Math.round((e.eventTime?.nanos ?? 0) / 1e6) - start;
    const timedOut = e.workflowTaskTimedOutEventAttributes;
    const detail = timedOut ? ` (${temporal.api.enums.v1.TimeoutType[timedOut.timeoutType ?? 0]})` : '';
    return `${at} ms ${temporal.api.enums.v1.EventType[e.eventType ?? 0]}${detail}`;
  });
  process.stderr.write(`[webhook-capacity] ${what}, its history from the event:\n  ${lines.join('\n  ')}\n`);
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** `count` events of the tenant, HEALTHY_EVERY_MS apart: when each was appended, by event id. */
async function pacedEvents(tenantId: string, count: number): Promise<Map<string, number>> {
  const eventAt = new Map<string, number>();
  for (let i = 0; i < count; i++) {
    const at = Date.now();
    const [id] = await appendEvents(tenantId, 1, 'healthy');
    eventAt.set(id, at);
    await new Promise((resolve) => setTimeout(resolve, HEALTHY_EVERY_MS));
  }
  return eventAt;
}

/** Where the healthy tenant's time went: how long each event waited for the dispatcher (the rest is after its start), sorted. */
async function dispatchWaitsOf(eventAt: Map<string, number>): Promise<number[]> {
  const dispatched = await api.deps
    .db('outbox_events')
    .whereIn('id', [...eventAt.keys()])
    .select('id', 'dispatched_at');
  return dispatched.map((row) => new Date(row.dispatched_at).getTime() - eventAt.get(row.id)!).sort((x, y) => x - y);
}

/** What the healthy receiver got on `path`: each request's event id, webhook-id and arrival time. */
const arrivalsOn = (path: string) => receiver.on(path).map((r) => ({ eventId: JSON.parse(r.body).id as string, webhookId: r.headers['webhook-id'], at: r.receivedAt }));

/** Each event's first arrival (a delivery sent twice must not stand in for one not yet sent). */
function firstArrivals(arrivals: ReturnType<typeof arrivalsOn>): Map<string, number> {
  const first = new Map<string, number>();
  for (const { eventId, at } of arrivals) if (!first.has(eventId)) first.set(eventId, at);
  return first;
}

describe('webhook circuit breaker', () => {
  it("opens after five consecutive 5xx, then parks what comes and sends nothing, and GET of the webhook and /metrics show both; another tenant's GET is 404", async () => {
    const tenant = await createTenant(api);
    const other = await createTenant(api);
    const path = '/breaker/failing';
    receiver.script(path, [{ status: 503 }]);
    const webhookId = await createWebhook(tenant, receiver.url(path));

    const fresh = await api.request(`/api/v1/integrations/webhooks/${webhookId}`, { token: tenant.token });
    expect(fresh.status).toBe(200);
    expect(fresh.body.circuit_breaker).toEqual({ state: 'closed', since: fresh.body.created_at, consecutive_failures: 0 });

    await appendEvents(tenant.tenantId, 5, 'breaker');
    await receiver.waitFor(() => receiver.on(path).length >= 5, 30_000, 'five failed attempts');
    const opened = await until(
      async () => (await api.request(`/api/v1/integrations/webhooks/${webhookId}`, { token: tenant.token })).body.circuit_breaker,
      (breaker) => breaker.state === 'open',
      'the circuit to open',
      { timeoutMs: 15_000, intervalMs: 200 },
    );
    expect(opened.consecutive_failures).toBe(5);
    expect(Date.now() - Date.parse(opened.since)).toBeLessThan(30_000);

    // While open, a new event's delivery parks: its workflow waits for the releaser (no retry of the
    // attempt in its history), nothing reaches the receiver, no attempt is logged; GET counts it.
    const [parkedEvent] = await appendEvents(tenant.tenantId, 1, 'while-open');
    const parked = await until(
      async () => (await api.request(`/api/v1/integrations/webhooks/${webhookId}`, { token: tenant.token })).body.parked_deliveries,
      (p) => p.count >= 1,
      'the delivery to park',
      { timeoutMs: 20_000, intervalMs: 250 },
    );
    expect(parked).toEqual({ count: expect.any(Number), oldest_parked_at: expect.any(String), tenant_count: parked.count, tenant_limit: 10_000 });
    expect(Date.parse(parked.oldest_parked_at)).toBeGreaterThanOrEqual(Date.parse(opened.since) - 1_000);
    const delivery = (await api.deps.temporal.client()).workflow.getHandle(workflowIds.webhookDelivery(tenant.tenantId, deliveryIdFor(parkedEvent, webhookId)));
    const history = JSON.stringify(await delivery.fetchHistory());
    expect(history).not.toContain('WebhookCircuitOpen');
    expect(receiver.on(path)).toHaveLength(5);
    expect(await api.deps.db('webhook_deliveries').where({ webhook_id: webhookId, event_id: parkedEvent })).toHaveLength(0);

    const metrics = (await api.request('/metrics')).text;
    expect(sample(metrics, 'webhook_circuit_breakers', { state: 'open' })).toBeGreaterThanOrEqual(1);
    // The gauges are read at most every 5 s.
    await until(
      async () => sample((await api.request('/metrics')).text, 'webhook_parked_deliveries'),
      (n) => (n ?? 0) >= 1,
      'the parked delivery in /metrics',
      { timeoutMs: 15_000, intervalMs: 500 },
    );
    expect((await api.request(`/api/v1/integrations/webhooks/${webhookId}`, { token: other.token })).status).toBe(404);

    // The parked delivery must not keep running into the next tests: deleting the webhook releases it, to end.
    expect((await api.request(`/api/v1/integrations/webhooks/${webhookId}`, { method: 'DELETE', token: tenant.token })).status).toBe(204);
  });
});

describe('delivery capacity shared between tenants', () => {
  it("starts each delivery with its tenant as the task queue's fairness key (WorkflowExecutionStarted)", async () => {
    const tenant = await createTenant(api);
    const path = `/fairness/${tenant.tenantId}`;
    const webhookId = await createWebhook(tenant, receiver.url(path));
    const [eventId] = await appendEvents(tenant.tenantId, 1, 'fairness');
    await receiver.waitFor(() => receiver.on(path).length >= 1, 30_000, 'the delivery');
    const handle = (await api.deps.temporal.client()).workflow.getHandle(workflowIds.webhookDelivery(tenant.tenantId, deliveryIdFor(eventId, webhookId)));
    const [started] = (await handle.fetchHistory()).events ?? [];
    expect(started.workflowExecutionStartedEventAttributes?.priority?.fairnessKey).toBe(tenant.tenantId);
  });

  // In two of four full-suite runs one healthy delivery took 12-13 s, its first workflow task
  // waiting in the task queue behind the burst's. Every start now carries its tenant as the task
  // queue's fairness key (infra/task-fairness.ts), so that backlog is dispatched per tenant; the
  // slowest healthy delivery's history is printed if the bound is missed again. The one retry stays
  // until full-suite runs show it unused: alone, under a load average of 12 on 2 cores, one of
  // three runs never saw the burst hold its share (its circuits opened first), a setup miss.
  jest.retryTimes(1, { logErrorsBeforeRetry: true });
  it(`delivers every event of a healthy tenant within ${BOUND_MS / 1000} s while another tenant bursts into ${HUNG_WEBHOOKS} webhooks that never answer`, async () => {
    const hung = await startHungReceiver();
    const [attacker, victim] = await Promise.all([createTenant(api), createTenant(api)]);
    const hooks: string[] = [];
    try {
      for (let i = 0; i < HUNG_WEBHOOKS; i++) hooks.push(await createWebhook(attacker, hung.url(`/hang/${i}`)));
      // Its own path per run: a retried run must not count the first run's deliveries.
      const healthyPath = `/healthy/${victim.tenantId}`;
      await createWebhook(victim, receiver.url(healthyPath));

      await appendEvents(attacker.tenantId, BURST_EVENTS, 'burst');
      // The healthy tenant's events come once the burst holds the receiver's connections (the worst
      // moment), or once it has sent every endpoint the failures that open its circuit: on a slow
      // host the circuits can open, and the rest of the burst park, before the share fills.
      const share = Number(process.env.WEBHOOK_ATTEMPTS_PER_TENANT ?? 64);
      await until(
        async () => hung.stats(),
        ({ open, accepted }) => open >= Math.min(share, SATURATED) || accepted >= HUNG_WEBHOOKS * BREAKER_FAILURES,
        'the burst to hold its attempts',
        { timeoutMs: 30_000, intervalMs: 50 },
      );
      const eventAt = await pacedEvents(victim.tenantId, HEALTHY_EVENTS);
      await receiver.waitFor(() => firstArrivals(arrivalsOn(healthyPath)).size >= HEALTHY_EVENTS, 60_000, `the ${HEALTHY_EVENTS} healthy deliveries`);

      // Each event's latency is its first arrival. Delivery is at-least-once (docs/webhooks.md): on a
      // worker starved of CPU the SDK's work around an attempt can outlive the workflow task's
      // timeout, and the attempt is then sent again under the same webhook-id, which receivers
      // deduplicate on. A repeat is allowed, with that id, and its history printed below.
      const arrivals = arrivalsOn(healthyPath);
      const firstArrival = firstArrivals(arrivals);
      const latencies = [...firstArrival].map(([eventId, at]) => at - eventAt.get(eventId)!).sort((a, b) => a - b);
      const attempts = hung.stats();
      const dispatchWaits = await dispatchWaitsOf(eventAt);
      process.stderr.write(
        `[webhook-capacity] ${HUNG_WEBHOOKS} hung webhooks x ${BURST_EVENTS} events (${HUNG_WEBHOOKS * BURST_EVENTS} deliveries) against ${HEALTHY_EVENTS} healthy deliveries: ` +
          `healthy latency p50 ${percentile(latencies, 50)} ms, max ${latencies[latencies.length - 1]} ms ` +
          `(of which waiting for the dispatcher p50 ${percentile(dispatchWaits, 50)} ms, max ${dispatchWaits[dispatchWaits.length - 1]} ms); ` +
          `hung attempts in flight at most ${attempts.maxOpen} at once (share ${share}), ${attempts.accepted} sent in all\n`,
      );
      expect([...firstArrival.keys()].sort()).toEqual([...eventAt.keys()].sort());
      for (const eventId of firstArrival.keys()) {
        const repeats = arrivals.filter((arrival) => arrival.eventId === eventId);
        if (repeats.length === 1) continue;
        await printHistory(victim, eventId, eventAt, `healthy delivery received ${repeats.length} times (at ${repeats.map((r) => r.at - eventAt.get(eventId)!).join(', ')} ms)`);
        expect(new Set(repeats.map((r) => r.webhookId)).size).toBe(1);
      }
      if (latencies[latencies.length - 1] > BOUND_MS) {
        const [[slowestEvent, slowestMs]] = [...firstArrival].map(([eventId, at]) => [eventId, at - eventAt.get(eventId)!] as const).sort(([, x], [, y]) => y - x);
        await printHistory(victim, slowestEvent, eventAt, `slowest healthy delivery (${slowestMs} ms)`);
      }
      expect(latencies[latencies.length - 1]).toBeLessThanOrEqual(BOUND_MS);
      // The attacker's attempts held at most its share of the (one) worker's slots (without it: 16 per
      // webhook, 400). A freed slot's next attempt may connect before the receiver has seen the
      // previous connection close, hence the few over.
      expect(attempts.maxOpen).toBeLessThanOrEqual(share + CLOSING_IN_TRANSIT);
    } finally {
      await hung.close();
      // Its deliveries end at their next attempt (skipped), instead of running into the next tests.
      await deleteWebhooks(attacker, hooks);
    }
  });
});

/**
 * Deletes the tenant's webhooks and waits until none of their deliveries is parked any more
 * (deleting a webhook releases its parked deliveries, which end): a burst's workflows must not
 * run into the next test.
 */
async function deleteWebhooks(tenant: TestTenant, hooks: readonly string[]): Promise<void> {
  for (const id of hooks) await api.request(`/api/v1/integrations/webhooks/${id}`, { method: 'DELETE', token: tenant.token });
  await until(
    async () => Number((await api.deps.db('webhook_parked_deliveries').where({ tenant_id: tenant.tenantId }).count({ n: '*' }))[0].n),
    (n) => n === 0,
    'the parked deliveries of the deleted webhooks to end',
    { timeoutMs: 120_000, intervalMs: 1_000 },
  );
}

/** Cores the stack's worker and Temporal server used, each, over `ms` of wall time. */
async function coresOver(ms: number): Promise<Record<'worker' | 'temporal', number>> {
  const pids = stackPids();
  const before = { worker: processCpuMs(pids.worker), temporal: processCpuMs(pids.temporal) };
  const started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, ms));
  const elapsedMs = performance.now() - started;
  const used = (name: 'worker' | 'temporal') => (processCpuMs(pids[name]) - before[name]) / elapsedMs;
  return { worker: used('worker'), temporal: used('temporal') };
}

describe("a dead endpoint's parked backlog", () => {
  /** The other tenant's bound while the backlog is parked (the issue's: 2 s). */
  const PARKED_BOUND_MS = 2_000;
  /** Each CPU reading: one open period of the circuits, so each endpoint probes about once in it. */
  const CPU_WINDOW_MS = 30_000;
  /** The backlog counts as parked once this many of its 1 000 deliveries wait (the rest: probes out, and retries of the attempts sent before the circuits opened). */
  const PARKED_ENOUGH = 900;

  // Minutes: a CPU reading before and one during, the burst's parking between, and the release of the backlog to end.
  it(`costs the worker and Temporal next to nothing, and another tenant's deliveries arrive within ${PARKED_BOUND_MS / 1000} s`, async () => {
    const hung = await startHungReceiver();
    const [attacker, victim] = await Promise.all([createTenant(api), createTenant(api)]);
    const hooks: string[] = [];
    try {
      for (let i = 0; i < HUNG_WEBHOOKS; i++) hooks.push(await createWebhook(attacker, hung.url(`/parked/${i}`)));
      const healthyPath = `/parked-healthy/${victim.tenantId}`;
      await createWebhook(victim, receiver.url(healthyPath));
      const idle = await coresOver(CPU_WINDOW_MS);

      await appendEvents(attacker.tenantId, BURST_EVENTS, 'parked-burst');
      const state = () => api.request(`/api/v1/integrations/webhooks/${hooks[0]}`, { token: attacker.token });
      await until(
        async () => (await state()).body.parked_deliveries.tenant_count as number,
        (n) => n >= PARKED_ENOUGH,
        'the burst to park',
        { timeoutMs: 180_000, intervalMs: 1_000 },
      );
      // The steady state: the attempts sent until now (before the circuits opened, and the first probes) have had their
      // second attempt, 30 s later, parked; later probes are the steady state's own.
      const parkedAt = new Date();
      const pendingRetries = async () =>
        (
          await api.deps
            .db('webhook_deliveries')
            .where({ tenant_id: attacker.tenantId, attempt: 1 })
            .where('created_at', '<', parkedAt)
            .where('next_attempt_at', '>', new Date())
            .count({ n: '*' })
        )[0].n;
      await until(
        async () => Number(await pendingRetries()),
        (n) => n === 0,
        'the first retries of the burst to come due',
        { timeoutMs: 60_000, intervalMs: 1_000 },
      );
      const parkedCores = await coresOver(CPU_WINDOW_MS);
      const sentWhileParked = hung.stats().accepted;

      const eventAt = await pacedEvents(victim.tenantId, HEALTHY_EVENTS);
      await receiver.waitFor(() => firstArrivals(arrivalsOn(healthyPath)).size >= HEALTHY_EVENTS, 60_000, `the ${HEALTHY_EVENTS} healthy deliveries`);
      const latencies = [...firstArrivals(arrivalsOn(healthyPath))].map(([eventId, at]) => at - eventAt.get(eventId)!).sort((a, b) => a - b);
      const dispatchWaits = await dispatchWaitsOf(eventAt);
      const { parked_deliveries: parked, circuit_breaker: breaker } = (await state()).body;
      process.stderr.write(
        `[webhook-capacity] ${HUNG_WEBHOOKS} dead webhooks, ${BURST_EVENTS * HUNG_WEBHOOKS} deliveries, ${parked.tenant_count} parked: ` +
          `worker ${idle.worker.toFixed(2)} -> ${parkedCores.worker.toFixed(2)} cores, Temporal ${idle.temporal.toFixed(2)} -> ${parkedCores.temporal.toFixed(2)} cores; ` +
          `healthy latency p50 ${percentile(latencies, 50)} ms, max ${latencies[latencies.length - 1]} ms ` +
          `(of which waiting for the dispatcher p50 ${percentile(dispatchWaits, 50)} ms, max ${dispatchWaits[dispatchWaits.length - 1]} ms); ` +
          `${sentWhileParked} attempts sent to the dead receiver\n`,
      );

      // Visible: the webhook's own count and oldest, the tenant's count against its limit, and /metrics.
      expect(parked).toEqual({ count: expect.any(Number), oldest_parked_at: expect.any(String), tenant_count: expect.any(Number), tenant_limit: 10_000 });
      expect(parked.count).toBeGreaterThan(0);
      expect(parked.tenant_count).toBeGreaterThanOrEqual(PARKED_ENOUGH);
      expect(breaker.state).not.toBe('closed');
      const metrics = await until(
        async () => (await api.request('/metrics')).text,
        (text) => (sample(text, 'webhook_parked_deliveries') ?? 0) >= PARKED_ENOUGH,
        'the parked backlog in /metrics',
        { timeoutMs: 15_000, intervalMs: 500 },
      );
      expect(sample(metrics, 'webhook_parked_oldest_seconds')).toBeGreaterThan(0);
      // What the backlog costs once parked: a probe per endpoint every 30 s and a pass of the releaser a second. With each
      // deferred attempt retried every 30 s instead, the same backlog cost 1.49 cores more (worker and Temporal together).
      expect(parkedCores.worker + parkedCores.temporal - (idle.worker + idle.temporal)).toBeLessThan(0.5);
      expect(latencies).toHaveLength(HEALTHY_EVENTS);
      expect(latencies[latencies.length - 1]).toBeLessThanOrEqual(PARKED_BOUND_MS);
    } finally {
      await hung.close();
      await deleteWebhooks(attacker, hooks);
    }
  }, 360_000);
});
