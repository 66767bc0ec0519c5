/** `GET/PUT /api/v1/privacy/settings`: retention, fixed encryption values and PII redaction. */
import Joi from '../../domain/joi';
import { loadPrivacySettings, savePrivacySettings, TenantPrivacyRow } from '../../db/privacy/settings';
import { changeRetention, FIXED_ENCRYPTION, policyOf, RETENTION_BOUNDS, RETENTION_KEYS, RetentionKey, StoredRetention } from '../../domain/privacy/settings';
import { userOf } from '../context';
import { actorOf, runMutation } from '../mutation';
import { ApiRouter } from '../route';

const retentionFields = Object.fromEntries(RETENTION_KEYS.map((k) => [k, Joi.number().integer().min(RETENTION_BOUNDS[k].min).max(RETENTION_BOUNDS[k].max)]));
const settingsBody = Joi.object({
  retention: Joi.object(retentionFields),
  // Fixed (SPEC.md): echoing the current value is accepted, any other value is a 422.
  encryption: Joi.object({ at_rest: Joi.string().valid(FIXED_ENCRYPTION.at_rest), in_transit: Joi.string().valid(FIXED_ENCRYPTION.in_transit) }),
  pii: Joi.object({ auto_redact: Joi.boolean() }),
}).min(1);

type SettingsBody = { retention?: Partial<Record<RetentionKey, number>>; pii?: { auto_redact?: boolean } };

const settingsSchema = Joi.object({
  retention: Joi.object(retentionFields),
  encryption: Joi.object({ at_rest: Joi.string(), in_transit: Joi.string() }),
  pii: Joi.object({ auto_redact: Joi.boolean() }),
  updated_at: Joi.string().isoDate().allow(null),
});

function toSettings(row: TenantPrivacyRow) {
  return {
    retention: Object.fromEntries(RETENTION_KEYS.map((k) => [k, policyOf(row.retention, k).days])),
    encryption: { ...FIXED_ENCRYPTION },
    pii: { auto_redact: row.piiAutoRedact },
    updated_at: row.updatedAt ? row.updatedAt.toISOString() : null,
  };
}

export function registerPrivacySettingsRoutes(api: ApiRouter): void {
  api.route({
    method: 'get',
    path: '/settings',
    summary: "The tenant's retention and privacy settings",
    tags: ['privacy'],
    auth: 'user',
    permission: 'view_privacy',
    responses: { 200: { description: 'Settings with SPEC.md defaults for unset values', schema: settingsSchema } },
    handler: async (ctx) => {
      ctx.body = toSettings(await loadPrivacySettings(ctx.deps.db, userOf(ctx).tenantId));
    },
  });

  api.route<unknown, unknown, SettingsBody>({
    method: 'put',
    path: '/settings',
    summary: 'Change retention and privacy settings (a lowered retention value is not retroactive)',
    tags: ['privacy'],
    auth: 'user',
    permission: 'manage_privacy',
    body: settingsBody,
    responses: { 200: { description: 'The settings after the change', schema: settingsSchema } },
    handler: async (ctx, { body }) => {
      const { tenantId } = userOf(ctx);
      const now = new Date();
      ctx.body = await runMutation(ctx, tenantId, actorOf(ctx), async (unit) => {
        await unit.tx.raw('select pg_advisory_xact_lock(hashtextextended(?, 9))', [`privacy-settings:${tenantId}`]);
        const current = await loadPrivacySettings(unit.tx, tenantId);
        const retention: StoredRetention = { ...current.retention };
        // Only the known keys are read from the body (its schema refuses any other).
        for (const key of RETENTION_KEYS) {
          const days = body.retention?.[key];
          if (days !== undefined) retention[key] = changeRetention(policyOf(current.retention, key), days, now);
        }
        const piiAutoRedact = body.pii?.auto_redact ?? current.piiAutoRedact;
        await savePrivacySettings(unit.tx, tenantId, { retention, piiAutoRedact });
        unit.audit({
          action: 'privacy.settings.updated',
          resourceType: 'privacy_settings',
          resourceId: tenantId,
          details: { retention: Object.keys(body.retention ?? {}), pii: Object.keys(body.pii ?? {}) },
        });
        return toSettings(await loadPrivacySettings(unit.tx, tenantId));
      });
    },
  });
}
