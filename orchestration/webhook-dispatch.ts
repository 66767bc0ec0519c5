/**
 * The outbox dispatcher's unit of work: claim a batch of undispatched events (FOR UPDATE SKIP
 * LOCKED, so several dispatchers share the outbox without waiting on each other), start one
 * delivery workflow per matching (event, webhook), then mark the events dispatched, all in one
 * transaction. The delivery id is derived from the event and the webhook, so if anything fails
 * between a start and the commit, the rows are claimed again and the same workflow ids are
 * started again, which Temporal refuses: a crash delays a delivery, never loses or doubles it.
 */
import type { Client } from '@temporalio/client';
import { Db } from '../db/knex';
import { RECEIVING_STATUSES } from '../db/queries/webhooks';
import { deliveryIdFor } from '../domain/webhooks/delivery-id';
import { matches, type WebhookFilters } from '../domain/webhooks/matching';
import type { WebhookDeliveryInput } from '../workflows/webhook-delivery';
import { signalMachineAgents } from './machine-agents';
import { startWebhookDeliveries } from './webhooks';

export const DEFAULT_DISPATCH_BATCH = 200;
const DEFAULT_START_CONCURRENCY = 32;

export interface OutboxEventRow {
  id: string;
  tenant_id: string;
  type: string;
  data: unknown;
  created_at: Date;
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

export async function dispatchOutboxBatch(
  db: Db,
  client: Client,
  options: { batchSize?: number; startConcurrency?: number } = {},
): Promise<DispatchResult> {
  return db.transaction(async (tx) => {
    const events: OutboxEventRow[] = await tx('outbox_events')
      .whereNull('dispatched_at')
      .orderBy('created_at')
      .limit(options.batchSize ?? DEFAULT_DISPATCH_BATCH)
      .forUpdate()
      .skipLocked()
      .select('id', 'tenant_id', 'type', 'data', 'created_at');
    if (events.length === 0) return { events: 0, deliveries: 0, alreadyStarted: 0 };

    const tenantIds = [...new Set(events.map((event) => event.tenant_id))];
    const webhooks: ReceivingWebhook[] = await tx('webhooks')
      .whereIn('tenant_id', tenantIds)
      .whereIn('status', RECEIVING_STATUSES)
      .select('id', 'tenant_id', 'events', 'filters', 'created_at');
    const deliveries = planDeliveries(events, webhooks);
    const outcomes = await startWebhookDeliveries(client, deliveries, options.startConcurrency ?? DEFAULT_START_CONCURRENCY);
    // The same events reach machine agents (issue 7); a failure rolls the batch back like a failed start.
    await signalMachineAgents(tx, client, events);
    await tx('outbox_events').whereIn('id', events.map((event) => event.id)).update({ dispatched_at: tx.fn.now() });
    return { events: events.length, deliveries: deliveries.length, alreadyStarted: outcomes.filter((o) => o === 'already_started').length };
  });
}
