/**
 * Retention sweep activities: each tenant's settings decide the rows to delete per category
 * (domain/privacy/settings.ts, including the non-retroactive rule); one call deletes one batch.
 */
import { Db } from '../../db/knex';
import { deleteExpiredBatch } from '../../db/privacy/categories';
import { loadPrivacySettings } from '../../db/privacy/settings';
import { categoryByName } from '../../domain/privacy/registry';
import { clampAuditCutoff, policyOf, retentionRanges } from '../../domain/privacy/settings';

export const RETENTION_BATCH = 1000;

export function createRetentionActivities(deps: { db: Db }) {
  const { db } = deps;
  return {
    /** Tenant ids only, oldest first. */
    async listTenantIds(): Promise<string[]> {
      const rows = await db('tenants').select('id').orderBy('created_at');
      return rows.map((r: { id: string }) => r.id);
    },

    /** Deletes one batch of expired rows of a category for a tenant, as of `now` (ISO). */
    async sweepRetentionBatch(input: { tenantId: string; category: string; now: string }): Promise<{ deleted: number }> {
      const category = categoryByName(input.category);
      if (!category.retention) return { deleted: 0 };
      const now = new Date(input.now);
      const settings = await loadPrivacySettings(db, input.tenantId);
      let ranges = retentionRanges(policyOf(settings.retention, category.retention.setting), now);
      if (category.link.kind === 'audit') ranges = ranges.map((r) => ({ ...r, before: clampAuditCutoff(r.before, now) }));
      const deleted = await deleteExpiredBatch(db, input.tenantId, { ...category, retention: category.retention }, ranges, RETENTION_BATCH);
      return { deleted };
    },
  };
}

export type RetentionActivities = ReturnType<typeof createRetentionActivities>;
