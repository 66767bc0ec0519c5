/**
 * What the internal API (service tokens) reads and changes across tenants: the tenants a token
 * names, their staff, and the outbox. A token's grant narrows every outbox query.
 */
import type { Knex } from 'knex';
import type { Db, Queryable } from '../knex';

/** The tenants a service token may act for: all, or the listed ids. */
export type TenantGrant = readonly string[] | '*';

export const OUTBOX_ITEM_COLUMNS = ['id', 'tenant_id', 'type', 'attempts', 'last_error', 'next_attempt_at', 'parked_at', 'created_at'];

export interface OutboxRow {
  id: string;
  tenant_id: string;
  type: string;
  attempts: number;
  last_error: string | null;
  next_attempt_at: Date | null;
  parked_at: Date | null;
  created_at: Date;
}

export type OutboxStatus = 'parked' | 'retrying';

/** Which of the addresses are active users of the tenant, lower-cased. */
export async function activeUserEmails(db: Db, tenantId: string, emails: readonly string[]): Promise<Set<string>> {
  const found: string[] = await db('users')
    .where({ tenant_id: tenantId, status: 'active' })
    .whereRaw('lower(email) = any(?)', [emails.map((e) => e.toLowerCase())])
    .pluck('email');
  return new Set(found.map((e) => e.toLowerCase()));
}

/** The outbox rows of the granted tenants only. */
export function grantedOutbox(db: Queryable, grant: TenantGrant): Knex.QueryBuilder {
  const q = db('outbox_events');
  return grant === '*' ? q : q.whereIn('tenant_id', grant);
}

/** Parked events newest parked first, or events waiting for a retry by their next attempt. */
export function outboxListQuery(db: Db, grant: TenantGrant, status: OutboxStatus): Knex.QueryBuilder {
  return grantedOutbox(db, grant)
    .modify(
      (q) =>
        void (status === 'parked' ? q.whereNotNull('parked_at').orderBy('parked_at', 'desc') : q.whereNull('dispatched_at').where('attempts', '>', 0).orderBy('next_attempt_at')),
    )
    .orderBy('id')
    .select(OUTBOX_ITEM_COLUMNS);
}

/** The tenant of a parked event of the grant; undefined when no parked event of the grant has this id. */
export async function parkedEventTenant(db: Queryable, grant: TenantGrant, id: string): Promise<string | undefined> {
  const row = await grantedOutbox(db, grant).where({ id }).whereNotNull('parked_at').first('tenant_id');
  return row?.tenant_id;
}

/** Returns a parked event to the dispatcher with a fresh attempt count; undefined when no parked event of the grant has this id. */
export async function requeueParked(db: Queryable, grant: TenantGrant, id: string): Promise<OutboxRow | undefined> {
  const [row] = await grantedOutbox(db, grant)
    .where({ id })
    .whereNotNull('parked_at')
    .update({ parked_at: null, dispatched_at: null, attempts: 0, next_attempt_at: null })
    .returning(OUTBOX_ITEM_COLUMNS);
  return row;
}
