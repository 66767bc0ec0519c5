/**
 * One delivery of one event to one webhook (DESIGN.md): attempt 1 at once, then 30 s, 5 min,
 * 30 min and 2 h as durable timers; each attempt is one activity whose HTTP outcome this workflow
 * judges with the pure schedule (domain/webhooks). 410 disables the webhook; the fifth failure
 * marks it failing (one notification per failing episode); a success while failing marks it active.
 * Input, result and history carry ids and status codes only.
 */
import { proxyActivities, sleep } from '@temporalio/workflow';
import type { DeliveryRef, SkipReason, WebhookDeliveryActivities } from '../activities/webhooks/deliver';
import { classifyOutcome } from '../domain/webhooks/outcome';
import { planNextAttempt } from '../domain/webhooks/schedule';

export type WebhookDeliveryInput = DeliveryRef;

export type WebhookDeliveryResult =
  | { status: 'delivered'; attempts: number }
  | { status: 'gone'; attempts: number }
  | { status: 'failed'; attempts: number }
  | { status: 'skipped'; reason: SkipReason; attempts: number };

const { deliverWebhookAttempt } = proxyActivities<WebhookDeliveryActivities>({
  // The POST has its own 10 s deadline; the rest is the database.
  startToCloseTimeout: '30 seconds',
  // Only infrastructure errors and "webhook busy" are thrown (an HTTP outcome is a return value),
  // so these retries never replace an attempt of the schedule.
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});
const { markWebhookFailing, markWebhookRecovered, disableWebhook } = proxyActivities<WebhookDeliveryActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  for (let attempt = 1; ; ) {
    const report = await deliverWebhookAttempt({ ...input, attempt });
    if (report.kind === 'skipped') return { status: 'skipped', reason: report.reason, attempts: attempt - 1 };

    const next = planNextAttempt(attempt, classifyOutcome(report.result), new Date());
    if (next.kind === 'retry') {
      await sleep(next.delayMs);
      attempt = next.attempt;
      continue;
    }
    switch (next.reason) {
      case 'delivered':
        if (report.webhookStatus === 'failing') await markWebhookRecovered(input);
        return { status: 'delivered', attempts: attempt };
      case 'gone':
        await disableWebhook(input);
        return { status: 'gone', attempts: attempt };
      case 'attempts_exhausted': {
        await markWebhookFailing(input);
        return { status: 'failed', attempts: attempt };
      }
    }
  }
}
