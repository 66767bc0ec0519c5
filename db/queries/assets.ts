import { TenantScope } from '../tenant-scope';

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
