/**
 * Webhooks as the service's operator watches and repairs them (cli/): the webhooks in trouble
 * across tenants, a webhook's deliveries that failed for good, its circuit breaker and its reset,
 * the deliveries parked behind open circuits and their release. Sending failed deliveries again is
 * services/webhooks.ts's recover and redeliver, the same functions the tenant's own routes call;
 * a release is a pass of the worker's releaser (orchestration/webhook-release.ts) over one webhook.
 */
import type { Db, Queryable } from '../db/knex';
import { paginate, type Page, type PageRequest } from '../db/pagination';
import { findBreaker, resetBreaker } from '../db/queries/webhook-breakers';
import { parkedSummary, parkedWebhooksQuery, type ParkedWebhookRow } from '../db/queries/webhook-parking';
import { troubledWebhooksQuery, type TroubledWebhookRow } from '../db/queries/webhook-troubles';
import { deliveriesFailedForGood, type WebhookRow } from '../db/queries/webhooks';
import type { TenantScope } from '../db/tenant-scope';
import { runUnit, type Unit, type UnitContext } from '../db/unit-of-work';
import { closedBreaker, type BreakerState } from '../domain/webhooks/circuit-breaker';
import { DELIVERY_RETENTION_DAYS } from '../domain/webhooks/health-rules';
import { notFound } from '../domain/errors';
import { isUuid } from '../domain/ids';
import type { TemporalGateway } from '../infra/temporal';
import { callTemporal } from '../orchestration/temporal-call';
import { releaseParkedDeliveries, type ReleaserSettings } from '../orchestration/webhook-release';
import { requireWebhook } from './webhooks';

export type { ParkedWebhookRow, TroubledWebhookRow };

/** Most failed deliveries one listing answers (a recover sends at most MAX_RECOVER a call). */
export const MAX_FAILED_LISTED = 1_000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** Which tenant holds the webhook (a read across tenants: the operator's lookup before it acts in that tenant), or 404. */
export async function tenantOfWebhook(db: Queryable, webhookId: string): Promise<string> {
  const row: { tenant_id: string } | undefined = isUuid(webhookId) ? await db('webhooks').where({ id: webhookId }).first('tenant_id') : undefined;
  if (!row) throw notFound('webhook');
  return row.tenant_id;
}

/** Failing webhooks, webhooks disabled by a 410, and open circuits, of every tenant or of one. */
export function troubledWebhooks(db: Queryable, tenantId: string | undefined, page: PageRequest): Promise<Page<TroubledWebhookRow>> {
  return paginate<TroubledWebhookRow>(troubledWebhooksQuery(db, tenantId), page);
}

export interface FailedDeliveries {
  webhook: WebhookRow;
  /** `since`, moved up to the oldest delivery record still kept. */
  since: Date;
  deliveries: Array<{ delivery_id: string; event_id: string }>;
  truncated: boolean;
}

/** The webhook's deliveries that failed for good since a time and were not sent again: what a recover would send, oldest first. */
export async function failedDeliveries(db: Db, scope: TenantScope, webhookId: string, requestedSince: Date, limit = MAX_FAILED_LISTED): Promise<FailedDeliveries> {
  const webhook = await requireWebhook(scope, webhookId);
  const since = new Date(Math.max(requestedSince.getTime(), Date.now() - DELIVERY_RETENTION_DAYS * DAY_MS));
  const rows = await deliveriesFailedForGood(db, scope.tenantId, webhook.id, since, limit + 1);
  return { webhook, since, deliveries: rows.slice(0, limit), truncated: rows.length > limit };
}

/** The webhook's circuit (closed since the webhook's creation when it never failed). */
export async function circuitOf(scope: TenantScope, webhookId: string): Promise<{ webhook: WebhookRow; breaker: BreakerState }> {
  const webhook = await requireWebhook(scope, webhookId);
  return { webhook, breaker: (await findBreaker(scope, webhook.id)) ?? closedBreaker(webhook.created_at) };
}

/**
 * Closes the webhook's circuit by hand, audited `webhook.breaker_reset` with the state it had:
 * for a receiver that is known to be back before a probe found it so.
 */
export async function resetCircuit(unit: Unit, webhookId: string): Promise<{ webhook: WebhookRow; previous: BreakerState; breaker: BreakerState }> {
  const webhook = await requireWebhook(unit.scope, webhookId);
  const now = new Date();
  const stored = await resetBreaker(unit.scope, webhook.id, now);
  const previous = stored ?? closedBreaker(webhook.created_at);
  unit.audit({
    action: 'webhook.breaker_reset',
    resourceType: 'webhook',
    resourceId: webhook.id,
    details: { previous_state: previous.state, consecutive_failures: previous.consecutiveFailures },
  });
  return { webhook, previous, breaker: stored ? closedBreaker(now) : previous };
}

/** Webhooks with parked deliveries, of every tenant or of one: count, oldest, the tenant's total; oldest first. */
export function parkedWebhooks(db: Queryable, tenantId: string | undefined, page: PageRequest): Promise<Page<ParkedWebhookRow>> {
  return paginate<ParkedWebhookRow>(parkedWebhooksQuery(db, tenantId), page);
}

export interface ParkedRelease {
  webhook: WebhookRow;
  /** The circuit before the release closed it. */
  previous: BreakerState;
  /** Parked deliveries when the release began. */
  parked: number;
  /** Released by this pass (the endpoint's window); the worker's releaser sends the rest at its pace. */
  released: number;
}

/**
 * The operator's release of a webhook whose receiver is known to be back: its circuit closed and
 * audited `webhook.parked_released` (the state it had, the parked count), then one pass of the
 * releaser over this webhook: its oldest parked deliveries go now, in event order, as many as the
 * endpoint's window; the worker's releaser sends the rest at the endpoint's pace, as after a
 * successful probe. Nothing is released while the circuit is open, so a release without the
 * close would wait for the next probe.
 */
export async function releaseParked(deps: { db: Db; temporal: TemporalGateway; settings: ReleaserSettings }, context: UnitContext, webhookId: string): Promise<ParkedRelease> {
  const done: { closed?: { webhook: WebhookRow; previous: BreakerState; parked: number } } = {};
  // The circuit is closed in the pass's own transaction, under the releaser's lock: the worker's
  // releaser cannot send these deliveries between the close and this pass (the count would read 0).
  // Only the connection is Temporal's to fail (each signal has its own deadline and a failed one is
  // counted, then re-sent by a later pass): a database error in the pass is not labelled as Temporal's.
  const client = await callTemporal(deps.temporal, 'could not reach Temporal to signal the released deliveries', async (connected) => connected);
  const pass = await releaseParkedDeliveries(deps.db, client, deps.settings, {
    tenantId: context.tenantId,
    webhookId,
    first: async (tx) => {
      done.closed = await runUnit(tx, context, async (unit) => {
        const webhook = await requireWebhook(unit.scope, webhookId);
        const stored = await resetBreaker(unit.scope, webhook.id, new Date());
        const previous = stored ?? closedBreaker(webhook.created_at);
        const { count: parked } = await parkedSummary(unit.scope, webhook.id);
        unit.audit({
          action: 'webhook.parked_released',
          resourceType: 'webhook',
          resourceId: webhook.id,
          details: { previous_state: previous.state, consecutive_failures: previous.consecutiveFailures, parked },
        });
        return { webhook, previous, parked };
      });
    },
  });
  if (!done.closed) throw new Error('the release pass ran without closing the circuit');
  const { webhook, previous, parked } = done.closed;
  return { webhook, previous, parked, released: pass.released.length };
}
