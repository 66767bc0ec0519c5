/**
 * Starts the delivery workflow of a queued notification row from inside a workflow, as an
 * abandoned child: the notification is delivered even after the parent completed. Its id is the
 * row's workflow id (the same the API and the worker's reconciler use), so a second start of the
 * same notification is refused and ignored. It carries TenantId and ResourceId like every other.
 */
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { ParentClosePolicy, startChild, WorkflowIdReusePolicy } from '@temporalio/workflow';
import { resourceSearchAttributes } from '../infra/search-attributes';
import { TASK_QUEUES } from '../infra/task-queues';
import { workflowIds } from '../infra/workflow-ids';
import type { notificationWorkflow } from './notification';

export async function startNotificationChild(tenantId: string, notificationId: string): Promise<void> {
  try {
    await startChild<typeof notificationWorkflow>('notificationWorkflow', {
      workflowId: workflowIds.notification(tenantId, notificationId),
      taskQueue: TASK_QUEUES.main,
      args: [{ tenantId, notificationId }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      // As on every workflow the API or the dispatcher starts: operators filter by tenant in the UI.
      typedSearchAttributes: resourceSearchAttributes(tenantId, notificationId),
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}
