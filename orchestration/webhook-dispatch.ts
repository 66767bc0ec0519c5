/**
 * The outbox dispatcher's unit of work: claim a batch of undispatched events (FOR UPDATE SKIP
 * LOCKED, so several dispatchers share the outbox without waiting on each other, and the claim
 * committed as a short lease on the rows, renewed while the batch runs), start one delivery
 * workflow per matching (event, webhook) and signal the machine agents the events trigger with no
 * transaction open, then record each event's outcome in a second short transaction. (Until
 * issue 19 one transaction stayed open across up to 200 Temporal calls, holding a pooled
 * connection and the rows' locks for seconds under load.) The delivery id is derived from the
 * event and the webhook, so if the dispatcher dies between a start and the record, the claim runs
 * out, the rows are claimed again and the same workflow ids are started again, which Temporal
 * refuses: a crash delays a delivery, never loses or doubles it.
 *
 * No tenant or item stalls another (issue 23): the batch is shared out between the tenants that
 * have events waiting (round robin, oldest first within each), every Temporal call has a
 * deadline, and an event whose start or signal fails is retried on its own with backoff and,
 * after MAX_DISPATCH_ATTEMPTS, parked with its error (GET /internal/outbox) while the rest of
 * the batch goes on. Only when Temporal cannot be reached at all does the whole batch wait.
 */
import { status } from '@grpc/grpc-js';
import type { Client } from '@temporalio/client';
import { Knex } from 'knex';
import { Db } from '../db/knex';
import { LEASE_RENEW_EVERY_MS, LEASE_TTL_MS, LeaseRenewal } from '../infra/lease-renewal';
import { causeChain, grpcStatusOf } from '../infra/error-chain';
import { RECEIVING_STATUSES, recentAnswers, type RecentAnswers } from '../db/queries/webhooks';
import type { StartToAttemptTimes } from '../infra/start-to-attempt';
import { deliveryIdFor } from '../domain/webhooks/delivery-id';
import { matches, type WebhookFilters } from '../domain/webhooks/matching';
import type { WebhookDeliveryInput } from '../workflows/webhook-delivery';
import { mapSettled } from './concurrency';
import { planAgentSignals, recordUnsignalledEvents, sendAgentSignals } from './machine-agents';
import { startWebhookDelivery } from './webhooks';

export const DEFAULT_DISPATCH_BATCH = 200;
/**
 * Delivery starts per batch, whatever the events fan out to: a batch's starts run before the next
 * batch is claimed, so an event of one tenant waits behind at most this many starts of another's
 * (an event to 25 webhooks is 25 starts; a batch of 40 such events, 1 000 starts, took 35 s on a loaded test host,
 * and the other tenant's events waited for all of them).
 */
export const DEFAULT_DELIVERIES_PER_BATCH = 50;
const DEFAULT_START_CONCURRENCY = 32;
/** Deadline of one start or signal: a hung call fails that item, not the batch. */
export const DEFAULT_CALL_DEADLINE_MS = 10_000;
/** Failures (other than Temporal being unreachable) before an event is parked. */
export const MAX_DISPATCH_ATTEMPTS = 8;
const MAX_RETRY_DELAY_S = 300;
/**
 * A claimed batch stays with its dispatcher while the dispatcher lives: the claim is a lease of
 * LEASE_TTL_MS, renewed while the batch's Temporal calls run (infra/lease-renewal.ts, as the
 * webhook leases are). A dispatcher killed mid-batch (SIGKILL, OOM) stops renewing, and its events
 * are claimed again within the TTL and restarted under the same workflow ids (refused if they had
 * started). Before, the claim had to outlast the batch's worst case (200 starts with 10 s
 * deadlines: 120 s), and a killed worker held its batch that long (`npm run bench -- kill`: a 4 s
 * burst took 123 s). A renewal that comes late (a stalled process) only lets another dispatcher
 * start the same ids again, which Temporal refuses.
 */
const CLAIM_TTL_S = LEASE_TTL_MS / 1000;

/**
 * gRPC UNAVAILABLE and DEADLINE_EXCEEDED: the server cannot be reached or did not answer in time
 * (the client retries UNAVAILABLE until the deadline); no item is to blame.
 */
const TRANSIENT_GRPC_CODES: ReadonlySet<number> = new Set([status.UNAVAILABLE, status.DEADLINE_EXCEEDED]);

export interface OutboxEventRow {
  id: string;
  tenant_id: string;
  type: string;
  data: unknown;
  created_at: Date;
}

/** An event claimed by a dispatcher, with its failed attempts so far. */
interface ClaimedEvent extends OutboxEventRow {
  attempts: number;
  /** Its own next attempt (after a failed dispatch), before the claim. */
  next_attempt_at: Date | null;
}

export interface ReceivingWebhook {
  id: string;
  tenant_id: string;
  events: string[];
  filters: WebhookFilters;
  created_at: Date;
}

export interface DispatchResult {
  events: number;
  deliveries: number;
  /** Starts Temporal refused as already started: redispatch after a crash. */
  alreadyStarted: number;
  /** Events counted on a cooling-down agent run instead of signalled. */
  suppressed: number;
  /** Events left for a later attempt, and those parked in this batch. */
  retrying: number;
  parked: number;
  /** Due events left for the next batch: their deliveries did not fit in this one's budget. */
  leftOver: number;
}

/** Thrown when every call of a batch found Temporal unreachable: the whole batch waits. */
export class TemporalUnreachableError extends Error {
  constructor(cause: unknown) {
    super(`Temporal unreachable: ${describeError(cause)}`, { cause });
  }
}

/**
 * Which deliveries a batch of events makes: each event to every receiving webhook of its tenant
 * that subscribes to it and existed when the event was stored.
 */
export function planDeliveries(events: readonly OutboxEventRow[], webhooks: readonly ReceivingWebhook[]): WebhookDeliveryInput[] {
  const byTenant = new Map<string, ReceivingWebhook[]>();
  for (const webhook of webhooks) byTenant.set(webhook.tenant_id, [...(byTenant.get(webhook.tenant_id) ?? []), webhook]);
  return events.flatMap((event) =>
    (byTenant.get(event.tenant_id) ?? [])
      .filter((webhook) => webhook.created_at <= event.created_at && matches(webhook, { type: event.type, data: event.data }))
      .map((webhook) => ({ tenantId: event.tenant_id, webhookId: webhook.id, eventId: event.id, deliveryId: deliveryIdFor(event.id, webhook.id) })),
  );
}

/**
 * The events of a batch (in its fair, interleaved order) whose deliveries fit within `budget`
 * starts, and those deliveries. An event that does not fit is skipped, so a smaller event of
 * another tenant behind it still goes; the first event always goes, however many it makes.
 */
export function withinDeliveryBudget<E extends OutboxEventRow>(
  events: readonly E[],
  webhooks: readonly ReceivingWebhook[],
  budget: number,
): { events: E[]; deliveries: WebhookDeliveryInput[] } {
  const byEvent = new Map<string, WebhookDeliveryInput[]>();
  for (const delivery of planDeliveries(events, webhooks)) byEvent.set(delivery.eventId, [...(byEvent.get(delivery.eventId) ?? []), delivery]);
  const kept: E[] = [];
  const deliveries: WebhookDeliveryInput[] = [];
  for (const event of events) {
    const planned = byEvent.get(event.id) ?? [];
    if (kept.length > 0 && deliveries.length + planned.length > budget) continue;
    kept.push(event);
    deliveries.push(...planned);
  }
  return { events: kept, deliveries };
}

export async function dispatchOutboxBatch(
  db: Db,
  client: Client,
  options: {
    batchSize?: number;
    deliveriesPerBatch?: number;
    startConcurrency?: number;
    callDeadlineMs?: number;
    eagerStart?: boolean;
    /** This process's start-to-attempt times: each eager start is noted, and the slowest recent one chooses the task timeout. */
    startToAttempt?: StartToAttemptTimes;
    /** How often the claim is renewed while the batch's calls run (tests shorten it). */
    claimRenewEveryMs?: number;
  } = {},
): Promise<DispatchResult> {
  const deadlineMs = options.callDeadlineMs ?? DEFAULT_CALL_DEADLINE_MS;
  const withDeadline = <T>(call: () => Promise<T>) => client.withDeadline(Date.now() + deadlineMs, call);

  // 1. Claim (a short transaction): the batch is ours while we renew it, then any dispatcher's again.
  const claim = await db.transaction(async (tx) => {
    const candidates = await claimFairBatch(tx, options.batchSize ?? DEFAULT_DISPATCH_BATCH);
    if (candidates.length === 0) return null;
    const webhooks: ReceivingWebhook[] = await tx('webhooks')
      .whereIn('tenant_id', [...new Set(candidates.map((event) => event.tenant_id))])
      .whereIn('status', RECEIVING_STATUSES)
      .select('id', 'tenant_id', 'events', 'filters', 'created_at');
    // Events beyond the starts budget stay due (their row locks go at commit) for the next batch.
    const { events, deliveries } = withinDeliveryBudget(candidates, webhooks, options.deliveriesPerBatch ?? DEFAULT_DELIVERIES_PER_BATCH);
    await tx('outbox_events')
      .whereIn(
        'id',
        events.map((event) => event.id),
      )
      .update({ next_attempt_at: tx.raw('now() + make_interval(secs => ?)', [CLAIM_TTL_S]) });
    return { events, deliveries, leftOver: candidates.length - events.length, agents: await planAgentSignals(tx, events) };
  });
  if (!claim) return { events: 0, deliveries: 0, alreadyStarted: 0, suppressed: 0, retrying: 0, parked: 0, leftOver: 0 };
  const { events, deliveries, agents, leftOver } = claim;
  // Each delivery's task timeout follows how its receiver answered lately (orchestration/webhooks.ts);
  // without the log (the database failing now), every delivery gets the timeout that suits any receiver.
  const answers = await recentAnswers(db, [...new Map(deliveries.map((d) => [d.webhookId, d])).values()]).catch(() => new Map<string, RecentAnswers>());

  // 2. The Temporal calls, with no transaction open (deterministic ids: a repeat is refused), the claim renewed meanwhile.
  const failures = new Map<string, unknown>();
  const claimRenewal = new LeaseRenewal((ids) => renewClaim(db, ids), options.claimRenewEveryMs ?? LEASE_RENEW_EVERY_MS);
  for (const event of events) claimRenewal.granted(event.id);
  let started: PromiseSettledResult<'started' | 'already_started'>[];
  try {
    started = await mapSettled(deliveries, options.startConcurrency ?? DEFAULT_START_CONCURRENCY, (input) =>
      withDeadline(() => {
        if (options.eagerStart) options.startToAttempt?.started(input.deliveryId);
        return startWebhookDelivery(client, input, {
          eager: options.eagerStart,
          recentAnswers: answers.get(input.webhookId),
          startToAttemptMs: options.startToAttempt?.slowestRecentMs(),
        });
      }),
    );
    started.forEach((result, index) => result.status === 'rejected' && failures.set(deliveries[index].eventId, result.reason));
    for (const [eventId, err] of await sendAgentSignals(client, agents.signals, withDeadline)) if (!failures.has(eventId)) failures.set(eventId, err);
  } finally {
    // No renewal may land after the outcomes below are recorded (it would move a retry's time).
    for (const event of events) claimRenewal.released(event.id);
    await claimRenewal.idle();
  }

  // Every event that needed Temporal failed to reach it: the batch waits as a whole, its rows as they were.
  const needingTemporal = new Set([...deliveries.map((d) => d.eventId), ...agents.signals.map((s) => s.eventId)]);
  const unreachable = [...needingTemporal].map((id) => failures.get(id)).filter(isUnreachable);
  if (needingTemporal.size > 0 && unreachable.length === needingTemporal.size) {
    await releaseClaim(db, events);
    throw new TemporalUnreachableError(unreachable[0]);
  }

  // 3. Record each event's outcome (a short transaction).
  const parked = await db.transaction(async (tx) => {
    await recordUnsignalledEvents(tx, agents.suppressedByRun);
    const done = events.filter((event) => !failures.has(event.id)).map((event) => event.id);
    if (done.length > 0) await tx('outbox_events').whereIn('id', done).update({ dispatched_at: tx.fn.now(), next_attempt_at: null });
    let count = 0;
    for (const event of events) {
      if (!failures.has(event.id)) continue;
      const err = failures.get(event.id);
      count += (await recordFailure(tx, event, err, isUnreachable(err))) ? 1 : 0;
    }
    return count;
  });
  return {
    events: events.length,
    deliveries: deliveries.length,
    alreadyStarted: started.filter((o) => o.status === 'fulfilled' && o.value === 'already_started').length,
    suppressed: [...agents.suppressedByRun.values()].reduce((a, b) => a + b, 0),
    retrying: failures.size - parked,
    parked,
    leftOver,
  };
}

/**
 * Milliseconds until the next undispatched event falls due: a claim that runs out (its dispatcher
 * died) or a failed event's retry; `null` when none is waiting for a time. The dispatcher sleeps
 * until then rather than until its next fallback poll, which took up to 2 s more to pick up a dead
 * dispatcher's batch (`npm run bench -- kill`). Undispatched rows are few outside a backlog, and
 * during one the dispatcher does not sleep.
 */
export async function msUntilNextDue(db: Db): Promise<number | null> {
  const { rows } = await db.raw<{ rows: Array<{ ms: number | null }> }>(
    `select ceil(extract(epoch from min(next_attempt_at) - now()) * 1000)::int as ms
       from outbox_events where dispatched_at is null and next_attempt_at > now()`,
  );
  return rows[0]?.ms ?? null;
}

/** Extends the claim on these events by a TTL from now; events already recorded are left alone. */
async function renewClaim(db: Db, ids: string[]): Promise<void> {
  await db.raw(`update outbox_events set next_attempt_at = now() + make_interval(secs => ?) where id = any(?::uuid[]) and dispatched_at is null`, [CLAIM_TTL_S, ids]);
}

/** Gives the claimed rows back as they were (their own next attempt), for the next pass. */
async function releaseClaim(db: Db, events: readonly ClaimedEvent[]): Promise<void> {
  await db.raw(
    `update outbox_events o set next_attempt_at = c.next_attempt_at
       from unnest(?::uuid[], ?::timestamptz[]) as c(id, next_attempt_at)
      where o.id = c.id`,
    // pg sends a JavaScript array with nulls as an array literal with NULLs.
    [events.map((e) => e.id), events.map((e) => e.next_attempt_at?.toISOString() ?? null) as string[]],
  );
}

/**
 * Up to `batchSize` due events, shared out between the tenants with events waiting (each gets an
 * equal share, and what one does not need goes to the others), oldest first within a tenant, the
 * batch interleaving them (round robin): one tenant's burst adds at most a batch of latency to
 * another's first attempt. A suspended tenant's events are held: not claimed until it is resumed.
 */
async function claimFairBatch(tx: Knex.Transaction, batchSize: number): Promise<ClaimedEvent[]> {
  const due = `o.dispatched_at is null and (o.next_attempt_at is null or o.next_attempt_at <= now())`;
  const waiting = await tx.raw<{ rows: Array<{ tenant_id: string; n: number }> }>(
    `select t.id as tenant_id, w.n from tenants t
     cross join lateral (select count(*)::int as n from (select 1 from outbox_events o where o.tenant_id = t.id and ${due} limit ?) x) w
     where w.n > 0 and t.suspended_at is null`,
    [batchSize],
  );
  const quotas = fairShares(waiting.rows, batchSize);
  if (quotas.length === 0) return [];
  const { rows } = await tx.raw<{ rows: ClaimedEvent[] }>(
    `select e.id, e.tenant_id, e.type, e.data, e.created_at, e.attempts, e.next_attempt_at
     from unnest(?::uuid[], ?::int[]) as q(tenant_id, quota)
     cross join lateral (
       select o.id, o.tenant_id, o.type, o.data, o.created_at, o.attempts, o.next_attempt_at
       from outbox_events o
       where o.tenant_id = q.tenant_id and ${due}
       order by o.created_at
       limit q.quota
       for update of o skip locked
     ) e
     order by row_number() over (partition by e.tenant_id order by e.created_at), e.created_at`,
    [quotas.map((q) => q.tenant_id), quotas.map((q) => q.quota)],
  );
  return rows;
}

/** Max-min fair shares of `capacity` between demands: equal shares, the unused part redistributed. */
export function fairShares<T extends { n: number }>(demands: readonly T[], capacity: number): Array<T & { quota: number }> {
  const quota = new Map<T, number>(demands.map((d) => [d, 0]));
  let left = capacity;
  let open = demands.filter((d) => d.n > 0);
  while (left > 0 && open.length > 0) {
    const share = Math.max(1, Math.floor(left / open.length));
    for (const d of open) {
      const take = Math.min(share, d.n - quota.get(d)!, left);
      quota.set(d, quota.get(d)! + take);
      left -= take;
    }
    open = open.filter((d) => quota.get(d)! < d.n);
  }
  return demands.filter((d) => quota.get(d)! > 0).map((d) => ({ ...d, quota: quota.get(d)! }));
}

/** Schedules the event's next attempt, or parks it; returns whether it was parked. */
async function recordFailure(tx: Knex.Transaction, event: ClaimedEvent, err: unknown, unreachable: boolean): Promise<boolean> {
  // Temporal being unreachable is nobody's fault: retry soon, never park for it.
  const attempts = unreachable ? event.attempts : event.attempts + 1;
  const lastError = describeError(err);
  if (attempts >= MAX_DISPATCH_ATTEMPTS) {
    await tx('outbox_events').where({ id: event.id }).update({ attempts, last_error: lastError, parked_at: tx.fn.now(), dispatched_at: tx.fn.now(), next_attempt_at: null });
    return true;
  }
  const delaySeconds = unreachable ? 5 : Math.min(MAX_RETRY_DELAY_S, 2 ** attempts);
  await tx('outbox_events')
    .where({ id: event.id })
    .update({ attempts, last_error: lastError, next_attempt_at: tx.raw('now() + make_interval(secs => ?)', [delaySeconds]) });
  return false;
}

function isUnreachable(err: unknown): boolean {
  const code = grpcStatusOf(err);
  return code !== null && TRANSIENT_GRPC_CODES.has(code);
}

/** What failed, for the operator: each error's class and message down its causes, bounded. Event data is never in it. */
export function describeError(err: unknown): string {
  return [...causeChain(err)]
    .map((e) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e)))
    .join(' <- ')
    .slice(0, 500);
}
