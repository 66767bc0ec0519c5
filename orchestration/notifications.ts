import { startOnce } from './start-once';
import { callTemporal } from './temporal-call';
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
  await callTemporal(temporal, 'the notification could not be queued for delivery', (client) =>
    startOnce<typeof notificationWorkflow>(client, {
      workflowType: 'notificationWorkflow',
      taskQueue: TASK_QUEUES.main,
      workflowId: workflowIds.notification(tenantId, notificationId),
      args: [{ tenantId, notificationId }],
      tenantId,
      resourceId: notificationId,
    }),
  );
}
