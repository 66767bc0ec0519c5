/**
 * One delivery of one event to one webhook (DESIGN.md): attempt 1 at once, then 30 s, 5 min,
 * 30 min and 2 h as durable timers; each attempt is one activity whose HTTP outcome this workflow
 * judges with the pure schedule (domain/webhooks) under the webhook's delivery policy: by default
 * (SPEC.md) every failure is retried on the schedule; 410 disables the webhook only when it opted
 * in. The fifth failure marks it failing (one notification per failing episode, the webhook keeps
 * receiving); a success while failing marks it active. While the endpoint's circuit is open the
 * delivery parks (domain/webhooks/parking.ts): it waits for a release signal with no timer, so it
 * costs nothing until the releaser sends it, and it keeps its attempt number.
 * Input, result and history carry ids and status codes only.
 */
import { condition, defineSignal, proxyActivities, proxyLocalActivities, setHandler, sleep } from '@temporalio/workflow';
import type { DeliveryRef, SkipReason, WebhookDeliveryActivities } from '../activities/webhooks/deliver';
import { classifyOutcome, type DeliveryPolicy } from '../domain/webhooks/outcome';
import { planNextAttempt } from '../domain/webhooks/schedule';

export type WebhookDeliveryInput = DeliveryRef;

/** The releaser's word that a parked delivery may attempt again; it names the parking's ticket. */
export const deliveryReleasedSignal = defineSignal<[ticket: string]>('webhookDeliveryReleased');

export type WebhookDeliveryResult =
  | { status: 'delivered'; attempts: number }
  | { status: 'gone'; attempts: number }
  | { status: 'failed'; attempts: number }
  | { status: 'skipped'; reason: SkipReason; attempts: number };

const ATTEMPT_OPTIONS = {
  // The POST has its own 10 s deadline; the rest is the database.
  startToCloseTimeout: '30 seconds',
  // Only infrastructure errors and "webhook busy" are thrown (an HTTP outcome is a return value),
  // so these retries never replace an attempt of the schedule.
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
} as const;
/**
 * An attempt is a local activity (issue 19): it runs in the worker that holds the workflow task,
 * so a delivery costs one workflow task and no activity task (measured: the activity-task
 * version cost 2 workflow tasks + 1 activity task and 11 history events against 1 task and 5
 * events of an empty workflow, and delivered at about half of that ceiling). Same guarantees: the
 * attempt is recorded (a marker) before the workflow goes on, and a worker that dies mid-attempt
 * lets the workflow task time out, so another worker runs the attempt again under the same
 * delivery id (at-least-once, as before; the delivery record is upserted per attempt).
 */
const { deliverWebhookAttempt: deliverAttemptLocally } = proxyLocalActivities<WebhookDeliveryActivities>({
  ...ATTEMPT_OPTIONS,
  // A retry that waits longer (a busy webhook's backoff grows to 5 s) waits on a workflow timer,
  // so it holds no workflow-task slot of the worker meanwhile.
  localRetryThreshold: '1 second',
});
const { deliverWebhookAttempt: deliverAttemptAsActivity } = proxyActivities<WebhookDeliveryActivities>(ATTEMPT_OPTIONS);
const { markWebhookFailing, markWebhookRecovered, disableWebhook } = proxyActivities<WebhookDeliveryActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * Attempts recorded before the policy existed carry none; they are judged as they were then
 * (410 disabled, Retry-After honoured), so replaying those histories makes the same decisions.
 */
const POLICY_BEFORE_OPT_INS: DeliveryPolicy = { disableOnGone: true, honourRetryAfter: true };

/**
 * The delivery workflow: attempts as local activities, and parked while the endpoint's circuit is
 * open. A new workflow type rather than a patch of the previous one, for the reason given below.
 */
export async function webhookDeliveryWorkflowV3(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  // Releases that came before the workflow saw its parking are kept: a ticket is new for each parking.
  const released = new Set<string>();
  setHandler(deliveryReleasedSignal, (ticket) => void released.add(ticket));
  return deliverOnSchedule(input, deliverAttemptLocally, (ticket) => condition(() => released.has(ticket)));
}

/**
 * The delivery workflow since issue 19: attempts as local activities; an attempt its circuit does
 * not admit is retried by the activity's retry policy until it may go. Kept so deliveries started
 * before parking replay and finish (its attempts are never parked). A new workflow type rather
 * than a patch of the old one, because a patch costs every delivery a marker and a search
 * attribute upsert (TemporalChangeVersion), a visibility write on the server.
 */
export async function webhookDeliveryWorkflowV2(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  return deliverOnSchedule(input, deliverAttemptLocally);
}

/**
 * The delivery workflow before issue 19 (attempts as activity tasks): kept so deliveries started
 * before the upgrade (retry timers up to 2 h) replay and finish. Nothing starts it any more.
 */
export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  return deliverOnSchedule(input, deliverAttemptAsActivity);
}

/**
 * The schedule. With `waitForRelease` the attempts may park (the activity answers `parked` instead
 * of deferring); without it (the earlier types) they never do, and their inputs stay as they were.
 */
async function deliverOnSchedule(
  input: WebhookDeliveryInput,
  deliverWebhookAttempt: typeof deliverAttemptLocally,
  waitForRelease?: (ticket: string) => Promise<void>,
): Promise<WebhookDeliveryResult> {
  for (let attempt = 1; ;) {
    const report = await deliverWebhookAttempt(waitForRelease ? { ...input, attempt, parkable: true } : { ...input, attempt });
    if (report.kind === 'skipped') return { status: 'skipped', reason: report.reason, attempts: attempt - 1 };
    if (report.kind === 'parked') {
      if (!waitForRelease) throw new Error('an attempt that may not park was parked');
      await waitForRelease(report.ticket);
      continue;
    }

    const policy = report.policy ?? POLICY_BEFORE_OPT_INS;
    const next = planNextAttempt(attempt, classifyOutcome(report.result, policy), new Date(), policy);
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
