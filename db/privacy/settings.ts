import type { Knex } from 'knex';
import { Queryable } from '../knex';
import { StoredRetention } from '../../domain/privacy/settings';

export interface TenantPrivacyRow {
  retention: StoredRetention;
  piiAutoRedact: boolean;
  /** ISO 3166-1 alpha-2: how a phone number in national form is read; null: such numbers name nobody. */
  defaultCountry: string | null;
  updatedAt: Date | null;
}

/** The tenant's stored privacy settings; a missing row means every default. */
export async function loadPrivacySettings(db: Queryable, tenantId: string): Promise<TenantPrivacyRow> {
  const row = await db('tenant_settings').where({ tenant_id: tenantId }).first('retention', 'pii_auto_redact', 'default_country', 'updated_at');
  return {
    retention: (row?.retention ?? {}) as StoredRetention,
    piiAutoRedact: row?.pii_auto_redact ?? false,
    defaultCountry: row?.default_country ?? null,
    updatedAt: row ? new Date(row.updated_at) : null,
  };
}

export async function savePrivacySettings(db: Queryable, tenantId: string, settings: Omit<TenantPrivacyRow, 'updatedAt'>): Promise<void> {
  await db('tenant_settings')
    .insert({
      tenant_id: tenantId,
      retention: JSON.stringify(settings.retention),
      pii_auto_redact: settings.piiAutoRedact,
      default_country: settings.defaultCountry,
      updated_at: db.fn.now(),
    })
    .onConflict('tenant_id')
    .merge();
}

/** The tenant's default country (privacy settings), or null. */
export async function defaultCountryOf(db: Queryable, tenantId: string): Promise<string | null> {
  return ((await db('tenant_settings').where({ tenant_id: tenantId }).first('default_country')) as { default_country: string | null } | undefined)?.default_country ?? null;
}

/** Serialises changes of one tenant's settings (read, merge, write) until the transaction ends. */
export async function lockPrivacySettings(tx: Knex.Transaction, tenantId: string): Promise<void> {
  await tx.raw('select pg_advisory_xact_lock(hashtextextended(?, 9))', [`privacy-settings:${tenantId}`]);
}
