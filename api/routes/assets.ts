import Joi from '../../domain/joi';
import { ASSET_COLUMNS, countChildren, findAsset, wouldCreateCycle } from '../../db/queries/assets';
import { isUuid, TenantScope } from '../../db/tenant-scope';
import { tenantScopeOf } from '../context';
import { AppError, conflict, validationError } from '../../domain/errors';
import { pageQuery, pageOf } from '../pagination';
import { paginate, PageRequest } from '../../db/pagination';
import { assertWithinPlanLimit, countRows } from '../../db/plan-limits';
import { ApiRouter } from '../route';
import { resourceRoutes } from '../resource-routes';
import { registerAlertListRoute, registerAlertRoutes, registerBaselineRoutes } from './asset-alerts';
import { registerAssetStateRoutes } from './asset-state';
import { registerAssetTreeRoute } from './asset-tree';
import { registerDigitalTwinRoutes } from './asset-twin';
import { assetResource, assetSchema, location, toAsset } from '../resources/asset';
import { idRef } from '../validation';

export { assetSchema, requireAsset, toAsset } from '../resources/asset';

// Free-form attributes, bounded so one asset cannot carry megabytes of JSON.
const metadata = Joi.object()
  .unknown(true)
  .custom((value, helpers) => (JSON.stringify(value).length > 16_384 ? helpers.message({ custom: 'must be at most 16 KB of JSON' }) : value));
const assetFields = {
  name: Joi.string().trim().min(1).max(200),
  type: Joi.string().trim().min(1).max(100),
  parent_id: idRef.allow(null),
  location,
  metadata,
};
const createBody = Joi.object({ ...assetFields, name: assetFields.name.required(), type: assetFields.type.required() });
const updateBody = Joi.object(assetFields).min(1);

type AssetBody = { name?: string; type?: string; parent_id?: string | null; location?: object; metadata?: object };

async function requireParent(scope: TenantScope, parentId: string): Promise<void> {
  if (!isUuid(parentId) || !(await findAsset(scope, parentId))) {
    throw validationError('parent_id does not name an asset of this tenant', [{ field: 'body.parent_id', message: 'unknown asset', type: 'any.unknown_reference' }]);
  }
}

const jsonColumns = (body: AssetBody) => ({
  ...body,
  ...(body.location !== undefined ? { location: JSON.stringify(body.location) } : {}),
  ...(body.metadata !== undefined ? { metadata: JSON.stringify(body.metadata) } : {}),
});

export function assetRoutes(): ApiRouter {
  const api = new ApiRouter('/api/v1/assets');
  // Static paths first: /tree and /alerts must not be taken for an :asset_id.
  registerAssetTreeRoute(api);
  registerAlertListRoute(api);

  api.route<unknown, PageRequest & { type?: string; parent_id?: string }>({
    method: 'get',
    path: '/',
    summary: 'List assets',
    tags: ['assets'],
    auth: 'user',
    permission: 'view_assets',
    query: Joi.object({ ...pageQuery, type: Joi.string().max(100), parent_id: idRef }),
    responses: {
      200: { description: 'A page of assets', schema: pageOf(assetSchema) },
    },
    handler: async (ctx, { query }) => {
      const q = tenantScopeOf(ctx)
        .table('assets')
        .select(ASSET_COLUMNS)
        .orderBy([{ column: 'created_at' }, { column: 'id' }]);
      if (query.type) q.where('type', query.type);
      if (query.parent_id) {
        if (isUuid(query.parent_id)) q.where('parent_id', query.parent_id);
        else q.whereRaw('false');
      }
      ctx.body = await paginate(q, query, toAsset);
    },
  });

  const asset = resourceRoutes(api, assetResource);
  asset.create<AssetBody>(
    { summary: 'Create an asset', body: createBody, created: 'Created asset', responses: { 403: { description: 'Plan limit reached' } } },
    {
      check: async (unit, body) => {
        if (body.parent_id) await requireParent(unit.scope, body.parent_id);
        await assertWithinPlanLimit(unit.tx, unit.scope.tenantId, 'assets', countRows('assets', unit.scope.tenantId));
      },
      columns: jsonColumns,
      after: (unit, row) => unit.emit('asset.created', { asset_id: row.id, type: row.type, parent_id: row.parent_id }),
    },
  );
  asset.get({ summary: 'Get an asset', found: 'Asset' });
  asset.update<AssetBody>(
    {
      summary: 'Update the fields sent; omitted fields keep their values',
      body: updateBody,
      updated: 'Updated asset',
      responses: { 409: { description: 'parent_id would create a cycle' } },
    },
    {
      check: async (unit, before, body) => {
        if (!body.parent_id) return;
        await requireParent(unit.scope, body.parent_id);
        if (await wouldCreateCycle(unit.scope, before.id, body.parent_id)) throw conflict('parent_id would make the asset its own ancestor');
      },
      columns: jsonColumns,
    },
  );
  asset.remove<{ children?: 'refuse' | 'reparent' }>(
    {
      summary: 'Delete an asset; one with children is refused unless the body asks to re-parent them',
      description: 'Body (optional): `{"children": "reparent"}` moves the children to the deleted asset\'s parent.',
      body: Joi.object({ children: Joi.string().valid('refuse', 'reparent').default('refuse') }),
      responses: { 409: { description: 'The asset has children' } },
    },
    {
      before: async (unit, row, body) => {
        const children = await countChildren(unit.scope, row.id);
        if (children > 0 && body.children !== 'reparent') {
          throw new AppError('CONFLICT', `asset has ${children} child asset(s); send {"children":"reparent"} to move them to its parent`, { children });
        }
        if (children > 0) await unit.scope.table('assets').where('parent_id', row.id).update({ parent_id: row.parent_id, updated_at: new Date() });
        return { reparented_children: children };
      },
      after: (unit, row) => unit.emit('asset.deleted', { asset_id: row.id }),
    },
  );

  registerBaselineRoutes(api);
  registerAlertRoutes(api);
  registerAssetStateRoutes(api);
  registerDigitalTwinRoutes(api);
  return api;
}
