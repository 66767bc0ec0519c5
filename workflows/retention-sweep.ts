/**
 * The retention sweep, started about every 24 h by a Temporal Schedule
 * (orchestration/privacy.ts): every tenant, every category with a retention setting, batch by
 * batch. Before each batch it may continue as new (workflows/history-budget.ts), carrying where
 * it stands (tenants still to do, the category of the first one, the count so far), so a tenant
 * with millions of expired rows cannot grow one run's history past the server's limits.
 */
import { continueAsNew, patched, proxyActivities } from '@temporalio/workflow';
import type { PrivacyExportActivities } from '../activities/privacy/exports';
import type { RetentionActivities } from '../activities/privacy/retention';
import { retentionCategories } from '../domain/privacy/registry';
import { historyBudgetSpent } from './history-budget';

const { listTenantIds, sweepRetentionBatch } = proxyActivities<RetentionActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { maximumAttempts: 10 },
});
const { deleteExpiredExportArchives } = proxyActivities<PrivacyExportActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { maximumAttempts: 10 },
});

/**
 * Sweeps before this one did not delete export archives. The export workflow deletes each at its
 * expiry; the sweep deletes those it left (exports older than that timer, a terminated run).
 */
export const EXPIRED_EXPORT_ARCHIVES_PATCH = 'retention-sweep-expired-export-archives';

export interface RetentionSweepInput {
  /** The sweep's reference time (ISO); fixed for the whole sweep, across continue-as-new. */
  now?: string;
  /** Tenants still to sweep; the first one from `categoryIndex` on. */
  tenantIds?: string[];
  categoryIndex?: number;
  /** Carried across continue-as-new for the final result. */
  tenantsTotal?: number;
  deleted?: number;
  /** History events per run before continuing as new (tests set a small one). */
  historyLimit?: number;
}

export async function retentionSweepWorkflow(input: RetentionSweepInput = {}): Promise<{ tenants: number; deleted: number }> {
  const now = input.now ?? new Date().toISOString();
  let deleted = input.deleted ?? 0;
  // Once per sweep, in its first run (a run that continued as new has done it).
  if (input.tenantIds === undefined && patched(EXPIRED_EXPORT_ARCHIVES_PATCH)) {
    while ((await deleteExpiredExportArchives({ now })).more);
  }
  const tenants = input.tenantIds ?? (await listTenantIds());
  const tenantsTotal = input.tenantsTotal ?? tenants.length;
  const categories = retentionCategories();
  for (let t = 0; t < tenants.length; t++) {
    for (let c = t === 0 ? (input.categoryIndex ?? 0) : 0; c < categories.length; c++) {
      for (;;) {
        if (historyBudgetSpent(input.historyLimit)) {
          await continueAsNew<typeof retentionSweepWorkflow>({ now, tenantIds: tenants.slice(t), categoryIndex: c, tenantsTotal, deleted, historyLimit: input.historyLimit });
        }
        const batch = await sweepRetentionBatch({ tenantId: tenants[t], category: categories[c].name, now });
        deleted += batch.deleted;
        if (batch.deleted === 0) break;
      }
    }
  }
  return { tenants: tenantsTotal, deleted };
}
