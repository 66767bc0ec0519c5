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
import type { WebhookDeliveryInput, webhookDeliveryWorkflowV2 } from '../workflows/webhook-delivery';

/**
 * A delivery's workflow task is one attempt (a local activity) and a few commands. When the worker
 * holding it dies (SIGKILL, OOM), the server hands the task to another worker only once this
 * timeout has passed, so a crash delays that worker's deliveries by up to this much. 5 s keeps a
 * crash within 1.5x of a 300-delivery burst that takes 4.6 s on its own (6.5 s did not: 1.55x).
 * The SDK heartbeats a task whose local activity is still running at 80 % of it (4 s, 8 s), so an
 * attempt that runs its whole 10 s deadline heartbeats twice; each heartbeat is a task, which is
 * what a tenant bursting into hung webhooks costs the others (about 0.2 s more median latency
 * than with 6.5 s, 4 s cost 0.9 s; docs/DECISIONS.md, "A delivery workflow's task is handed to
 * another worker after 5 s").
 */
export const DELIVERY_WORKFLOW_TASK_TIMEOUT = '5 seconds';

/**
 * `eager`: the client shares its NativeConnection with a worker of the webhook queue (the
 * dispatcher in the worker process), so the server hands the first workflow task back in the
 * start's answer instead of through a poll (eager workflow start; a server without it, or a
 * worker with no free slot, starts normally). Measured in issue 19: see workers/options.ts.
 */
export function startWebhookDelivery(client: Client, input: WebhookDeliveryInput, opts: { eager?: boolean } = {}): Promise<'started' | 'already_started'> {
  return startOnce<typeof webhookDeliveryWorkflowV2>(client, {
    workflowType: 'webhookDeliveryWorkflowV2',
    taskQueue: TASK_QUEUES.webhooks,
    workflowId: workflowIds.webhookDelivery(input.tenantId, input.deliveryId),
    args: [input],
    tenantId: input.tenantId,
    resourceId: input.deliveryId,
    searchAttributes: [[WebhookIdKey, input.webhookId]],
    eager: opts.eager,
    workflowTaskTimeout: DELIVERY_WORKFLOW_TASK_TIMEOUT,
  });
}

/** Starts many deliveries, at most `concurrency` starts in flight; rejects with the first failure. */
export async function startWebhookDeliveries(client: Client, inputs: readonly WebhookDeliveryInput[], concurrency = 32): Promise<Array<'started' | 'already_started'>> {
  const settled = await mapSettled(inputs, concurrency, (input) => startWebhookDelivery(client, input));
  return settled.map((result) => {
    if (result.status === 'rejected') throw result.reason;
    return result.value;
  });
}
