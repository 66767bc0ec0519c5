import Joi from '../../domain/joi';
import { tenantScopeOf } from '../context';
import { pageQuery, pageOf } from '../pagination';
import { mapPage, PageRequest } from '../../db/pagination';
import { ApiRouter } from '../route';
import { resourceRoutes } from '../resource-routes';
import { registerAlertListRoute, registerAlertRoutes, registerBaselineRoutes } from './asset-alerts';
import { registerAssetStateRoutes } from './asset-state';
import { registerAssetTreeRoute } from './asset-tree';
import { registerDigitalTwinRoutes } from './asset-twin';
import { assetResource, assetSchema, location, toAsset } from '../resources/asset';
import { idRef } from '../validation';
import {
  announceAssetCreated,
  announceAssetDeleted,
  AssetBody,
  assetColumns,
  AssetFilter,
  checkAssetChange,
  checkNewAsset,
  ChildrenOnDelete,
  listAssets,
  prepareAssetRemoval,
} from '../../services/assets';

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

export function assetRoutes(): ApiRouter {
  const api = new ApiRouter('/api/v1/assets');
  // Static paths first: /tree and /alerts must not be taken for an :asset_id.
  registerAssetTreeRoute(api);
  registerAlertListRoute(api);

  api.route<unknown, PageRequest & AssetFilter>({
    method: 'get',
    readOnly: true,
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
      ctx.body = mapPage(await listAssets(tenantScopeOf(ctx), query, query), toAsset);
    },
  });

  const asset = resourceRoutes(api, assetResource);
  asset.create<AssetBody>(
    { summary: 'Create an asset', body: createBody, created: 'Created asset', responses: { 403: { description: 'Plan limit reached' } } },
    {
      check: checkNewAsset,
      columns: assetColumns,
      after: announceAssetCreated,
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
      check: checkAssetChange,
      columns: assetColumns,
    },
  );
  asset.remove<{ children?: ChildrenOnDelete }>(
    {
      summary: 'Delete an asset; one with children is refused unless the body asks to re-parent them',
      description: 'Body (optional): `{"children": "reparent"}` moves the children to the deleted asset\'s parent.',
      body: Joi.object({ children: Joi.string().valid('refuse', 'reparent').default('refuse') }),
      responses: { 409: { description: 'The asset has children' } },
    },
    {
      before: (unit, row, body) => prepareAssetRemoval(unit, row, body.children),
      after: announceAssetDeleted,
    },
  );

  registerBaselineRoutes(api);
  registerAlertRoutes(api);
  registerAssetStateRoutes(api);
  registerDigitalTwinRoutes(api);
  return api;
}
