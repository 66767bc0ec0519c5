import type { OutboxRow } from '../../services/internal';

/**
 * An event the dispatcher could not hand over, as the internal API and the operator command answer
 * it: ids, type and error only, never the event's data.
 */
export function toOutboxItem(row: OutboxRow) {
  return {
    id: row.id,
    tenant_id: row.tenant_id,
    type: row.type,
    attempts: row.attempts,
    last_error: row.last_error,
    next_attempt_at: row.next_attempt_at?.toISOString() ?? null,
    parked_at: row.parked_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
  };
}
