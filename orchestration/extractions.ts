/** Client side of the extraction workflow: its start (idempotent by business id). */
import { Client } from '@temporalio/client';
import { startOnce } from './start-once';
import { TASK_QUEUES } from '../infra/task-queues';
import { workflowIds } from '../infra/workflow-ids';
import type { extractionWorkflow } from '../workflows/extraction';

export async function startExtraction(client: Client, tenantId: string, extractionId: string): Promise<void> {
  await startOnce<typeof extractionWorkflow>(client, {
    workflowType: 'extractionWorkflow',
    taskQueue: TASK_QUEUES.main,
    workflowId: workflowIds.extraction(tenantId, extractionId),
    args: [{ tenantId, extractionId }],
    tenantId,
    resourceId: extractionId,
  });
}
