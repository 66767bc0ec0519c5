import { WorkflowIdReusePolicy } from '@temporalio/client';
import { resourceSearchAttributes } from '../infra/search-attributes';
import { TemporalGateway } from '../infra/temporal';
import { TASK_QUEUES } from '../infra/task-queues';
import { workflowIds } from '../infra/workflow-ids';
import type { notificationWorkflow } from '../workflows/notification';

/**
 * Starts the delivery workflow of a queued notification row (db/notifications.insertNotification,
 * committed first). The workflow id is derived from the row, so a retried call, or the worker's
 * reconciler for rows left queued, never sends twice.
 */
export async function startNotificationDelivery(temporal: TemporalGateway, tenantId: string, notificationId: string): Promise<void> {
  const client = await temporal.client();
  await client.workflow
    .start<typeof notificationWorkflow>('notificationWorkflow', {
      taskQueue: TASK_QUEUES.main,
      workflowId: workflowIds.notification(tenantId, notificationId),
      args: [{ tenantId, notificationId }],
      typedSearchAttributes: resourceSearchAttributes(tenantId, notificationId),
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    })
    .catch((err: Error) => {
      if (err.name !== 'WorkflowExecutionAlreadyStartedError') throw err;
    });
}
