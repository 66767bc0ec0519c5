import { randomUUID } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { WORKER_INTERCEPTORS } from '../../workers/options';

/**
 * Runs one notification workflow for `tenantId` on a worker of its own with the production
 * interceptors and the given stand-in activities: for tests of what the interceptors do to any
 * activity. A failed workflow's error is returned as the outcome, not thrown.
 */
export async function runNotificationWorkflow(
  env: TestWorkflowEnvironment,
  tenantId: string,
  activities: { deliverNotification(): Promise<unknown>; markNotificationFailed(): Promise<void> },
): Promise<{ workflowId: string; outcome: unknown }> {
  const taskQueue = `notification-run-${randomUUID()}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowsPath: require.resolve('../../workflows'),
    interceptors: WORKER_INTERCEPTORS,
    activities,
  });
  const workflowId = `notification/${tenantId}/${taskQueue}`;
  const outcome = await worker.runUntil(
    env.client.workflow.execute('notificationWorkflow', { taskQueue, workflowId, args: [{ tenantId, notificationId: taskQueue }] }).catch((err: unknown) => err),
  );
  return { workflowId, outcome };
}
