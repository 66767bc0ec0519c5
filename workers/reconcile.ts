import { Db } from '../db/knex';
import { TemporalGateway } from '../infra/temporal';
import { startNotificationDelivery } from '../orchestration/notifications';
import type { Logger } from 'pino';

/**
 * Rows whose workflow may never have started (the API crashed, or Temporal was down, between the
 * commit and the start) get their workflow now. Starts are idempotent by workflow id, so running
 * this on every worker start is harmless.
 */
export async function reconcileQueuedNotifications(db: Db, temporal: TemporalGateway, log: Logger): Promise<number> {
  const rows = await db('notifications').where({ status: 'queued' }).select('tenant_id', 'id').limit(1000);
  for (const row of rows) await startNotificationDelivery(temporal, row.tenant_id, row.id);
  if (rows.length > 0) log.info({ count: rows.length }, 'reconciled queued notifications');
  return rows.length;
}
