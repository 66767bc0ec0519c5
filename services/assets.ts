/**
 * Assets, without HTTP: the list takes the tenant's scope; the rules api/routes/assets.ts
 * (resourceRoutes) applies around its standard create, update and delete take the unit of work.
 */
import { AssetFilter, assetListQuery, AssetRow, countChildren, findAsset, reparentChildren, wouldCreateCycle } from '../db/queries/assets';
import { paginate, type Page, type PageRequest } from '../db/pagination';
import { assertWithinPlanLimit, countRows } from '../db/plan-limits';
import { isUuid, type TenantScope } from '../db/tenant-scope';
import type { Unit } from '../db/unit-of-work';
import { AppError, conflict, validationError } from '../domain/errors';

export type { AssetFilter };

export type AssetBody = { name?: string; type?: string; parent_id?: string | null; location?: object; metadata?: object };
export type ChildrenOnDelete = 'refuse' | 'reparent';

export function listAssets(scope: TenantScope, filter: AssetFilter, page: PageRequest): Promise<Page<AssetRow>> {
  return paginate(assetListQuery(scope, filter), page);
}

async function requireParent(scope: TenantScope, parentId: string): Promise<void> {
  if (!isUuid(parentId) || !(await findAsset(scope, parentId))) {
    throw validationError('parent_id does not name an asset of this tenant', [{ field: 'body.parent_id', message: 'unknown asset', type: 'any.unknown_reference' }]);
  }
}

/** A new asset's parent must be the tenant's (422), and the plan's asset limit not reached (403). */
export async function checkNewAsset(unit: Unit, body: AssetBody): Promise<void> {
  if (body.parent_id) await requireParent(unit.scope, body.parent_id);
  await assertWithinPlanLimit(unit.tx, unit.scope.tenantId, 'assets', countRows('assets', unit.scope.tenantId));
}

/** A new parent must be the tenant's (422) and not the asset itself or one of its descendants (409). */
export async function checkAssetChange(unit: Unit, before: AssetRow, body: AssetBody): Promise<void> {
  if (!body.parent_id) return;
  await requireParent(unit.scope, body.parent_id);
  if (await wouldCreateCycle(unit.scope, before.id, body.parent_id)) throw conflict('parent_id would make the asset its own ancestor');
}

/** The columns a body writes: location and metadata as JSON. */
export const assetColumns = (body: AssetBody) => ({
  ...body,
  ...(body.location !== undefined ? { location: JSON.stringify(body.location) } : {}),
  ...(body.metadata !== undefined ? { metadata: JSON.stringify(body.metadata) } : {}),
});

/** Before a delete: an asset with children is refused (409) unless they are to move to its parent. */
export async function prepareAssetRemoval(unit: Unit, row: AssetRow, children: ChildrenOnDelete | undefined): Promise<{ reparented_children: number }> {
  const count = await countChildren(unit.scope, row.id);
  if (count > 0 && children !== 'reparent') {
    throw new AppError('CONFLICT', `asset has ${count} child asset(s); send {"children":"reparent"} to move them to its parent`, { children: count });
  }
  if (count > 0) await reparentChildren(unit.scope, row.id, row.parent_id, new Date());
  return { reparented_children: count };
}

export const announceAssetCreated = (unit: Unit, row: AssetRow) => unit.emit('asset.created', { asset_id: row.id, type: row.type, parent_id: row.parent_id });
export const announceAssetDeleted = (unit: Unit, row: AssetRow) => unit.emit('asset.deleted', { asset_id: row.id });
