/**
 * Recovery after a worker dies: a burst of deliveries to one webhook, once with a second worker
 * process that runs to the end and once with that worker SIGKILLed after a third of the burst has
 * arrived (the stack's own worker goes on in both). The burst's time with the kill against without
 * it (target <= 1.5x), and that nothing was lost or recorded twice.
 */
import path from 'node:path';
import { startServiceProcess } from '../scripts/service-process';
import { benchWebhook, sendEvents, startReceiver, type Receiver, type WebhookBenchDeps } from './webhooks';
import { historyEvents, timelineOf, timeOf, verdict } from './report';
import { meets, TARGETS } from './targets';
import { deliveryIdFor } from '../domain/webhooks/delivery-id';
import { workflowIds } from '../infra/workflow-ids';

const EVENTS = Number(process.env.BENCH_KILL_EVENTS ?? 300);
const KILL_AFTER = Math.floor(EVENTS / 3);
const DEADLINE_MS = 300_000;
const RECORDS_WAIT_MS = 60_000;

async function burst(deps: WebhookBenchDeps, receiver: Receiver, kill: boolean) {
  receiver.reset();
  const { tenantId, webhookId } = await benchWebhook(deps, receiver.url);
  const extra = await startServiceProcess('worker', {}, path.join(process.cwd(), '.run', 'bench', `worker-${kill ? 'killed' : 'kept'}.log`));
  try {
    const t0 = performance.now();
    const t0Epoch = Date.now();
    await sendEvents(deps.db, tenantId, EVENTS, 100);
    if (kill) {
      await receiver.waitForCount(KILL_AFTER, DEADLINE_MS);
      await extra.kill();
    }
    await receiver.waitForCount(EVENTS, DEADLINE_MS).catch(() => undefined);
    const seconds = (performance.now() - t0) / 1000;
    // The last attempts' records commit just after their requests arrived: wait for them (bounded).
    type Counts = { deliveries: number; records: number };
    const counts = async (): Promise<Counts> => {
      const rows = (await deps
        .db('webhook_deliveries')
        .where({ webhook_id: webhookId })
        .select(deps.db.raw('count(distinct delivery_id)::int as deliveries'), deps.db.raw("count(*) filter (where status = 'succeeded')::int as records"))) as Counts[];
      return rows[0];
    };
    let { deliveries, records } = await counts();
    for (const until = Date.now() + RECORDS_WAIT_MS; deliveries < receiver.firstArrivals.size && Date.now() < until; { deliveries, records } = await counts()) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await deps.db('webhooks').where({ id: webhookId }).update({ status: 'disabled', disabled_reason: 'bench finished' });
    // What the last delivery to arrive waited on (a timed-out workflow task, a retry, a timer).
    const [lastEvent] = [...receiver.firstArrivals].sort((a, b) => b[1] - a[1])[0] ?? [];
    const history = lastEvent ? await historyEvents(await deps.temporal.client(), workflowIds.webhookDelivery(tenantId, deliveryIdFor(lastEvent, webhookId))).catch(() => []) : [];
    // When its workflow started tells the two waits apart: a late start is a dead dispatcher's claim, a timed-out task the dead worker's.
    const lastStartedS = history.length > 0 ? `+${((timeOf(history[0]) - t0Epoch) / 1000).toFixed(1)} s into the burst: ` : '';
    return { seconds, delivered: receiver.firstArrivals.size, deliveries, succeededRecords: records, lastHistory: lastStartedS + timelineOf(history) };
  } finally {
    await extra.stop();
  }
}

export async function runWorkerKillBench(deps: WebhookBenchDeps): Promise<Record<string, number | string>> {
  const receiver = await startReceiver();
  try {
    const kept = await burst(deps, receiver, false);
    const killed = await burst(deps, receiver, true);
    const ratio = killed.seconds / kept.seconds;
    const whole = (b: typeof kept) => b.delivered === EVENTS && b.deliveries === EVENTS && b.succeededRecords === EVENTS;
    return {
      burst_events: EVENTS,
      burst_without_kill_s: Math.round(kept.seconds * 10) / 10,
      burst_with_kill_s: Math.round(killed.seconds * 10) / 10,
      kill_to_no_kill_ratio: Math.round(ratio * 100) / 100,
      delivered_without_kill: `${kept.delivered} (${kept.succeededRecords} succeeded records)`,
      delivered_with_kill: `${killed.delivered} (${killed.succeededRecords} succeeded records)`,
      last_delivery_without_kill: kept.lastHistory,
      last_delivery_with_kill: killed.lastHistory,
      target_kill_recovery: `nothing lost or doubled, with the kill <= ${TARGETS.kill.line}x without: ${verdict(whole(kept) && whole(killed) && meets(TARGETS.kill, ratio))}`,
    };
  } finally {
    await receiver.close();
  }
}
