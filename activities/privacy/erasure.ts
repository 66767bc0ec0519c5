/**
 * Subject erasure activities. Each call erases one batch of one category in one transaction that
 * also adds the batch's count to the erasure record, so a retried batch neither double-counts nor
 * repeats work (the rows it changed no longer match).
 */
import { subjectHash } from '../../db/audit';
import { Db } from '../../db/knex';
import { eraseSubjectBatch, subjectObjectKeys, SubjectKey } from '../../db/privacy/categories';
import { categoryByName } from '../../domain/privacy/registry';
import { ObjectStore } from '../../infra/object-store';

export const ERASURE_BATCH = 500;

export interface ErasureBatchInput {
  tenantId: string;
  erasureId: string;
  subjectId: string;
  category: string;
  preserveAudit: boolean;
}

export function createPrivacyErasureActivities(deps: { db: Db; objectStore: ObjectStore }) {
  const { db, objectStore } = deps;
  return {
    /** Erases up to one batch; `changed: 0` means the category is done. */
    async eraseSubjectCategoryBatch(input: ErasureBatchInput): Promise<{ changed: number }> {
      const category = categoryByName(input.category);
      const subject: SubjectKey = { id: input.subjectId, hash: await subjectHash(db, input.tenantId, input.subjectId) };
      // Objects first: a row is only deleted once its object is gone (removal is idempotent).
      const keys = await subjectObjectKeys(db, input.tenantId, category, subject, ERASURE_BATCH);
      if (keys.length > 0) await objectStore.client.removeObjects(objectStore.bucket, keys);
      const changed = await db.transaction(async (tx) => {
        const n = await eraseSubjectBatch(tx, input.tenantId, category, subject, { preserveAudit: input.preserveAudit, limit: ERASURE_BATCH });
        if (n > 0) {
          await tx('privacy_erasures')
            .where({ tenant_id: input.tenantId, id: input.erasureId })
            .update({ counts: tx.raw(`jsonb_set(counts, ?, to_jsonb(coalesce((counts->>?)::int, 0) + ?))`, [`{${category.name}}`, category.name, n]) });
        }
        return n;
      });
      return { changed };
    },

    async completeErasure(input: { tenantId: string; erasureId: string }): Promise<void> {
      await db('privacy_erasures').where({ tenant_id: input.tenantId, id: input.erasureId }).update({ status: 'completed', completed_at: db.fn.now() });
    },
  };
}

export type PrivacyErasureActivities = ReturnType<typeof createPrivacyErasureActivities>;
