import type { Priority } from '@temporalio/common';

/**
 * Every workflow we start carries its tenant as the task queue's fairness key: when a queue has a
 * backlog, the server dispatches its tasks in proportion per key (equal weights), so one tenant's
 * burst of workflow tasks cannot make another tenant's first task wait behind all of it. The
 * workflow's activities and child workflows inherit it. A server without fairness enabled
 * (matching.enableFairness) keeps the key in the history and dispatches in arrival order.
 */
export function tenantPriority(tenantId: string): Priority {
  return { fairnessKey: tenantId };
}
