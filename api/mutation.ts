import { Knex } from 'knex';
import { appendAudit, Actor } from '../db/audit';
import { appendEvent, OutboxEvent } from '../db/outbox';
import { tenantScope, TenantScope } from '../db/tenant-scope';
import { AppContext } from './context';

export interface MutationAudit {
  action: string;
  resourceType: string;
  resourceId: string | null;
  details?: Record<string, unknown>;
  subjectId?: string;
}

export interface MutationUnit {
  tx: Knex.Transaction;
  scope: TenantScope;
  /** Queue an outbox event; it commits with the change. */
  emit(type: string, data: Record<string, unknown>, opts?: Pick<OutboxEvent, 'idempotencyKey' | 'occurredAt'>): void;
  /** Declare the audit record; required before the unit commits. */
  audit(entry: MutationAudit): void;
}

/**
 * One unit of work for a mutating call: the change, its outbox events and its audit row commit
 * together or not at all. A unit that forgets to declare its audit record fails, so no mutating
 * route can skip the trail by accident.
 */
export async function runMutation<T>(
  ctx: AppContext,
  tenantId: string,
  actor: Actor,
  work: (unit: MutationUnit) => Promise<T>,
): Promise<T> {
  return ctx.deps.db.transaction(async (tx) => {
    const events: OutboxEvent[] = [];
    let auditEntry: MutationAudit | null = null;
    const unit: MutationUnit = {
      tx,
      scope: tenantScope(tx, tenantId),
      emit: (type, data, opts = {}) => events.push({ tenantId, type, data, ...opts }),
      audit: (entry) => {
        auditEntry = entry;
      },
    };
    const result = await work(unit);
    if (!auditEntry) throw new Error('mutation committed without an audit record');
    for (const event of events) await appendEvent(tx, event);
    const entry: MutationAudit = auditEntry;
    await appendAudit(tx, { tenantId, actor, requestId: ctx.state.requestId, ...entry });
    return result;
  });
}

/** The acting principal of a request, as the audit trail records it. */
export function actorOf(ctx: AppContext): Actor {
  const p = ctx.state.principal;
  if (p?.kind === 'user') return { type: 'user', id: p.userId };
  if (p?.kind === 'service') return { type: 'service', id: p.serviceId };
  return { type: 'system', id: null };
}
