import { Queryable } from '../knex';
import { ASSET_COLUMNS, AssetRow } from './assets';

export interface TreeRow extends AssetRow {
  level: number;
  /** True on the deepest returned level when the asset has children that were not returned. */
  children_truncated: boolean;
}

/**
 * The subtree under `rootId` (or every root asset's when null), `depth` levels deep with the roots
 * as level 1, in one recursive query. Ordered by level, name, id so children come out in name order.
 */
export async function assetSubtree(db: Queryable, tenantId: string, rootId: string | null, depth: number): Promise<TreeRow[]> {
  const cols = ASSET_COLUMNS.map((c) => `a.${c}`).join(', ');
  const { rows } = await db.raw(
    `with recursive tree as (
       select ${cols}, 1 as level from assets a
        where a.tenant_id = ? and ${rootId ? 'a.id = ?' : 'a.parent_id is null'}
       union all
       select ${ASSET_COLUMNS.map((c) => `c.${c}`).join(', ')}, t.level + 1 from assets c
         join tree t on c.parent_id = t.id
        where c.tenant_id = ? and t.level < ?
     )
     select t.*, (t.level = ? and exists (select 1 from assets g where g.tenant_id = ? and g.parent_id = t.id)) as children_truncated
       from tree t
      order by t.level, t.name, t.id`,
    [tenantId, ...(rootId ? [rootId] : []), tenantId, depth, depth, tenantId],
  );
  return rows;
}

export type TreeNode<T> = T & { children: TreeNode<T>[] };

/** Nests rows (parents before children, as assetSubtree orders them) under their parents. */
export function nestTree<T>(rows: readonly TreeRow[], toItem: (row: TreeRow) => T): TreeNode<T>[] {
  const nodes = new Map<string, TreeNode<T>>();
  const roots: TreeNode<T>[] = [];
  for (const row of rows) {
    const node = { ...toItem(row), children: [] } as TreeNode<T>;
    nodes.set(row.id, node);
    const parent = row.level > 1 && row.parent_id ? nodes.get(row.parent_id) : undefined;
    if (parent) parent.children.push(node);
    else roots.push(node);
  }
  return roots;
}
