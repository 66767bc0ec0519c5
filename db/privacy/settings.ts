import type { Knex } from 'knex';
import { Queryable } from '../knex';
import { StoredRetention } from '../../domain/privacy/settings';

export interface TenantPrivacyRow {
  retention: StoredRetention;
  piiAutoRedact: boolean;
  updatedAt: Date | null;
}

/** The tenant's stored privacy settings; a missing row means every default. */
export async function loadPrivacySettings(db: Queryable, tenantId: string): Promise<TenantPrivacyRow> {
  const row = await db('tenant_settings').where({ tenant_id: tenantId }).first('retention', 'pii_auto_redact', 'updated_at');
  return {
    retention: (row?.retention ?? {}) as StoredRetention,
    piiAutoRedact: row?.pii_auto_redact ?? false,
    updatedAt: row ? new Date(row.updated_at) : null,
  };
}

export async function savePrivacySettings(db: Queryable, tenantId: string, settings: { retention: StoredRetention; piiAutoRedact: boolean }): Promise<void> {
  await db('tenant_settings')
    .insert({ tenant_id: tenantId, retention: JSON.stringify(settings.retention), pii_auto_redact: settings.piiAutoRedact, updated_at: db.fn.now() })
    .onConflict('tenant_id')
    .merge();
}

/** Serialises changes of one tenant's settings (read, merge, write) until the transaction ends. */
export async function lockPrivacySettings(tx: Knex.Transaction, tenantId: string): Promise<void> {
  await tx.raw('select pg_advisory_xact_lock(hashtextextended(?, 9))', [`privacy-settings:${tenantId}`]);
}
