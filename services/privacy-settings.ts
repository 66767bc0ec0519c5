/**
 * A tenant's retention and privacy settings, without HTTP: the read takes the tenant's scope, a
 * change the unit of work. api/routes/privacy-settings.ts is the HTTP face.
 */
import { loadPrivacySettings, lockPrivacySettings, savePrivacySettings, TenantPrivacyRow } from '../db/privacy/settings';
import type { TenantScope } from '../db/tenant-scope';
import type { Unit } from '../db/unit-of-work';
import { changeRetention, policyOf, RETENTION_KEYS, RetentionKey, StoredRetention } from '../domain/privacy/settings';

export type { TenantPrivacyRow };

export type PrivacySettingsChange = {
  retention?: Partial<Record<RetentionKey, number>>;
  pii?: { auto_redact?: boolean };
  subjects?: { default_country?: string | null };
};

/** The stored settings; a tenant with none has every default. */
export function privacySettings(scope: TenantScope): Promise<TenantPrivacyRow> {
  return loadPrivacySettings(scope.db, scope.tenantId);
}

/** Applies the values sent (a lowered retention is not retroactive: domain/privacy/settings.ts) and answers the settings after. */
export async function changePrivacySettings(unit: Unit, change: PrivacySettingsChange, now: Date): Promise<TenantPrivacyRow> {
  const tenantId = unit.scope.tenantId;
  await lockPrivacySettings(unit.tx, tenantId);
  const current = await loadPrivacySettings(unit.tx, tenantId);
  const retention: StoredRetention = { ...current.retention };
  // Only the known keys are read from the change (the route's schema refuses any other).
  for (const key of RETENTION_KEYS) {
    const days = change.retention?.[key];
    if (days !== undefined) retention[key] = changeRetention(policyOf(current.retention, key), days, now);
  }
  const piiAutoRedact = change.pii?.auto_redact ?? current.piiAutoRedact;
  const defaultCountry = change.subjects?.default_country !== undefined ? change.subjects.default_country : current.defaultCountry;
  await savePrivacySettings(unit.tx, tenantId, { retention, piiAutoRedact, defaultCountry });
  unit.audit({
    action: 'privacy.settings.updated',
    resourceType: 'privacy_settings',
    resourceId: tenantId,
    details: { retention: Object.keys(change.retention ?? {}), pii: Object.keys(change.pii ?? {}), subjects: Object.keys(change.subjects ?? {}) },
  });
  return loadPrivacySettings(unit.tx, tenantId);
}
