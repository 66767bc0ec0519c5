import type { Knex } from 'knex';
import { TenantScope, whereUuidIs } from '../tenant-scope';

/** A list of the tenant's rows in `table`: its columns, in its order (filters come after). */
export function listQuery(scope: TenantScope, table: string, columns: readonly string[], orderBy: Array<{ column: string; order?: 'asc' | 'desc' }>): Knex.QueryBuilder {
  return scope
    .table(table)
    .select([...columns])
    .orderBy(orderBy);
}

/**
 * A list's client-given uuid filters: each value given narrows `q` to its column, and a value that
 * is not a UUID matches nothing (whereUuidIs). `columns` maps a filter key to its column.
 */
export function whereUuidFilters<F extends object>(q: Knex.QueryBuilder, filter: F, columns: Partial<Record<keyof F & string, string>>): void {
  for (const [key, column] of Object.entries(columns) as Array<[keyof F & string, string]>) {
    const value = filter[key];
    if (typeof value === 'string') whereUuidIs(q, column, value);
  }
}
