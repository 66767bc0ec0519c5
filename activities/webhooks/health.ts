/**
 * Periodic webhook jobs, run by Temporal Schedules (orchestration/webhook-schedules.ts): the
 * low-success-rate alert and the retention sweep of delivery records.
 */
import { Context } from '@temporalio/activity';
import { Db } from '../../db/knex';
import { appendEvent } from '../../db/outbox';
import { WebhookRow } from '../../db/queries/webhooks';
import { queueWebhookAlert } from './deliver';
import { DELIVERY_RETENTION_DAYS, LOW_SUCCESS_MIN_ATTEMPTS, LOW_SUCCESS_THRESHOLD, LOW_SUCCESS_WINDOW_HOURS } from '../../domain/webhooks/health-rules';

const SWEEP_BATCH = 5_000;
const HOUR_MS = 60 * 60 * 1000;

export interface WebhookHealthDeps {
  db: Db;
  /** Starts the delivery workflow of a queued notification row (idempotent by its id). */
  startNotification: (tenantId: string, notificationId: string) => Promise<void>;
}

export interface SuccessRateCheck {
  checked: number;
  /** Webhooks whose rate is below 50 % at this check (their episode may be younger than 24 h). */
  low: string[];
  alerted: string[];
  cleared: string[];
}

interface RateRow {
  id: string;
  tenant_id: string;
  low_success_since: Date | null;
  low_success_alerted_at: Date | null;
  total: number;
  succeeded: number;
}

export function createWebhookHealthActivities({ db, startNotification }: WebhookHealthDeps) {
  return {
    /**
     * Success rate of every webhook over the 24 h of attempts before `asOf` (the calling
     * workflow's clock, so a time-skipping test can move it). SPEC.md alerts when the rate "stays
     * below 50 % for 24 hours": the first check that sees it low (with enough attempts to mean
     * something) opens a low-success episode (`low_success_since`); a check at or above 50 %
     * closes it; once it has stayed open for 24 h, one `webhook.low_success_rate` event and one
     * notification to the webhook's owner (its admins when it has none). Webhooks without attempts
     * in the window keep their state.
     */
    async checkWebhookSuccessRates(input: { asOf?: string } = {}): Promise<SuccessRateCheck> {
      const asOf = input.asOf ? new Date(input.asOf) : new Date();
      const { rows } = await db.raw(
        `select w.id, w.tenant_id, w.low_success_since, w.low_success_alerted_at, s.total, s.succeeded
           from (select webhook_id, count(*)::int as total, (count(*) filter (where status = 'succeeded'))::int as succeeded
                   from webhook_deliveries
                  where created_at > ?::timestamptz - make_interval(hours => ?) and created_at <= ?::timestamptz
                  group by webhook_id) s
           join webhooks w on w.id = s.webhook_id`,
        [asOf, LOW_SUCCESS_WINDOW_HOURS, asOf],
      );
      const result: SuccessRateCheck = { checked: rows.length, low: [], alerted: [], cleared: [] };
      for (const row of rows as RateRow[]) {
        const rate = row.succeeded / row.total;
        const low = row.total >= LOW_SUCCESS_MIN_ATTEMPTS && rate < LOW_SUCCESS_THRESHOLD;
        if (!low) {
          if (row.low_success_since || row.low_success_alerted_at) {
            await db('webhooks').where({ id: row.id }).update({ low_success_since: null, low_success_alerted_at: null });
            result.cleared.push(row.id);
          }
          continue;
        }
        result.low.push(row.id);
        const since = row.low_success_since ?? asOf;
        if (!row.low_success_since) await db('webhooks').where({ id: row.id }).whereNull('low_success_since').update({ low_success_since: asOf });
        const sustained = asOf.getTime() - since.getTime() >= LOW_SUCCESS_WINDOW_HOURS * HOUR_MS;
        if (!sustained || row.low_success_alerted_at) continue;
        const notificationId = await openLowSuccessAlert(db, row.tenant_id, row.id, asOf, { rate, attempts: row.total, since });
        if (notificationId !== undefined) {
          result.alerted.push(row.id);
          if (notificationId) await startNotification(row.tenant_id, notificationId);
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
          .whereIn(
            'id',
            db('webhook_deliveries')
              .select('id')
              .where('created_at', '<', db.raw('now() - make_interval(days => ?)', [days]))
              .limit(SWEEP_BATCH),
          )
          .delete();
        deleted += count;
        if (count < SWEEP_BATCH) return { deleted };
        Context.current().heartbeat({ deleted });
      }
    },
  };
}

export type WebhookHealthActivities = ReturnType<typeof createWebhookHealthActivities>;

/** The notification id ('' when nobody can be told), or undefined when another check alerted first. */
async function openLowSuccessAlert(db: Db, tenantId: string, webhookId: string, asOf: Date, stats: { rate: number; attempts: number; since: Date }): Promise<string | undefined> {
  return db.transaction(async (tx) => {
    const [webhook] = (await tx('webhooks')
      .where({ tenant_id: tenantId, id: webhookId })
      .whereNull('low_success_alerted_at')
      .update({ low_success_alerted_at: asOf })
      .returning('*')) as WebhookRow[];
    if (!webhook) return undefined;
    const episode = `webhook.low_success_rate/${webhook.id}/${stats.since.toISOString()}`;
    const successRate = Math.round(stats.rate * 1000) / 1000;
    await appendEvent(tx, {
      tenantId,
      type: 'webhook.low_success_rate',
      data: { webhook_id: webhook.id, success_rate: successRate, attempts: stats.attempts, window_hours: LOW_SUCCESS_WINDOW_HOURS, low_since: stats.since.toISOString() },
      source: 'webhooks',
      idempotencyKey: episode,
    });
    const notificationId = await queueWebhookAlert(tx, webhook, episode, {
      category: 'webhook.low_success_rate',
      subject: 'A webhook delivers less than half of its attempts',
      audience: 'owner',
      body:
        `Webhook ${webhook.id}${webhook.description ? ` (${webhook.description})` : ''} to ${webhook.url} succeeded in ` +
        `${Math.round(successRate * 100)} % of its ${stats.attempts} attempts over the last ${LOW_SUCCESS_WINDOW_HOURS} hours, ` +
        `and has stayed below 50 % since ${stats.since.toISOString()}. ` +
        `See GET /api/v1/integrations/webhooks/${webhook.id}/analytics.`,
    });
    return notificationId ?? '';
  });
}
