/**
 * The retention sweep, started about every 24 h by a Temporal Schedule
 * (orchestration/privacy.ts): every tenant, every category with a retention setting, batch by
 * batch. Continues as new when the history grows long, carrying the tenants still to do.
 */
import { continueAsNew, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { RetentionActivities } from '../activities/privacy/retention';
import { retentionCategories } from '../domain/privacy/registry';

const { listTenantIds, sweepRetentionBatch } = proxyActivities<RetentionActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { maximumAttempts: 10 },
});

export interface RetentionSweepInput {
  /** The sweep's reference time (ISO); fixed for the whole sweep, across continue-as-new. */
  now?: string;
  tenantIds?: string[];
}

const HISTORY_LIMIT = 8000;

export async function retentionSweepWorkflow(input: RetentionSweepInput = {}): Promise<{ tenants: number; deleted: number }> {
  const now = input.now ?? new Date().toISOString();
  const tenants = input.tenantIds ?? (await listTenantIds());
  let deleted = 0;
  for (let i = 0; i < tenants.length; i++) {
    if (workflowInfo().historyLength > HISTORY_LIMIT) {
      await continueAsNew<typeof retentionSweepWorkflow>({ now, tenantIds: tenants.slice(i) });
    }
    for (const category of retentionCategories()) {
      for (;;) {
        const batch = await sweepRetentionBatch({ tenantId: tenants[i], category: category.name, now });
        deleted += batch.deleted;
        if (batch.deleted === 0) break;
      }
    }
  }
  return { tenants: tenants.length, deleted };
}
