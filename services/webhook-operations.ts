/**
 * Webhooks as the service's operator watches and repairs them (cli/): the webhooks in trouble
 * across tenants, a webhook's deliveries that failed for good, its circuit breaker and its reset.
 * Sending failed deliveries again is services/webhooks.ts's recover and redeliver, the same
 * functions the tenant's own routes call.
 */
import type { Db, Queryable } from '../db/knex';
import { paginate, type Page, type PageRequest } from '../db/pagination';
import { findBreaker, resetBreaker } from '../db/queries/webhook-breakers';
import { troubledWebhooksQuery, type TroubledWebhookRow } from '../db/queries/webhook-troubles';
import { deliveriesFailedForGood, type WebhookRow } from '../db/queries/webhooks';
import type { TenantScope } from '../db/tenant-scope';
import type { Unit } from '../db/unit-of-work';
import { closedBreaker, type BreakerState } from '../domain/webhooks/circuit-breaker';
import { DELIVERY_RETENTION_DAYS } from '../domain/webhooks/health-rules';
import { notFound } from '../domain/errors';
import { isUuid } from '../domain/ids';
import { requireWebhook } from './webhooks';

export type { TroubledWebhookRow };

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
