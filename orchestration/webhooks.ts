/**
 * Client-side start of webhook delivery workflows (the dispatcher, redeliver and recover use it).
 * The workflow id is `webhook-delivery/<tenant>/<delivery>` and a second start of the same id is
 * refused, so starting is idempotent: a delivery started twice runs once.
 */
import { Client } from '@temporalio/client';
import type { Duration } from '@temporalio/common';
import type { RecentAnswers } from '../db/queries/webhooks';
import { mapSettled } from './concurrency';
import { startOnce } from './start-once';
import { WebhookIdKey } from '../infra/search-attributes';
import { TASK_QUEUES } from '../infra/task-queues';
import { workflowIds } from '../infra/workflow-ids';
import type { WebhookDeliveryInput, webhookDeliveryWorkflowV3 } from '../workflows/webhook-delivery';

/**
 * A delivery's workflow task is one attempt (a local activity) and a few commands. When the worker
 * holding it dies (SIGKILL, OOM), the server hands the task to another worker only once this
 * timeout has passed, so a crash delays that worker's deliveries by up to this much. 5 s keeps a
 * crash within 1.5x of a 300-delivery burst that takes 4.6 s on its own (6.5 s did not: 1.55x).
 * The SDK heartbeats a task whose local activity is still running at 80 % of it (4 s, 8 s), so an
 * attempt that runs its whole 10 s deadline heartbeats twice; each heartbeat is a task, which is
 * what a tenant bursting into hung webhooks costs the others (about 0.2 s more median latency
 * than with 6.5 s, 4 s cost 0.9 s; docs/decisions/delivery-task-timeout-by-receiver.md). This is the timeout of a delivery to a receiver not known to be fast.
 */
export const DELIVERY_WORKFLOW_TASK_TIMEOUT = '5 seconds';
/**
 * A receiver known to be fast: each of its latest attempts (at least FAST_RECEIVER_MIN_ANSWERS of
 * them in the delivery log) was answered within FAST_RECEIVER_SLOWEST_MS. Its attempts end well
 * inside 3 s (a lease wait of at most 2 s, LEASE_WAIT_MS, and the answer), so the shorter timeout
 * costs them no heartbeat, and a crash delays its deliveries by 3 s instead of 5 s. What a fast
 * receiver that starts to hang costs: the deliveries started before its first slow answer is
 * logged (10 s later at most) heartbeat four times instead of twice, within its tenant's share of
 * the worker's attempts.
 *
 * Only on a responsive worker: the SDK's own work around the attempt must fit in the timeout too.
 * While the starting process's start-to-attempt time (infra/start-to-attempt.ts) is above
 * RESPONSIVE_WORKER_START_TO_ATTEMPT_MS, its deliveries get the 5 s: on a worker starved of CPU a
 * 3 s task timed out around attempts of 100 ms and sent them again.
 */
export const FAST_RECEIVER_DELIVERY_TASK_TIMEOUT = '3 seconds';
export const FAST_RECEIVER_MIN_ANSWERS = 5;
export const FAST_RECEIVER_SLOWEST_MS = 500;
export const RESPONSIVE_WORKER_START_TO_ATTEMPT_MS = 500;

/**
 * The task timeout of a delivery whose receiver answered its latest attempts so (undefined: no
 * attempt yet), started by a process whose slowest recent start-to-attempt time is
 * `startToAttemptMs` (undefined: none measured yet).
 */
export function deliveryTaskTimeout(recent: RecentAnswers | undefined, startToAttemptMs?: number): Duration {
  const fastReceiver = recent !== undefined && recent.answers >= FAST_RECEIVER_MIN_ANSWERS && recent.slowestMs < FAST_RECEIVER_SLOWEST_MS;
  const responsiveWorker = startToAttemptMs === undefined || startToAttemptMs < RESPONSIVE_WORKER_START_TO_ATTEMPT_MS;
  return fastReceiver && responsiveWorker ? FAST_RECEIVER_DELIVERY_TASK_TIMEOUT : DELIVERY_WORKFLOW_TASK_TIMEOUT;
}

export interface DeliveryStartOptions {
  /**
   * The client shares its NativeConnection with a worker of the webhook queue (the dispatcher in
   * the worker process), so the server hands the first workflow task back in the start's answer
   * instead of through a poll (eager workflow start; a server without it, or a worker with no free
   * slot, starts normally). Measured in issue 19: see workers/options.ts.
   */
  eager?: boolean;
  /** How the webhook's receiver answered its latest attempts (db/queries/webhooks.ts, `recentAnswers`). */
  recentAnswers?: RecentAnswers;
  /** The starting process's slowest recent start-to-attempt time (infra/start-to-attempt.ts). */
  startToAttemptMs?: number;
}

export function startWebhookDelivery(client: Client, input: WebhookDeliveryInput, opts: DeliveryStartOptions = {}): Promise<'started' | 'already_started'> {
  return startOnce<typeof webhookDeliveryWorkflowV3>(client, {
    workflowType: 'webhookDeliveryWorkflowV3',
    taskQueue: TASK_QUEUES.webhooks,
    workflowId: workflowIds.webhookDelivery(input.tenantId, input.deliveryId),
    args: [input],
    tenantId: input.tenantId,
    resourceId: input.deliveryId,
    searchAttributes: [[WebhookIdKey, input.webhookId]],
    eager: opts.eager,
    workflowTaskTimeout: deliveryTaskTimeout(opts.recentAnswers, opts.startToAttemptMs),
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
