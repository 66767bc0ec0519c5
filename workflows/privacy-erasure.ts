/**
 * `privacy-erasure/<tenant>/<erasure>`: erases the subject from every category of the privacy
 * registry, batch by batch (each batch one idempotent activity), then completes the record.
 */
import { defineQuery, proxyActivities, setHandler } from '@temporalio/workflow';
import type { PrivacyErasureActivities } from '../activities/privacy/erasure';
import { subjectCategories } from '../domain/privacy/registry';

export interface PrivacyErasureInput {
  tenantId: string;
  erasureId: string;
  subjectId: string;
  preserveAudit: boolean;
}

export const erasureProgressQuery = defineQuery<{ category: string | null; done: string[] }>('progress');

const { eraseSubjectCategoryBatch, completeErasure } = proxyActivities<PrivacyErasureActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { maximumAttempts: 20 },
});

export async function privacyErasureWorkflow(input: PrivacyErasureInput): Promise<{ batches: number }> {
  const done: string[] = [];
  let current: string | null = null;
  setHandler(erasureProgressQuery, () => ({ category: current, done }));
  let batches = 0;
  for (const category of subjectCategories()) {
    current = category.name;
    for (;;) {
      const { changed } = await eraseSubjectCategoryBatch({ ...input, category: category.name });
      batches++;
      if (changed === 0) break;
    }
    done.push(category.name);
  }
  current = null;
  await completeErasure({ tenantId: input.tenantId, erasureId: input.erasureId });
  return { batches };
}
