/**
 * Periodic system jobs are Temporal Schedules created idempotently at worker start (DESIGN.md):
 * an existing schedule is left as it is, so restarting workers (or several of them) never
 * duplicates or resets one.
 */
import { Client, ScheduleAlreadyRunning, ScheduleOverlapPolicy } from '@temporalio/client';
import type { Duration } from '@temporalio/common';
import { resourceSearchAttributes } from '../infra/search-attributes';
import { TaskQueue } from '../infra/task-queues';

/** Cross-tenant jobs carry this TenantId, so every workflow is findable by the same attributes. */
export const SYSTEM_TENANT = 'system';

export interface IntervalSchedule {
  id: string;
  workflowType: string;
  every: Duration;
}

/** Creates the schedule when missing; true when it created it. Overlapping runs are skipped. */
export async function ensureIntervalSchedule(client: Client, schedule: IntervalSchedule, taskQueue: TaskQueue): Promise<boolean> {
  try {
    await client.schedule.create({
      scheduleId: schedule.id,
      spec: { intervals: [{ every: schedule.every }] },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 hour' },
      action: {
        type: 'startWorkflow',
        workflowType: schedule.workflowType,
        workflowId: schedule.id,
        taskQueue,
        args: [],
        typedSearchAttributes: resourceSearchAttributes(SYSTEM_TENANT, schedule.id),
      },
    });
    return true;
  } catch (err) {
    if (err instanceof ScheduleAlreadyRunning) return false;
    throw err;
  }
}
