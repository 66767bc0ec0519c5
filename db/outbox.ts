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
  const inserted = await tx('outbox_events').insert(row).onConflict(['tenant_id', 'idempotency_key']).ignore().returning('id');
  if (inserted.length > 0) return { id: inserted[0].id, duplicate: false };
  const existing = await tx('outbox_events').where({ tenant_id: event.tenantId, idempotency_key: event.idempotencyKey }).first('id');
  return { id: existing.id, duplicate: true };
}

export interface OutboxBacklog {
  pending: number;
  retrying: number;
  parked: number;
  oldest_pending_seconds: number;
  /** Undispatched events of suspended tenants: the dispatcher holds them until the tenant is resumed. */
  held: number;
}

/** An event of a suspended tenant: held, not pending (the dispatcher skips its tenant). */
const HELD = 'outbox_events.tenant_id in (select id from tenants where suspended_at is not null)';

/**
 * Counts of the outbox the dispatcher has not finished with: waiting (`pending`), waiting after a
 * failed dispatch (`retrying`), given up on (`parked`), the age of the oldest waiting event, and
 * the events of suspended tenants it holds (`held`, in none of the others: a suspension must not
 * look like a dispatcher falling behind). `rows` is `db('outbox_events')` narrowed by the caller
 * (a service token's tenants), or not. Reads only the backlog and the parked rows (both partial
 * indexes), never the dispatched history.
 */
export async function outboxBacklog(db: Knex, rows: Knex.QueryBuilder): Promise<OutboxBacklog> {
  const [counts] = await rows
    .where((w) => void w.whereNull('dispatched_at').orWhereNotNull('parked_at'))
    .select(
      db.raw(`count(*) filter (where dispatched_at is null and not ${HELD})::int as pending`),
      db.raw(`count(*) filter (where dispatched_at is null and attempts > 0 and not ${HELD})::int as retrying`),
      db.raw('count(*) filter (where parked_at is not null)::int as parked'),
      db.raw(`extract(epoch from now() - min(created_at) filter (where dispatched_at is null and not ${HELD}))::float as oldest_pending_seconds`),
      db.raw(`count(*) filter (where dispatched_at is null and ${HELD})::int as held`),
    );
  return { ...counts, oldest_pending_seconds: counts.oldest_pending_seconds ?? 0 };
}
