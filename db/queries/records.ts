/**
 * The plain writes of one tenant record by id, for the services whose resources are simple rows
 * (agents and their channels): insert, partial update (with `updated_at`) and delete.
 */
import { TenantScope } from '../tenant-scope';

/** Inserts a row with the tenant's id; answers the `returning` columns (default all). */
export async function insertRecord<Row>(scope: TenantScope, table: string, columns: Record<string, unknown>, returning?: readonly string[]): Promise<Row> {
  const [row] = await scope.insert(table, columns, returning ? [...returning] : undefined);
  return row as Row;
}

/** Writes the changes and `updated_at`; answers the `returning` columns (default all). */
export async function updateRecord<Row>(scope: TenantScope, table: string, id: string, changes: Record<string, unknown>, returning?: readonly string[]): Promise<Row> {
  const [row] = await scope
    .table(table)
    .where('id', id)
    .update({ ...changes, updated_at: new Date() })
    .returning(returning ? [...returning] : '*');
  return row as Row;
}

export async function deleteRecord(scope: TenantScope, table: string, id: string): Promise<void> {
  await scope.table(table).where('id', id).delete();
}

/** The record by id, all its columns. */
export function recordById<Row>(scope: TenantScope, table: string, id: string): Promise<Row | undefined> {
  return scope.table(table).where('id', id).first();
}

/** Whether another record of the tenant has `value` in `column`. */
export async function valueTaken(scope: TenantScope, table: string, column: string, value: string, exceptId?: string): Promise<boolean> {
  const q = scope.table(table).where(column, value);
  if (exceptId) q.whereNot('id', exceptId);
  return Boolean(await q.first('id'));
}
