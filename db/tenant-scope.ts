import { Knex } from 'knex';
import { isUuid as isUuidValue } from '../domain/ids';
import { Queryable } from './knex';

/**
 * The only way route and activity code reaches tenant data: every query built here carries the
 * tenant filter, and every insert the tenant id, so no caller can forget either. Another
 * tenant's row is then simply "not found".
 */
export interface TenantScope {
  readonly tenantId: string;
  readonly db: Queryable;
  /** `select/update/delete ... from <table> where <table>.tenant_id = ?` */
  table<TRecord extends object = any>(table: string): Knex.QueryBuilder<TRecord, any>;
  /** Inserts rows with this tenant's id, returning the given columns. */
  insert<TRow extends Record<string, unknown>>(table: string, rows: TRow | TRow[], returning?: string[]): Promise<any[]>;
  /** The same scope bound to an open transaction. */
  within(tx: Knex.Transaction): TenantScope;
}

export function tenantScope(db: Queryable, tenantId: string): TenantScope {
  return {
    tenantId,
    db,
    table: (table) => db(table).where(`${table}.tenant_id`, tenantId),
    insert: (table, rows, returning = ['*']) => {
      const list = (Array.isArray(rows) ? rows : [rows]).map((r) => ({ ...r, tenant_id: tenantId }));
      return db(table).insert(list).returning(returning);
    },
    within: (tx) => tenantScope(tx, tenantId),
  };
}

/** Ids are UUIDs; anything else cannot name a record, so it is "not found" without a query error. */
export { isUuid } from '../domain/ids';

/**
 * Narrows `q` to rows whose uuid `column` equals a client-given `value`; a value that is not a
 * UUID matches nothing (PostgreSQL would refuse the cast and answer 500).
 */
export function whereUuidIs(q: Knex.QueryBuilder, column: string, value: string): void {
  if (isUuidValue(value)) q.where(column, value);
  else q.whereRaw('false');
}
