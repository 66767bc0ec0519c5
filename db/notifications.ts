import { Knex } from 'knex';
import { Queryable } from './knex';

export type NotificationStatus = 'queued' | 'sent' | 'recorded' | 'failed';

export interface NotificationInput {
  tenantId: string;
  category: string;
  recipients: string[];
  subject: string;
  body: string;
  idempotencyKey?: string;
}

export interface NotificationRecord {
  id: string;
  tenant_id: string;
  channel: 'email';
  category: string;
  recipients: string[];
  subject: string;
  body: string;
  status: NotificationStatus;
  attempts: number;
  delivered_via: string | null;
}

/** Queues a notification row (recipients live here, never in workflow history). Idempotent by key. */
export async function insertNotification(db: Queryable | Knex.Transaction, n: NotificationInput): Promise<{ id: string; duplicate: boolean }> {
  const row = {
    tenant_id: n.tenantId,
    channel: 'email',
    category: n.category,
    recipients: JSON.stringify(n.recipients),
    subject: n.subject,
    body: n.body,
    idempotency_key: n.idempotencyKey ?? null,
  };
  const inserted = await db('notifications').insert(row).onConflict(['tenant_id', 'idempotency_key']).ignore().returning('id');
  if (inserted.length > 0) return { id: inserted[0].id, duplicate: false };
  const existing = await db('notifications').where({ tenant_id: n.tenantId, idempotency_key: n.idempotencyKey }).first('id');
  return { id: existing.id, duplicate: true };
}

export function findNotification(db: Queryable, tenantId: string, id: string): Promise<NotificationRecord | undefined> {
  return db('notifications').where({ tenant_id: tenantId, id }).first();
}
