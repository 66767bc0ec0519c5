import type { Knex } from 'knex';
import { isUuid, TenantScope } from '../tenant-scope';
import { pgArray } from './pg-array';

export interface AssetRow {
  id: string;
  tenant_id: string;
  name: string;
  type: string;
  parent_id: string | null;
  location: { building?: string; floor?: number; zone?: string };
  metadata: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

export const ASSET_COLUMNS = ['id', 'name', 'type', 'parent_id', 'location', 'metadata', 'created_at', 'updated_at'] as const;

export function findAsset(scope: TenantScope, id: string): Promise<AssetRow | undefined> {
  return scope.table('assets').where('assets.id', id).first();
}

/**
 * True when `candidateParentId` is `assetId` itself or one of its descendants: making it the
 * parent would close a cycle. One recursive query walking up from the candidate.
 */
export async function wouldCreateCycle(scope: TenantScope, assetId: string, candidateParentId: string): Promise<boolean> {
  const { rows } = await scope.db.raw(
    `with recursive ancestors(id, parent_id, depth) as (
       select id, parent_id, 0 from assets where tenant_id = ? and id = ?
       union all
       select a.id, a.parent_id, anc.depth + 1 from assets a
         join ancestors anc on a.id = anc.parent_id and a.tenant_id = ?
       where anc.depth < 1000
     )
     select 1 from ancestors where id = ? limit 1`,
    [scope.tenantId, candidateParentId, scope.tenantId, assetId],
  );
  return rows.length > 0;
}

export async function countChildren(scope: TenantScope, id: string): Promise<number> {
  const [{ count }] = await scope.table('assets').where('assets.parent_id', id).count({ count: '*' });
  return Number(count);
}

/** The types of those of the given ids (uuids) that name an asset of the tenant, by id. */
export async function assetTypesByIds(scope: TenantScope, ids: readonly string[]): Promise<Map<string, string>> {
  const rows: { id: string; type: string }[] = ids.length
    ? await scope
        .table('assets')
        .whereRaw('id = any(?::uuid[])', [pgArray(ids)])
        .select('id', 'type')
    : [];
  return new Map(rows.map((r) => [r.id, r.type]));
}

export interface AssetFilter {
  type?: string;
  parent_id?: string;
}

/** The tenant's assets, oldest first; a parent_id that is no uuid names none. */
export function assetListQuery(scope: TenantScope, filter: AssetFilter): Knex.QueryBuilder {
  const q = scope
    .table('assets')
    .select(ASSET_COLUMNS)
    .orderBy([{ column: 'created_at' }, { column: 'id' }]);
  if (filter.type) q.where('type', filter.type);
  if (filter.parent_id) {
    if (isUuid(filter.parent_id)) q.where('parent_id', filter.parent_id);
    else q.whereRaw('false');
  }
  return q;
}

/** Moves the children of an asset to another parent (null: they become roots). */
export async function reparentChildren(scope: TenantScope, id: string, parentId: string | null, now: Date): Promise<void> {
  await scope.table('assets').where('parent_id', id).update({ parent_id: parentId, updated_at: now });
}
