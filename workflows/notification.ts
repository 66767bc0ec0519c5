/**
 * Delivers one queued notification. The input carries ids only: recipients and text stay in the
 * database row, so no personal data enters the workflow history.
 */
import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { NotificationActivities } from '../activities/notifications';

export interface NotificationWorkflowInput {
  tenantId: string;
  notificationId: string;
}

const { deliverNotification } = proxyActivities<NotificationActivities>({
  startToCloseTimeout: '30 seconds',
  // An SMTP outage is retried for about an hour before the notification is marked failed.
  retry: { initialInterval: '10 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes', maximumAttempts: 10 },
});
const { markNotificationFailed } = proxyActivities<NotificationActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 20 },
});

export async function notificationWorkflow(input: NotificationWorkflowInput): Promise<{ status: 'sent' | 'recorded' }> {
  try {
    return await deliverNotification(input);
  } catch (err) {
    await markNotificationFailed(input);
    throw ApplicationFailure.nonRetryable(`notification ${input.notificationId} could not be delivered`, 'NotificationFailed');
  }
}
