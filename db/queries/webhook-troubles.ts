/**
 * Webhooks in trouble, for the operator (cli/ `webhooks failing`): failing (their deliveries keep
 * failing), disabled because the receiver answered 410 Gone, or with a circuit that is not closed;
 * with the count of their parked deliveries.
 */
import type { Knex } from 'knex';
import type { BreakerStateName } from '../../domain/webhooks/circuit-breaker';
import type { Queryable } from '../knex';

export interface TroubledWebhookRow {
  tenant_id: string;
  webhook_id: string;
  url: string;
  status: string;
  failing_since: Date | null;
  disabled_reason: string | null;
  /** null: no circuit row (it never failed: closed). */
  breaker_state: BreakerStateName | null;
  breaker_since: Date | null;
  consecutive_failures: number | null;
  /** Its deliveries parked behind the circuit. */
  parked: number;
}

/** Oldest trouble first; `tenantId` narrows to one tenant. */
export function troubledWebhooksQuery(db: Queryable, tenantId?: string): Knex.QueryBuilder {
  return db('webhooks as w')
    .leftJoin('webhook_circuit_breakers as b', (on) => void on.on('b.tenant_id', 'w.tenant_id').andOn('b.webhook_id', 'w.id'))
    .modify((q) => void (tenantId ? q.where('w.tenant_id', tenantId) : q))
    .where((w) => void w.where('w.status', 'failing').orWhere('w.disabled_reason', 'gone').orWhereIn('b.state', ['open', 'half_open']))
    .select(
      'w.tenant_id',
      'w.id as webhook_id',
      'w.url',
      'w.status',
      'w.failing_since',
      'w.disabled_reason',
      'b.state as breaker_state',
      'b.since as breaker_since',
      'b.consecutive_failures',
      db.raw('(select count(*) from webhook_parked_deliveries p where p.tenant_id = w.tenant_id and p.webhook_id = w.id)::int as parked'),
    )
    .orderByRaw('coalesce(w.failing_since, b.since) asc nulls last, w.id');
}
