import { Knex } from 'knex';
import { appendAudit, Actor } from './audit';
import { Db } from './knex';
import { appendEvent, OutboxEvent } from './outbox';
import { sessionSeesOnly } from './db-scope';
import { declareTenant } from './row-security';
import { tenantScope, TenantScope } from './tenant-scope';

/** Who acts, for which tenant, in which request: what a unit of work records with its change. */
export interface UnitContext {
  readonly tenantId: string;
  readonly actor: Actor;
  /** The API request's id (null outside a request: a worker, a CLI). */
  readonly requestId: string | null;
}

/** A unit's context when a signed-in user acts and the change records who (created_by, approved_by). */
export type UserUnitContext = UnitContext & { readonly userId: string };

export interface UnitAudit {
  action: string;
  resourceType: string;
  resourceId: string | null;
  details?: Record<string, unknown>;
  subjectId?: string;
}

export interface Unit {
  tx: Knex.Transaction;
  scope: TenantScope;
  /** Queue an outbox event; it commits with the change. */
  emit(type: string, data: Record<string, unknown>, opts?: Pick<OutboxEvent, 'idempotencyKey' | 'occurredAt'>): void;
  /** Declare the audit record; required before the unit commits. */
  audit(entry: UnitAudit): void;
}

/**
 * One unit of work for a change: the change, its outbox events and its audit row commit together
 * or not at all. A unit that forgets to declare its audit record fails, so no caller can skip the
 * trail by accident. Knows nothing of HTTP: routes (api/mutation.ts), workers and CLIs share it.
 * The transaction runs in its tenant's row-level security scope (db/row-security.ts): even a query
 * without the tenant filter reads and writes that tenant's rows only. It declares the tenant
 * unless its connection's session is already in that scope (db/db-scope.ts).
 */
export async function runUnit<T>(db: Db, context: UnitContext, work: (unit: Unit) => Promise<T>): Promise<T> {
  const { tenantId, actor, requestId } = context;
  const nested = Boolean(db.isTransaction);
  return db.transaction(async (tx) => {
    // Skipped where the connection's session already has this scope (an API request or activity
    // of this tenant): a round trip off every unit of work, nothing changed in what it sees.
    if (nested || !(await sessionSeesOnly(tx, tenantId))) await declareTenant(tx, tenantId);
    const events: OutboxEvent[] = [];
    let auditEntry: UnitAudit | null = null;
    const unit: Unit = {
      tx,
      scope: tenantScope(tx, tenantId),
      // A block body: the hooks of api/resource-routes.ts take what a hook returns as audit details,
      // so emit must return nothing (push's count would become the details).
      emit: (type, data, opts = {}) => {
        events.push({ tenantId, type, data, ...opts });
      },
      audit: (entry) => {
        auditEntry = entry;
      },
    };
    const result = await work(unit);
    if (!auditEntry) throw new Error('unit of work committed without an audit record');
    for (const event of events) await appendEvent(tx, event);
    const entry: UnitAudit = auditEntry;
    await appendAudit(tx, { tenantId, actor, requestId, ...entry });
    return result;
  });
}
