/**
 * What the benchmarks share when they report: the verdict of a target line, and the history of a
 * workflow read back from the server (what one run cost it in events and workflow tasks).
 */
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';

export const verdict = (met: boolean): 'met' | 'not met' => (met ? 'met' : 'not met');

export type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

export async function historyEvents(client: Client, workflowId: string): Promise<HistoryEvent[]> {
  return (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
}

/** Workflow tasks a worker started among these events. */
export const startedWorkflowTasks = (events: readonly HistoryEvent[]): number => events.filter((e) => e.workflowTaskStartedEventAttributes).length;
