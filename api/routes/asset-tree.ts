import Joi from '../../domain/joi';
import { assetTree, TreeRow } from '../../services/asset-tree';
import { tenantScopeOf } from '../context';
import { ApiRouter } from '../route';
import { assetSchema, toAsset } from '../resources/asset';
import { idRef } from '../validation';

export const DEFAULT_TREE_DEPTH = 5;
export const MAX_TREE_DEPTH = 10;

// Children have the same shape as their parent (not a $ref: the OpenAPI builder has no shared components).
const treeNode = assetSchema.keys({
  children: Joi.array().items(Joi.object().unknown(true).description('A tree node, as its parent')),
  children_truncated: Joi.boolean().description('The asset has children below the requested depth'),
});

function toNode(row: TreeRow) {
  return { ...toAsset(row), children_truncated: row.children_truncated };
}

/** GET /assets/tree: registered before /:asset_id. */
export function registerAssetTreeRoute(api: ApiRouter): void {
  api.route<unknown, { root_id?: string; depth: number }>({
    method: 'get',
    path: '/tree',
    summary: 'Asset hierarchy as nested children',
    description:
      'Without `root_id`, every root asset (no parent) with its descendants. `depth` counts levels including the root (default 5, 1..10); ' +
      'a node on the last level whose children were cut off has `children_truncated: true`. Built by one recursive query.',
    tags: ['assets'],
    auth: 'user',
    permission: 'view_assets',
    query: Joi.object({
      root_id: idRef,
      depth: Joi.number().integer().min(1).max(MAX_TREE_DEPTH).default(DEFAULT_TREE_DEPTH),
    }),
    responses: {
      200: { description: 'Hierarchy', schema: Joi.object({ root_id: Joi.string().allow(null), depth: Joi.number(), items: Joi.array().items(treeNode) }) },
      404: { description: 'root_id names no asset of the tenant' },
    },
    handler: async (ctx, { query }) => {
      const items = await assetTree(tenantScopeOf(ctx), query.root_id ?? null, query.depth, toNode);
      ctx.body = { root_id: query.root_id ?? null, depth: query.depth, items };
    },
  });
}
