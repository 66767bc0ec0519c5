/**
 * Temporal Schedules of the webhook engine, created idempotently at worker start (DESIGN.md):
 * an existing schedule is left as it is, so restarting workers (or several of them) never
 * duplicates or resets one.
 */
import { Client } from '@temporalio/client';
import { TASK_QUEUES } from '../infra/task-queues';
import { ensureIntervalSchedule } from './schedules';

export const WEBHOOK_SCHEDULES = {
  successRateCheck: { id: 'webhook-success-rate-check', workflowType: 'webhookSuccessRateCheckWorkflow', every: '1 hour' },
  deliveryRetention: { id: 'webhook-delivery-retention', workflowType: 'webhookDeliveryRetentionWorkflow', every: '24 hours' },
} as const;

/** Creates the missing schedules; returns the ids it created. */
export async function ensureWebhookSchedules(client: Client): Promise<string[]> {
  const created: string[] = [];
  for (const schedule of Object.values(WEBHOOK_SCHEDULES)) {
    if (await ensureIntervalSchedule(client, schedule, TASK_QUEUES.webhooks)) created.push(schedule.id);
  }
  return created;
}
