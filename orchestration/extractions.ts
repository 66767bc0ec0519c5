/** Client side of the extraction workflow: its start (idempotent by business id). */
import { Client, WorkflowIdReusePolicy } from '@temporalio/client';
import { resourceSearchAttributes } from '../infra/search-attributes';
import { TASK_QUEUES } from '../infra/task-queues';
import { workflowIds } from '../infra/workflow-ids';
import type { extractionWorkflow } from '../workflows/extraction';

export async function startExtraction(client: Client, tenantId: string, extractionId: string): Promise<void> {
  await client.workflow
    .start<typeof extractionWorkflow>('extractionWorkflow', {
      taskQueue: TASK_QUEUES.main,
      workflowId: workflowIds.extraction(tenantId, extractionId),
      args: [{ tenantId, extractionId }],
      typedSearchAttributes: resourceSearchAttributes(tenantId, extractionId),
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    })
    .catch((err: Error) => {
      if (err.name !== 'WorkflowExecutionAlreadyStartedError') throw err;
    });
}
