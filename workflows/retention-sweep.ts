/**
 * The retention sweep, started about every 24 h by a Temporal Schedule
 * (orchestration/privacy.ts): every tenant, every category with a retention setting, batch by
 * batch. Before each batch it may continue as new (workflows/history-budget.ts), carrying where
 * it stands (tenants still to do, the category of the first one, the count so far), so a tenant
 * with millions of expired rows cannot grow one run's history past the server's limits.
 */
import { continueAsNew, proxyActivities } from '@temporalio/workflow';
import type { RetentionActivities } from '../activities/privacy/retention';
import { retentionCategories } from '../domain/privacy/registry';
import { historyBudgetSpent } from './history-budget';

const { listTenantIds, sweepRetentionBatch } = proxyActivities<RetentionActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { maximumAttempts: 10 },
});

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
  const tenants = input.tenantIds ?? (await listTenantIds());
  const tenantsTotal = input.tenantsTotal ?? tenants.length;
  const categories = retentionCategories();
  let deleted = input.deleted ?? 0;
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
