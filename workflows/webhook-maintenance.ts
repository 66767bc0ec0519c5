/**
 * Periodic webhook jobs, each started by a Temporal Schedule (orchestration/webhook-schedules.ts).
 * Cross-tenant by nature; their histories hold ids and counts only.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { WebhookHealthActivities } from '../activities/webhooks/health';

const { checkWebhookSuccessRates } = proxyActivities<WebhookHealthActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { maximumAttempts: 5 },
});
const { sweepWebhookDeliveries } = proxyActivities<WebhookHealthActivities>({
  startToCloseTimeout: '1 hour',
  heartbeatTimeout: '2 minutes',
  retry: { maximumAttempts: 5 },
});

/**
 * Hourly: one alert per webhook whose success rate has stayed below 50 % for 24 hours. The check
 * is judged at this workflow's time (deterministic, and moved by the time-skipping test server).
 */
export async function webhookSuccessRateCheckWorkflow(): Promise<{ checked: number; low: number; alerted: number; cleared: number }> {
  const result = await checkWebhookSuccessRates({ asOf: new Date().toISOString() });
  return { checked: result.checked, low: result.low.length, alerted: result.alerted.length, cleared: result.cleared.length };
}

/** Daily: delivery records older than 30 days are deleted. */
export async function webhookDeliveryRetentionWorkflow(): Promise<{ deleted: number }> {
  return sweepWebhookDeliveries({});
}
