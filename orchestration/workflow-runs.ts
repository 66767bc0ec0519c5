import { Client, WorkflowNotFoundError } from '@temporalio/client';

/** The latest run of a workflow id and its status (RUNNING, COMPLETED, ...); null when Temporal knows no such workflow. */
export async function latestRun(client: Client, workflowId: string): Promise<{ runId: string; status: string } | null> {
  try {
    const described = await client.workflow.getHandle(workflowId).describe();
    return { runId: described.runId, status: described.status.name };
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return null;
    throw err;
  }
}
