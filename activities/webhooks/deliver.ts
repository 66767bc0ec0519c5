/**
 * Activities of the webhook delivery workflow. `deliverWebhookAttempt` is one attempt: it loads
 * the webhook and the event, signs the canonical payload, POSTs it, writes the delivery record and
 * returns what the receiver answered. It never throws for an HTTP outcome (the workflow judges
 * those and owns the schedule); it throws only for infrastructure trouble (database down), when
 * its tenant has its share of this process's attempts in flight and waiting (TenantBusy, see
 * infra/tenant-limiter.ts), when its webhook stayed at its in-flight limit (16) for the 2 s it may
 * wait in this process (or its waiting room, sized by the receiver's speed, was full), and while
 * its endpoint's circuit is open (WebhookCircuitOpen, domain/webhooks/circuit-breaker.ts).
 * Temporal retries those later, so none of them counts as an attempt of the schedule. An attempt
 * that may park (`parkable`, the current workflow type) is parked instead while its circuit is open
 * or while older deliveries of its endpoint are parked (domain/webhooks/parking.ts): it answers
 * `parked` and its workflow waits for the releaser, at no cost.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { Runtime } from '@temporalio/worker';
import { appendAudit } from '../../db/audit';
import { Db, Queryable } from '../../db/knex';
import { insertNotification } from '../../db/notifications';
import { appendEvent } from '../../db/outbox';
import {
  deliveryPolicyOf,
  findWebhook,
  RECEIVING_STATUSES,
  SECRET_NOT_BOUND,
  signingSecrets,
  webhookFailureEmails,
  webhookOwnerEmails,
  WebhookRow,
  WebhookStatus,
} from '../../db/queries/webhooks';
import { tenantScope } from '../../db/tenant-scope';
import { classifyOutcome, DeliveryOutcome, DeliveryPolicy, HttpAttemptResult } from '../../domain/webhooks/outcome';
import { buildPayload, CanonicalPayload, JsonObject, serializePayload } from '../../domain/webhooks/payload';
import { planNextAttempt } from '../../domain/webhooks/schedule';
import { signDelivery } from '../../domain/webhooks/signing';
import { admit, DEFAULT_BREAKER, type BreakerSettings, type BreakerState, verdictOf } from '../../domain/webhooks/circuit-breaker';
import { admitThroughBreaker, breakerOf, recordBreakerVerdict } from '../../db/queries/webhook-breakers';
import { forgetParked, parkDelivery } from '../../db/queries/webhook-parking';
import { MAX_IN_FLIGHT_PER_WEBHOOK, PARKED_BACKLOG_FULL } from '../../domain/webhooks/parking';
import type { Resolver } from '../../infra/outbound/destination-guard';
import { tenantLimiter, type TenantLimits } from '../../infra/tenant-limiter';
import { countCircuitOpened, countWebhookAttempt } from '../../infra/webhook-metrics';
import { LeaseRenewal, LEASE_TTL_MS } from '../../infra/lease-renewal';
import { LeaseWaiters } from './lease-waiters';
import type { StartToAttemptTimes } from '../../infra/start-to-attempt';
import { DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_TIMEOUT_MS, postSigned } from '../../infra/outbound/safe-http';

/** Short: the process renews the leases it holds (infra/lease-renewal.ts), so only a dead worker's lease expires, within this. */
const LEASE_TTL = `${LEASE_TTL_MS / 1000} seconds`;
/** How long an attempt waits in this process for a lease of a busy webhook before Temporal retries it. */
export const LEASE_WAIT_MS = 2_000;
/** Re-check the database this often while waiting (leases released by other worker processes). */
const LEASE_RECHECK_MS = 100;
/**
 * Attempts of one webhook that may wait for a lease in this process: half the webhook worker's
 * 400 local-activity slots (workers/options.ts), so a burst to one receiver leaves the other
 * half to the other webhooks. The room within it follows the receiver's speed (lease-waiters.ts).
 */
export const MAX_WAITERS_PER_WEBHOOK = 200;
/**
 * One tenant's share of this process's attempts (config.outbound): 64 sending and 64 waiting of
 * the webhook worker's 400 slots, so a tenant whose receivers never answer holds under a third
 * of them and three such tenants still leave room for the others. It waits as long as a webhook
 * lease may be waited for.
 */
export const DEFAULT_TENANT_LIMITS: TenantLimits = { maxInFlight: 64, maxWaiting: 64, maxWaitMs: LEASE_WAIT_MS };
/** An open circuit's deferred attempts come back spread over this much after the probe may go (no herd). */
const DEFER_SPREAD_MS = 5_000;
/**
 * One tenant's parked deliveries, all its webhooks together (WEBHOOK_PARKED_PER_TENANT): past it a
 * delivery that would park is recorded as failed (`parked_backlog_full`) and its workflow ends; the
 * recover route sends it again. docs/decisions/webhook-parking.md says why this figure.
 */
export const DEFAULT_MAX_PARKED_PER_TENANT = 10_000;
/** Retry delays above the workflow's maximum interval are not honoured by every SDK: keep within it. */
const MAX_DEFER_MS = 60_000;
const SYSTEM_ACTOR = { type: 'system', id: 'webhook-delivery' } as const;

export interface WebhookDeliveryDeps {
  db: Db;
  dataEncryptionKey: Buffer;
  /** Development setting: loopback and private destinations allowed. */
  allowPrivateDestinations: boolean;
  /** Starts the delivery workflow of a queued notification row (idempotent by its id). */
  startNotification(tenantId: string, notificationId: string): Promise<void>;
  maxInFlightPerWebhook?: number;
  /** This process's start-to-attempt times: a first attempt's beginning is noted (infra/start-to-attempt.ts). */
  startToAttempt?: StartToAttemptTimes;
  /** Tests fake name resolution here. */
  resolver?: Resolver;
  /** The attempt's deadline (WEBHOOK_RESPONSE_TIMEOUT_MS) and its connect deadline (WEBHOOK_CONNECT_TIMEOUT_MS). */
  timeoutMs?: number;
  connectTimeoutMs?: number;
  /** One tenant's share of this process's attempts; the process shares one limiter (the first caller's limits). */
  tenantLimits?: TenantLimits;
  /** Failures that open a circuit and how long it stays open (the probe's claim lasts as long as a lease). */
  breaker?: Partial<Pick<BreakerSettings, 'failureThreshold' | 'openMs'>>;
  /** One tenant's parked deliveries at most (DEFAULT_MAX_PARKED_PER_TENANT). */
  maxParkedPerTenant?: number;
}

/** Ids only: the workflow history never holds a URL, a body or a secret. */
export interface DeliveryRef {
  tenantId: string;
  webhookId: string;
  eventId: string;
  deliveryId: string;
  /** Set on a redelivery: the delivery it repeats. */
  redeliveryOf?: string;
}

export interface AttemptInput extends DeliveryRef {
  attempt: number;
  /** Set by the workflow type that waits for a release: the attempt parks instead of being deferred. */
  parkable?: true;
}

export type SkipReason = 'webhook_deleted' | 'webhook_paused' | 'webhook_disabled' | 'event_missing' | typeof PARKED_BACKLOG_FULL;

export type AttemptReport =
  /**
   * `result` is stripped of the response body and error texts (they are in the delivery record).
   * `policy` is the webhook's at the time of the attempt, so a changed opt-in applies from the next one.
   */
  | { kind: 'attempted'; result: HttpAttemptResult; webhookStatus: WebhookStatus; policy: DeliveryPolicy }
  | { kind: 'skipped'; reason: SkipReason }
  /** Not attempted: the delivery waits for a release naming `ticket` (a parkable attempt only). */
  | { kind: 'parked'; ticket: string };

interface EventRow {
  id: string;
  tenant_id: string;
  type: string;
  data: JsonObject;
  occurred_at: Date;
  /** When the outbox stored it: the order parked deliveries are released in. */
  created_at: Date;
}

export function createWebhookDeliveryActivities(deps: WebhookDeliveryDeps) {
  const { db } = deps;
  const maxInFlight = deps.maxInFlightPerWebhook ?? MAX_IN_FLIGHT_PER_WEBHOOK;
  const tenants = tenantLimiter('webhook_attempts', deps.tenantLimits ?? DEFAULT_TENANT_LIMITS);
  const breakerSettings: BreakerSettings = { ...DEFAULT_BREAKER, ...deps.breaker };
  const maxParked = deps.maxParkedPerTenant ?? DEFAULT_MAX_PARKED_PER_TENANT;
  const waiters = new LeaseWaiters({
    maxInFlight,
    waitMs: LEASE_WAIT_MS,
    recheckMs: LEASE_RECHECK_MS,
    maxWaiters: MAX_WAITERS_PER_WEBHOOK,
    // Until the receiver's speed is known here: the fixed room this replaced.
    initialWaiters: 4 * maxInFlight,
  });
  const renewal = new LeaseRenewal(
    async (deliveryIds) => {
      await db.raw('update webhook_delivery_leases set expires_at = now() + ?::interval where delivery_id = any(?::uuid[])', [LEASE_TTL, deliveryIds]);
    },
    undefined,
    // Outside any activity's context: the runtime's logger (workers/telemetry.ts sends it where the process logs).
    (error) => Runtime.instance().logger.warn('webhook leases not renewed', { error: error.message }),
  );

  /**
   * Loads the attempt, waiting a bounded time in this process while the webhook is at its limit.
   * A parkable attempt behind parked deliveries of its endpoint parks too (in event order). A
   * circuit that is not closed is asked first: it makes the attempt the probe, or defers it
   * (parked, or thrown for a retry).
   */
  async function loadWithLease(input: AttemptInput) {
    const deadline = Date.now() + LEASE_WAIT_MS;
    for (;;) {
      const loaded = await loadAttempt(db, input, maxInFlight);
      const mayRun = loaded && RECEIVING_STATUSES.includes(loaded.webhook.status) && loaded.event;
      if (!mayRun) return loaded;
      if (loaded.queuedBehind) return { ...loaded, park: true };
      if (!loaded.leased && loaded.breaker && loaded.breaker.state !== 'closed') {
        // A circuit that, as loaded, defers this attempt parks it with no lock taken: the circuit's row is
        // locked only to claim the probe (a burst's attempts would otherwise queue on it, holding connections).
        if (input.parkable && admit(loaded.breaker, input.deliveryId, new Date(), breakerSettings).kind === 'defer') return { ...loaded, park: true };
        const admission = await admitThroughBreaker(db, input, input.deliveryId, breakerSettings);
        if (admission.kind === 'defer' && input.parkable) return { ...loaded, park: true };
        if (admission.kind === 'defer') throw circuitOpen(input.webhookId, admission.delayMs);
        loaded.leased = await acquireLease(db, input, maxInFlight);
      }
      if (loaded.leased) return loaded;
      const remaining = deadline - Date.now();
      const waited = remaining > 0 ? waiters.wait(input.webhookId, remaining) : undefined;
      if (!waited) throw busy(input.webhookId);
      await waited;
    }
  }

  /** The delivery ends without an attempt: it is no longer parked. */
  async function skipped(input: AttemptInput, reason: SkipReason): Promise<AttemptReport> {
    if (input.parkable) await forgetParked(db, input.tenantId, input.deliveryId);
    return { kind: 'skipped', reason };
  }

  /** Parks the delivery, or, past its tenant's bound, records it failed without sending it. */
  async function park(input: AttemptInput, webhook: WebhookRow, event: EventRow): Promise<AttemptReport> {
    const parking = await parkDelivery(db, { ...input, eventAt: event.created_at }, maxParked);
    if (parking.kind === 'parked') return { kind: 'parked', ticket: parking.ticket };
    await recordNotSent(db, input, payloadOf(event), PARKED_BACKLOG_FULL, `not sent: the tenant already has its maximum of ${maxParked} parked deliveries`);
    Context.current().log.warn('delivery not parked: its tenant has its maximum of parked deliveries', { webhookId: webhook.id, max: maxParked });
    return { kind: 'skipped', reason: PARKED_BACKLOG_FULL };
  }

  async function deliverAttempt(input: AttemptInput): Promise<AttemptReport> {
    const loaded = await loadWithLease(input);
    if (!loaded) return skipped(input, 'webhook_deleted');
    const { webhook, event, leased } = loaded;
    if (webhook.status === 'paused') return skipped(input, 'webhook_paused');
    if (webhook.status === 'disabled') return skipped(input, 'webhook_disabled');
    if (!event) return skipped(input, 'event_missing');
    if ('park' in loaded) return park(input, webhook, event);
    if (!leased) throw busy(webhook.id);

    const hold = waiters.hold(webhook.id);
    renewal.granted(input.deliveryId);
    let released = false;
    try {
      const payload = payloadOf(event);
      const result = await hold.receiver(() => send(deps, webhook, payload, input.deliveryId));
      const policy = deliveryPolicyOf(webhook);
      countWebhookAttempt(result, policy);
      await recordAttemptAndRelease(db, input, payload, result, policy);
      released = true;
      hold.release();
      if (!(await webhookKept(db, input))) return skipped(input, 'webhook_deleted');
      // The attempt is recorded: a lost verdict (database trouble now) costs the circuit one count, never a resend.
      const opened = await recordBreakerVerdict(db, input, input.deliveryId, verdictOf(result), loaded.breaker, breakerSettings).catch((err) => {
        Context.current().log.warn('circuit breaker verdict not recorded', { error: (err as Error).message });
        return false;
      });
      if (opened) countCircuitOpened();
      return { kind: 'attempted', result: withoutTexts(result), webhookStatus: webhook.status, policy };
    } finally {
      renewal.released(input.deliveryId);
      if (!released) await db('webhook_delivery_leases').where({ delivery_id: input.deliveryId }).delete();
      hold.release();
    }
  }

  return {
    /** Within its tenant's share of this process's attempts (a refusal is retried later, see above). */
    async deliverWebhookAttempt(input: AttemptInput): Promise<AttemptReport> {
      // A first attempt beginning here measures how fast this process turned its start around.
      if (input.attempt === 1) deps.startToAttempt?.attemptBegins(input.deliveryId);
      return tenants.run(input.tenantId, () => deliverAttempt(input));
    },
    /**
     * After the fifth failed attempt: active → failing, once per failing episode. The transition
     * writes the `webhook.failing` event and queues one notification to the webhook's owner, whose
     * workflow is started after the commit. A retried activity (or a second exhausted delivery
     * racing the first) finds the episode's notification still queued and starts it again, which
     * is idempotent: the notification is sent once.
     */
    async markWebhookFailing(input: DeliveryRef): Promise<{ failing: boolean; notified: boolean }> {
      const episode = await db.transaction(async (tx) => {
        const [changed] = await tx('webhooks')
          .where({ tenant_id: input.tenantId, id: input.webhookId, status: 'active' })
          .update({ status: 'failing', failing_since: tx.fn.now(), updated_at: tx.fn.now() })
          .returning(['failing_since']);
        const webhook = await findWebhook(tenantScope(tx, input.tenantId), input.webhookId);
        if (!webhook || webhook.status !== 'failing' || !webhook.failing_since) return null;
        const key = `webhook.failing/${webhook.id}/${webhook.failing_since.toISOString()}`;
        if (changed) {
          await appendEvent(tx, {
            tenantId: input.tenantId,
            type: 'webhook.failing',
            data: { webhook_id: webhook.id, delivery_id: input.deliveryId, failing_since: webhook.failing_since.toISOString() },
            source: 'webhooks',
            idempotencyKey: key,
          });
          await appendAudit(tx, {
            tenantId: input.tenantId,
            actor: SYSTEM_ACTOR,
            action: 'webhook.failing',
            resourceType: 'webhook',
            resourceId: webhook.id,
            requestId: null,
            details: { delivery_id: input.deliveryId },
          });
        }
        return { notificationId: await queueWebhookAlert(tx, webhook, key, failingMessage(webhook)) };
      });
      if (!episode) return { failing: false, notified: false };
      if (episode.notificationId) await deps.startNotification(input.tenantId, episode.notificationId);
      return { failing: true, notified: episode.notificationId !== null };
    },

    /** A success while failing ends the episode: failing → active. */
    async markWebhookRecovered(input: DeliveryRef): Promise<{ recovered: boolean }> {
      return db.transaction(async (tx) => {
        const changed = await tx('webhooks')
          .where({ tenant_id: input.tenantId, id: input.webhookId, status: 'failing' })
          .update({ status: 'active', failing_since: null, updated_at: tx.fn.now() });
        if (changed === 0) return { recovered: false };
        await appendAudit(tx, {
          tenantId: input.tenantId,
          actor: SYSTEM_ACTOR,
          action: 'webhook.recovered',
          resourceType: 'webhook',
          resourceId: input.webhookId,
          requestId: null,
          details: { delivery_id: input.deliveryId },
        });
        return { recovered: true };
      });
    },

    /** 410 Gone on a webhook that opted in (`disable_on_gone`): the endpoint no longer exists. */
    async disableWebhook(input: DeliveryRef): Promise<{ disabled: boolean }> {
      return db.transaction(async (tx) => {
        const changed = await tx('webhooks')
          .where({ tenant_id: input.tenantId, id: input.webhookId })
          .whereIn('status', ['active', 'failing'])
          .update({ status: 'disabled', disabled_reason: 'gone', failing_since: null, updated_at: tx.fn.now() });
        if (changed === 0) return { disabled: false };
        await appendAudit(tx, {
          tenantId: input.tenantId,
          actor: SYSTEM_ACTOR,
          action: 'webhook.disabled',
          resourceType: 'webhook',
          resourceId: input.webhookId,
          requestId: null,
          details: { delivery_id: input.deliveryId, reason: 'gone' },
        });
        return { disabled: true };
      });
    },
  };
}

export type WebhookDeliveryActivities = ReturnType<typeof createWebhookDeliveryActivities>;

async function send(deps: WebhookDeliveryDeps, webhook: WebhookRow, payload: CanonicalPayload, deliveryId: string): Promise<HttpAttemptResult> {
  const body = serializePayload(payload);
  const now = new Date();
  const secrets = signingSecrets(webhook, deps.dataEncryptionKey, now);
  if (!secrets) return SECRET_NOT_BOUND;
  const headers = signDelivery({
    secrets,
    deliveryId,
    timestamp: Math.floor(now.getTime() / 1000),
    body,
  });
  return postSigned({
    url: webhook.url,
    headers: { ...headers },
    body,
    allowPrivate: deps.allowPrivateDestinations,
    resolver: deps.resolver,
    timeoutMs: deps.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    connectTimeoutMs: deps.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
  });
}

/**
 * The webhook, the event, its circuit (null: never failed), whether a parkable attempt is behind
 * parked deliveries of its endpoint (it is not itself a released one, and others wait for their
 * release) and, when the attempt may run, a lease: one round trip. The lease is taken only for a
 * receiving webhook, an existing event, a closed circuit and no queue ahead, so a skipped, deferred
 * or parked attempt holds none. Undefined when the webhook does not exist (deleted).
 */
async function loadAttempt(
  db: Db,
  input: AttemptInput,
  maxInFlight: number,
): Promise<{ webhook: WebhookRow; event?: EventRow; breaker: BreakerState | null; queuedBehind: boolean; leased: boolean } | undefined> {
  const { rows } = await db.raw(
    `select w.*, e.id as event_id, e.type as event_type, e.data as event_data, e.occurred_at as event_occurred_at, e.created_at as event_created_at,
            b.state as breaker_state, b.since as breaker_since, b.consecutive_failures as breaker_failures,
            b.probe_delivery_id as breaker_probe_delivery_id, b.probe_expires_at as breaker_probe_expires_at,
            q.queued_behind,
            case when w.status in ('active', 'failing') and e.id is not null and coalesce(b.state, 'closed') = 'closed' and not q.queued_behind
                 then webhook_acquire_lease(w.id, ?, ?, ?::interval) else false end as leased
       from webhooks w
       left join outbox_events e on e.tenant_id = w.tenant_id and e.id = ?
       left join webhook_circuit_breakers b on b.tenant_id = w.tenant_id and b.webhook_id = w.id
       cross join lateral (
         select ?::boolean
                and not exists (select 1 from webhook_parked_deliveries s where s.tenant_id = w.tenant_id and s.delivery_id = ? and s.released_at is not null)
                and exists (select 1 from webhook_parked_deliveries o
                             where o.tenant_id = w.tenant_id and o.webhook_id = w.id and o.released_at is null and o.delivery_id <> ?) as queued_behind
       ) q
      where w.tenant_id = ? and w.id = ?`,
    [input.deliveryId, maxInFlight, LEASE_TTL, input.eventId, input.parkable === true, input.deliveryId, input.deliveryId, input.tenantId, input.webhookId],
  );
  if (rows.length === 0) return undefined;
  const {
    event_id,
    event_type,
    event_data,
    event_occurred_at,
    event_created_at,
    queued_behind,
    breaker_state,
    breaker_since,
    breaker_failures,
    breaker_probe_delivery_id,
    breaker_probe_expires_at,
    leased,
    ...webhook
  } = rows[0];
  const event: EventRow | undefined = event_id
    ? { id: event_id, tenant_id: input.tenantId, type: event_type, data: event_data, occurred_at: event_occurred_at, created_at: event_created_at }
    : undefined;
  const breaker = breaker_state
    ? breakerOf({
        state: breaker_state,
        since: breaker_since,
        consecutive_failures: breaker_failures,
        probe_delivery_id: breaker_probe_delivery_id,
        probe_expires_at: breaker_probe_expires_at,
      })
    : null;
  return { webhook: webhook as WebhookRow, event, breaker, queuedBehind: queued_behind === true, leased: leased === true };
}

/** The lease alone, for an attempt a circuit admitted as its probe. */
async function acquireLease(db: Db, input: AttemptInput, maxInFlight: number): Promise<boolean> {
  const { rows } = await db.raw(`select webhook_acquire_lease(?, ?, ?, ?::interval) as leased`, [input.webhookId, input.deliveryId, maxInFlight, LEASE_TTL]);
  return rows[0]?.leased === true;
}

function payloadOf(event: EventRow): CanonicalPayload {
  return buildPayload({ eventId: event.id, type: event.type, tenantId: event.tenant_id, occurredAt: event.occurred_at, data: event.data });
}

/** The columns every record of an attempt of `input` shares. */
function recordOf(input: AttemptInput, payload: CanonicalPayload, now: Date) {
  return {
    tenant_id: input.tenantId,
    webhook_id: input.webhookId,
    delivery_id: input.deliveryId,
    redelivery_of: input.redeliveryOf ?? null,
    event_id: input.eventId,
    event_type: payload.type,
    payload: JSON.stringify(payload),
    attempt: input.attempt,
    created_at: now,
  };
}

/**
 * Writes the attempt's record, with the payload it sent, and releases its lease (and its parking,
 * when it was a parked delivery's) in one statement. One record per attempt; a retried activity
 * (the worker died after the POST) overwrites its own attempt's record. `next_attempt_at` uses the
 * workflow's own judgement (the same pure functions). The record is written even when the webhook
 * was deleted during the POST: the attempt happened, and the log outlives its webhook (the
 * delivery sweep removes it after 30 days).
 */
async function recordAttemptAndRelease(db: Db, input: AttemptInput, payload: CanonicalPayload, result: HttpAttemptResult, policy: DeliveryPolicy): Promise<void> {
  const outcome = classifyOutcome(result, policy);
  const now = new Date();
  const next = planNextAttempt(input.attempt, outcome, now, policy);
  const row = {
    ...recordOf(input, payload, now),
    status: outcome.kind === 'success' ? 'succeeded' : 'failed',
    status_code: result.kind === 'response' ? result.status : null,
    latency_ms: result.kind === 'refused_destination' ? null : result.latencyMs,
    response_body: result.kind === 'response' ? result.body : null,
    failure_cause: failureCause(outcome),
    error: errorText(result),
    next_attempt_at: next.kind === 'retry' ? new Date(now.getTime() + next.delayMs) : null,
  };
  await db('webhook_deliveries')
    .with('released', db.raw('delete from webhook_delivery_leases where delivery_id = ?', [input.deliveryId]))
    .with('unparked', db.raw('delete from webhook_parked_deliveries where tenant_id = ? and delivery_id = ?', [input.tenantId, input.deliveryId]))
    .insert(row)
    .onConflict(['delivery_id', 'attempt'])
    .merge();
}

/**
 * The record of an attempt that was not sent and will not be (`cause`, `error`): failed, with no
 * next attempt, so the recover route finds it. It is the delivery's last record.
 */
async function recordNotSent(db: Db, input: AttemptInput, payload: CanonicalPayload, cause: string, error: string): Promise<void> {
  const row = { ...recordOf(input, payload, new Date()), status: 'failed', failure_cause: cause, error, next_attempt_at: null };
  await db('webhook_deliveries').insert(row).onConflict(['delivery_id', 'attempt']).merge();
}

/** Whether the webhook still exists (deleted meanwhile: the delivery stops here). */
async function webhookKept(db: Db, input: AttemptInput): Promise<boolean> {
  return Boolean(await db('webhooks').where({ tenant_id: input.tenantId, id: input.webhookId }).first('id'));
}

function failureCause(outcome: DeliveryOutcome): string | null {
  if (outcome.kind === 'success') return null;
  if (outcome.kind === 'gone') return 'gone';
  return outcome.cause.type;
}

function errorText(result: HttpAttemptResult): string | null {
  switch (result.kind) {
    case 'response':
      return null;
    case 'timeout':
      return result.phase === 'connect' ? 'no connection within the connect deadline' : 'no complete answer within the deadline';
    case 'connection_error':
      return result.message.slice(0, 500);
    case 'refused_destination':
      return `destination refused: ${result.reason}`.slice(0, 500);
  }
}

/** What the workflow needs to judge, nothing a receiver wrote (it may hold personal data). */
function withoutTexts(result: HttpAttemptResult): HttpAttemptResult {
  switch (result.kind) {
    case 'response':
      return {
        kind: 'response',
        status: result.status,
        body: '',
        latencyMs: result.latencyMs,
        ...(result.retryAfter === undefined ? {} : { retryAfter: result.retryAfter.slice(0, 100) }),
      };
    case 'timeout':
      return result;
    case 'connection_error':
      return { kind: 'connection_error', message: '', latencyMs: result.latencyMs };
    case 'refused_destination':
      return { kind: 'refused_destination', reason: '' };
  }
}

/** Retryable: Temporal tries again after a short, jittered, growing delay (no synchronised herd). */
function busy(webhookId: string): ApplicationFailure {
  const attempt = Context.current().info.attempt;
  const ceilingMs = Math.min(5_000, 100 * 2 ** Math.min(attempt, 6));
  return ApplicationFailure.create({
    type: 'WebhookBusy',
    message: `webhook ${webhookId} has its maximum of attempts in flight`,
    nextRetryDelay: Math.round(ceilingMs / 2 + Math.random() * (ceilingMs / 2)),
  });
}

/**
 * Retryable: the endpoint's circuit is open (or another attempt is its probe). The attempt comes
 * back once the probe may go, spread over a few seconds so the deferred attempts do not return
 * together; it keeps its number, so the schedule resumes where it stood.
 */
function circuitOpen(webhookId: string, delayMs: number): ApplicationFailure {
  return ApplicationFailure.create({
    type: 'WebhookCircuitOpen',
    message: `the circuit of webhook ${webhookId} is open: the attempt is deferred`,
    nextRetryDelay: Math.min(MAX_DEFER_MS, Math.round(delayMs + Math.random() * DEFER_SPREAD_MS)),
  });
}

export interface WebhookAlert {
  category: string;
  subject: string;
  body: string;
  /** `failure`: the admins and the owner (a failing webhook); `owner`: the owner, or the admins when there is none. */
  audience: 'failure' | 'owner';
}

function failingMessage(webhook: WebhookRow): WebhookAlert {
  return {
    category: 'webhook.failing',
    subject: 'A webhook is failing',
    audience: 'failure',
    body:
      `Webhook ${webhook.id}${webhook.description ? ` (${webhook.description})` : ''} to ${webhook.url} failed all five attempts of a delivery ` +
      `and is now marked failing. Deliveries continue; the next successful one marks it active again. ` +
      `See GET /api/v1/integrations/webhooks/${webhook.id}/deliveries, and POST .../recover once the receiver is fixed.`,
  };
}

/** Queues the message for its audience once per key; returns the row while it is still queued. */
export async function queueWebhookAlert(tx: Queryable, webhook: WebhookRow, key: string, { audience, ...message }: WebhookAlert): Promise<string | null> {
  const recipients = audience === 'failure' ? await webhookFailureEmails(tx, webhook) : await webhookOwnerEmails(tx, webhook);
  if (recipients.length === 0) return null;
  const { id } = await insertNotification(tx, { tenantId: webhook.tenant_id, ...message, recipients, idempotencyKey: key });
  const row = await tx('notifications').where({ id }).first('status');
  return row?.status === 'queued' ? id : null;
}
