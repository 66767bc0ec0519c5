/**
 * Temporal Schedules of the webhook engine, created idempotently at worker start (DESIGN.md):
 * an existing schedule is left as it is, so restarting workers (or several of them) never
 * duplicates or resets one.
 */
import { Client, ScheduleAlreadyRunning, ScheduleOverlapPolicy } from '@temporalio/client';
import { resourceSearchAttributes } from '../infra/search-attributes';
import { TASK_QUEUES } from '../infra/task-queues';

export const WEBHOOK_SCHEDULES = {
  successRateCheck: { id: 'webhook-success-rate-check', workflowType: 'webhookSuccessRateCheckWorkflow', every: '1 hour' },
  deliveryRetention: { id: 'webhook-delivery-retention', workflowType: 'webhookDeliveryRetentionWorkflow', every: '24 hours' },
} as const;

/** Cross-tenant jobs carry this TenantId, so every workflow is findable by the same attributes. */
const SYSTEM_TENANT = 'system';

/** Creates the missing schedules; returns the ids it created. */
export async function ensureWebhookSchedules(client: Client): Promise<string[]> {
  const created: string[] = [];
  for (const schedule of Object.values(WEBHOOK_SCHEDULES)) {
    try {
      await client.schedule.create({
        scheduleId: schedule.id,
        spec: { intervals: [{ every: schedule.every }] },
        policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 hour' },
        action: {
          type: 'startWorkflow',
          workflowType: schedule.workflowType,
          workflowId: schedule.id,
          taskQueue: TASK_QUEUES.webhooks,
          args: [],
          typedSearchAttributes: resourceSearchAttributes(SYSTEM_TENANT, schedule.id),
        },
      });
      created.push(schedule.id);
    } catch (err) {
      if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    }
  }
  return created;
}
