import { Knex } from 'knex';

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;

export interface PageRequest {
  skip: number;
  limit: number;
}

export interface Page<T> {
  items: T[];
  total: number;
  skip: number;
  limit: number;
}

/**
 * Runs a list query as one page plus its total. The query must carry its filters (and tenant
 * scope) but no limit/offset; ordering is kept for the page and dropped for the count.
 */
export async function paginate<TRow, TItem = TRow>(
  query: Knex.QueryBuilder,
  page: PageRequest,
  toItem: (row: TRow) => TItem = (row) => row as unknown as TItem,
): Promise<Page<TItem>> {
  const countQuery = query.clone().clearSelect().clearOrder().count<{ count: string }[]>({ count: '*' });
  const [rows, [{ count }]] = await Promise.all([query.clone().offset(page.skip).limit(page.limit), countQuery]);
  return { items: (rows as TRow[]).map(toItem), total: Number(count), skip: page.skip, limit: page.limit };
}

/** A page of rows (a service's answer) with each row shaped into the answer's item. */
export function mapPage<TRow, TItem>(page: Page<TRow>, toItem: (row: TRow) => TItem): Page<TItem> {
  return { ...page, items: page.items.map((row) => toItem(row)) };
}
