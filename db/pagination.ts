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

// Names no table of ours uses, so the page's own columns keep theirs.
const PAGE = '__page';
const TOTAL = '__page_total';

/**
 * Runs a list query as one page plus its total. The query must carry its filters (and tenant
 * scope) but no limit/offset; ordering is kept for the page and dropped for the count.
 *
 * The page and its total come from one statement, so they see the same snapshot: two statements
 * (as before) let a row arrive between them and answer `total: 1` with no items. One statement
 * is also safe inside a transaction, where two concurrent queries would share one connection.
 * An empty page past the first has no row to carry the total, so only then is it counted apart.
 */
export async function paginate<TRow, TItem = TRow>(
  query: Knex.QueryBuilder,
  page: PageRequest,
  toItem: (row: TRow) => TItem = (row) => row as unknown as TItem,
): Promise<Page<TItem>> {
  const countQuery = query.clone().clearSelect().clearOrder().count({ count: '*' });
  const pageQuery = query.clone().offset(page.skip).limit(page.limit);
  const rows: Array<Record<string, unknown>> = await query.client.queryBuilder().with(PAGE, pageQuery).select(countQuery.as(TOTAL), `${PAGE}.*`).from(PAGE);
  let total: number;
  if (rows.length > 0) total = Number(rows[0]![TOTAL]);
  else if (page.skip === 0) total = 0;
  else total = Number(((await countQuery) as Array<{ count: string }>)[0]!.count);
  const items = rows.map((row) => {
    const { [TOTAL]: _total, ...rest } = row;
    return toItem(rest as TRow);
  });
  return { items, total, skip: page.skip, limit: page.limit };
}

/** A page of rows (a service's answer) with each row shaped into the answer's item. */
export function mapPage<TRow, TItem>(page: Page<TRow>, toItem: (row: TRow) => TItem): Page<TItem> {
  return { ...page, items: page.items.map((row) => toItem(row)) };
}
