/**
 * Client-side start of webhook delivery workflows (the dispatcher, redeliver and recover use it).
 * The workflow id is `webhook-delivery/<tenant>/<delivery>` and a second start of the same id is
 * refused, so starting is idempotent: a delivery started twice runs once.
 */
import { Client } from '@temporalio/client';
import { mapSettled } from './concurrency';
import { startOnce } from './start-once';
import { WebhookIdKey } from '../infra/search-attributes';
import { TASK_QUEUES } from '../infra/task-queues';
import { workflowIds } from '../infra/workflow-ids';
import type { WebhookDeliveryInput, webhookDeliveryWorkflow } from '../workflows/webhook-delivery';

export function startWebhookDelivery(client: Client, input: WebhookDeliveryInput): Promise<'started' | 'already_started'> {
  return startOnce<typeof webhookDeliveryWorkflow>(client, {
    workflowType: 'webhookDeliveryWorkflow',
    taskQueue: TASK_QUEUES.webhooks,
    workflowId: workflowIds.webhookDelivery(input.tenantId, input.deliveryId),
    args: [input],
    tenantId: input.tenantId,
    resourceId: input.deliveryId,
    searchAttributes: [[WebhookIdKey, input.webhookId]],
  });
}

/** Starts many deliveries, at most `concurrency` starts in flight; rejects with the first failure. */
export async function startWebhookDeliveries(
  client: Client,
  inputs: readonly WebhookDeliveryInput[],
  concurrency = 32,
): Promise<Array<'started' | 'already_started'>> {
  const settled = await mapSettled(inputs, concurrency, (input) => startWebhookDelivery(client, input));
  return settled.map((result) => {
    if (result.status === 'rejected') throw result.reason;
    return result.value;
  });
}
