/**
 * When a batch loop continues as new (issue 23): when the server suggests it, or once the run's
 * history reaches `limit` events (a smaller limit lets tests cross the boundary in a few batches;
 * the default stays well below the server's own warning at 10 240 events).
 */
import { workflowInfo } from '@temporalio/workflow';

export const DEFAULT_HISTORY_LIMIT = 8_000;

export function historyBudgetSpent(limit = DEFAULT_HISTORY_LIMIT): boolean {
  const info = workflowInfo();
  return info.continueAsNewSuggested || info.historyLength >= limit;
}
