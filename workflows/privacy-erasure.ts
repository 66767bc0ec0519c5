/**
 * `privacy-erasure/<tenant>/<erasure>`: erases the subject from every category of the privacy
 * registry, batch by batch (each batch one idempotent activity), then completes the record.
 * Before each batch it may continue as new (workflows/history-budget.ts), carrying the category it
 * is in and the progress, so a subject with any amount of data keeps each run's history bounded.
 */
import { continueAsNew, defineQuery, proxyActivities, setHandler } from '@temporalio/workflow';
import type { PrivacyErasureActivities } from '../activities/privacy/erasure';
import { subjectCategories } from '../domain/privacy/registry';
import { historyBudgetSpent } from './history-budget';

export interface PrivacyErasureInput {
  tenantId: string;
  erasureId: string;
  subjectId: string;
  preserveAudit: boolean;
  /** Where an earlier run of this erasure stopped (continue-as-new). */
  progress?: { categoryIndex: number; done: string[]; batches: number };
  /** History events per run before continuing as new (tests set a small one). */
  historyLimit?: number;
}

export const erasureProgressQuery = defineQuery<{ category: string | null; done: string[] }>('progress');

const { eraseSubjectCategoryBatch, completeErasure } = proxyActivities<PrivacyErasureActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { maximumAttempts: 20 },
});

export async function privacyErasureWorkflow(input: PrivacyErasureInput): Promise<{ batches: number }> {
  const { progress, historyLimit, ...subject } = input;
  const done: string[] = [...(progress?.done ?? [])];
  let current: string | null = null;
  setHandler(erasureProgressQuery, () => ({ category: current, done }));
  let batches = progress?.batches ?? 0;
  const categories = subjectCategories();
  for (let c = progress?.categoryIndex ?? 0; c < categories.length; c++) {
    current = categories[c].name;
    for (;;) {
      if (historyBudgetSpent(historyLimit)) {
        await continueAsNew<typeof privacyErasureWorkflow>({ ...subject, historyLimit, progress: { categoryIndex: c, done, batches } });
      }
      const { changed } = await eraseSubjectCategoryBatch({ ...subject, category: current });
      batches++;
      if (changed === 0) break;
    }
    done.push(current);
  }
  current = null;
  await completeErasure({ tenantId: input.tenantId, erasureId: input.erasureId });
  return { batches };
}
