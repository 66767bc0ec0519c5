/**
 * An asset type's corrective history in one tenant (the failure prior of the general prognostics
 * model, domain/prognostics/failure-prior.ts): its assets' days of exposure in the window, and the
 * corrective tasks opened on them, cancelled ones left out (opened by mistake, not a failure).
 */
import type { FailureHistory } from '../../domain/prognostics/failure-prior';
import { Queryable } from '../knex';
import { tenantScope } from '../tenant-scope';

const SECONDS_PER_DAY = 86_400;

export async function typeFailureHistory(db: Queryable, tenantId: string, assetType: string, windowDays: number, now: Date): Promise<FailureHistory> {
  const scope = tenantScope(db, tenantId);
  const since = new Date(now.getTime() - windowDays * SECONDS_PER_DAY * 1000);
  const typed = scope.table('assets').where('type', assetType).where('created_at', '<=', now);
  const [exposure] = await typed
    .clone()
    .select(
      db.raw('count(*)::int as assets'),
      db.raw('coalesce(sum(extract(epoch from (?::timestamptz - greatest(created_at, ?::timestamptz)))), 0)::float8 as seconds', [now, since]),
    );
  const [tasks] = await scope
    .table('maintenance_tasks')
    .where({ kind: 'corrective' })
    .whereNot('status', 'cancelled')
    .whereBetween('created_at', [since, now])
    // asset_ids overlaps the type's assets (the GIN index on asset_ids serves `&&`).
    .whereRaw('asset_ids && array(?)', [typed.clone().select('id')])
    .count<{ count: string }[]>({ count: '*' });
  return {
    asset_type: assetType,
    assets: Number(exposure?.assets ?? 0),
    exposure_days: Number(exposure?.seconds ?? 0) / SECONDS_PER_DAY,
    corrective_tasks: Number(tasks?.count ?? 0),
  };
}
