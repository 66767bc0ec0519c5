/**
 * Periodic webhook jobs, run by Temporal Schedules (orchestration/webhook-schedules.ts): the
 * low-success-rate alert and the retention sweep of delivery records.
 */
import { Context } from '@temporalio/activity';
import { Db } from '../../db/knex';
import { appendEvent } from '../../db/outbox';
import { WebhookRow } from '../../db/queries/webhooks';
import { queueAdminNotification } from './deliver';

/** SPEC.md: an alert when a webhook's success rate stays below 50 % for 24 hours. */
export const LOW_SUCCESS_THRESHOLD = 0.5;
export const LOW_SUCCESS_WINDOW_HOURS = 24;
/** Fewer attempts than this in the window say too little to raise an alert. */
export const LOW_SUCCESS_MIN_ATTEMPTS = 5;
export const DELIVERY_RETENTION_DAYS = 30;
const SWEEP_BATCH = 5_000;

export interface WebhookHealthDeps {
  db: Db;
  /** Starts the delivery workflow of a queued notification row (idempotent by its id). */
  startNotification(tenantId: string, notificationId: string): Promise<void>;
}

export interface SuccessRateCheck {
  checked: number;
  alerted: string[];
  cleared: string[];
}

export function createWebhookHealthActivities({ db, startNotification }: WebhookHealthDeps) {
  return {
    /**
     * Success rate of every webhook over the last 24 h of attempts. Below 50 % (with enough
     * attempts to mean something) opens a low-success episode: one `webhook.low_success_rate`
     * event and one notification to the tenant's admins. A check at or above 50 % closes it, so a
     * later drop alerts again. Webhooks without attempts in the window keep their state.
     */
    async checkWebhookSuccessRates(): Promise<SuccessRateCheck> {
      const { rows } = await db.raw(
        `select w.id, w.tenant_id, w.low_success_alerted_at, s.total, s.succeeded
           from (select webhook_id, count(*)::int as total, (count(*) filter (where status = 'succeeded'))::int as succeeded
                   from webhook_deliveries where created_at > now() - make_interval(hours => ?) group by webhook_id) s
           join webhooks w on w.id = s.webhook_id`,
        [LOW_SUCCESS_WINDOW_HOURS],
      );
      const result: SuccessRateCheck = { checked: rows.length, alerted: [], cleared: [] };
      for (const row of rows as Array<{ id: string; tenant_id: string; low_success_alerted_at: Date | null; total: number; succeeded: number }>) {
        const rate = row.succeeded / row.total;
        const low = row.total >= LOW_SUCCESS_MIN_ATTEMPTS && rate < LOW_SUCCESS_THRESHOLD;
        if (low && !row.low_success_alerted_at) {
          const notificationId = await openLowSuccessEpisode(db, row.tenant_id, row.id, { rate, attempts: row.total });
          if (notificationId !== undefined) {
            result.alerted.push(row.id);
            if (notificationId) await startNotification(row.tenant_id, notificationId);
          }
        } else if (!low && row.low_success_alerted_at) {
          await db('webhooks').where({ id: row.id }).update({ low_success_alerted_at: null });
          result.cleared.push(row.id);
        }
      }
      return result;
    },

    /** Deletes delivery records older than the retention, in batches, heartbeating between them. */
    async sweepWebhookDeliveries(input: { retentionDays?: number } = {}): Promise<{ deleted: number }> {
      const days = input.retentionDays ?? DELIVERY_RETENTION_DAYS;
      let deleted = 0;
      for (;;) {
        const count = await db('webhook_deliveries')
          .whereIn('id', db('webhook_deliveries').select('id').where('created_at', '<', db.raw('now() - make_interval(days => ?)', [days])).limit(SWEEP_BATCH))
          .delete();
        deleted += count;
        if (count < SWEEP_BATCH) return { deleted };
        Context.current().heartbeat({ deleted });
      }
    },
  };
}

export type WebhookHealthActivities = ReturnType<typeof createWebhookHealthActivities>;

/** The notification id ('' when the tenant has no admin to tell), or undefined when another check opened the episode first. */
async function openLowSuccessEpisode(db: Db, tenantId: string, webhookId: string, stats: { rate: number; attempts: number }): Promise<string | undefined> {
  return db.transaction(async (tx) => {
    const [webhook] = (await tx('webhooks')
      .where({ tenant_id: tenantId, id: webhookId })
      .whereNull('low_success_alerted_at')
      .update({ low_success_alerted_at: tx.fn.now() })
      .returning('*')) as WebhookRow[];
    if (!webhook) return undefined;
    const episode = `webhook.low_success_rate/${webhook.id}/${webhook.low_success_alerted_at!.toISOString()}`;
    const successRate = Math.round(stats.rate * 1000) / 1000;
    await appendEvent(tx, {
      tenantId,
      type: 'webhook.low_success_rate',
      data: { webhook_id: webhook.id, success_rate: successRate, attempts: stats.attempts, window_hours: LOW_SUCCESS_WINDOW_HOURS },
      source: 'webhooks',
      idempotencyKey: episode,
    });
    const notificationId = await queueAdminNotification(tx, webhook, episode, {
      category: 'webhook.low_success_rate',
      subject: 'A webhook delivers less than half of its attempts',
      body:
        `Webhook ${webhook.id}${webhook.description ? ` (${webhook.description})` : ''} to ${webhook.url} succeeded in ` +
        `${Math.round(successRate * 100)} % of its ${stats.attempts} attempts over the last ${LOW_SUCCESS_WINDOW_HOURS} hours. ` +
        `See GET /api/v1/integrations/webhooks/${webhook.id}/analytics.`,
    });
    return notificationId ?? '';
  });
}
