/**
 * The asset hierarchy, without HTTP: one recursive query below a root (or every root), nested
 * parents before children. api/routes/asset-tree.ts is the HTTP face.
 */
import { assetSubtree, nestTree, TreeNode, TreeRow } from '../db/queries/asset-tree';
import { isUuid, type TenantScope } from '../db/tenant-scope';
import { notFound } from '../domain/errors';

export type { TreeNode, TreeRow };

/**
 * The subtree of `rootId` (null: every root asset) down to `depth` levels including the root,
 * each row shaped by `toItem`; a root that names no asset of the tenant is a 404.
 */
export async function assetTree<T>(scope: TenantScope, rootId: string | null, depth: number, toItem: (row: TreeRow) => T): Promise<TreeNode<T>[]> {
  if (rootId !== null && !isUuid(rootId)) throw notFound('asset');
  const rows = await assetSubtree(scope.db, scope.tenantId, rootId, depth);
  if (rootId !== null && rows.length === 0) throw notFound('asset');
  return nestTree(rows, toItem);
}
