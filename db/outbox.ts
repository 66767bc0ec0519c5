import { Knex } from 'knex';

export interface OutboxEvent {
  tenantId: string;
  type: string;
  data: Record<string, unknown>;
  occurredAt?: Date;
  source?: string;
  /** The sender's event id: the same key is stored once per tenant. */
  idempotencyKey?: string;
}

/**
 * Writes an event in the caller's transaction (the outbox): it exists exactly when the change
 * that caused it committed. The webhook dispatcher reads undispatched rows and starts deliveries.
 * Returns the event id, or the existing one when the idempotency key was seen before.
 */
export async function appendEvent(tx: Knex.Transaction, event: OutboxEvent): Promise<{ id: string; duplicate: boolean }> {
  const row = {
    tenant_id: event.tenantId,
    type: event.type,
    data: JSON.stringify(event.data),
    occurred_at: event.occurredAt ?? new Date(),
    source: event.source ?? 'api',
    idempotency_key: event.idempotencyKey ?? null,
  };
  if (!event.idempotencyKey) {
    const [inserted] = await tx('outbox_events').insert(row).returning('id');
    return { id: inserted.id, duplicate: false };
  }
  const inserted = await tx('outbox_events')
    .insert(row)
    .onConflict(['tenant_id', 'idempotency_key'])
    .ignore()
    .returning('id');
  if (inserted.length > 0) return { id: inserted[0].id, duplicate: false };
  const existing = await tx('outbox_events')
    .where({ tenant_id: event.tenantId, idempotency_key: event.idempotencyKey })
    .first('id');
  return { id: existing.id, duplicate: true };
}
