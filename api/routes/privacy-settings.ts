/** `GET/PUT /api/v1/privacy/settings`: retention, fixed encryption values and PII redaction. */
import Joi from '../../domain/joi';
import { FIXED_ENCRYPTION, policyOf, RETENTION_BOUNDS, RETENTION_KEYS } from '../../domain/privacy/settings';
import { isPhoneCountry } from '../../domain/privacy/subject-identity';
import { changePrivacySettings, PrivacySettingsChange, privacySettings, TenantPrivacyRow } from '../../services/privacy-settings';
import { tenantScopeOf, userOf } from '../context';
import { actorOf, runMutation } from '../mutation';
import { ApiRouter } from '../route';

const retentionFields = Object.fromEntries(RETENTION_KEYS.map((k) => [k, Joi.number().integer().min(RETENTION_BOUNDS[k].min).max(RETENTION_BOUNDS[k].max)]));
const defaultCountry = Joi.string()
  .uppercase()
  .length(2)
  .custom((value: string, helpers) => (isPhoneCountry(value) ? value : helpers.error('any.invalid')))
  .allow(null)
  .messages({ 'any.invalid': '{{#label}} must be an ISO 3166-1 alpha-2 country code with a phone numbering plan (e.g. NL)' })
  .description(
    'ISO 3166-1 alpha-2 country (e.g. NL) in which a phone number given without a country code (`0612 345 678`) is read, in `subject_id` of export and erasure; null: such a number is refused',
  );
const subjectsSettings = Joi.object({ default_country: defaultCountry });

const settingsBody = Joi.object({
  retention: Joi.object(retentionFields),
  // Fixed (SPEC.md): echoing the current value is accepted, any other value is a 422.
  encryption: Joi.object({ at_rest: Joi.string().valid(FIXED_ENCRYPTION.at_rest), in_transit: Joi.string().valid(FIXED_ENCRYPTION.in_transit) }),
  pii: Joi.object({ auto_redact: Joi.boolean() }),
  subjects: subjectsSettings,
}).min(1);

const settingsSchema = Joi.object({
  retention: Joi.object(retentionFields),
  encryption: Joi.object({ at_rest: Joi.string(), in_transit: Joi.string() }),
  pii: Joi.object({ auto_redact: Joi.boolean() }),
  subjects: subjectsSettings,
  updated_at: Joi.string().isoDate().allow(null),
});

function toSettings(row: TenantPrivacyRow) {
  return {
    retention: Object.fromEntries(RETENTION_KEYS.map((k) => [k, policyOf(row.retention, k).days])),
    encryption: { ...FIXED_ENCRYPTION },
    pii: { auto_redact: row.piiAutoRedact },
    subjects: { default_country: row.defaultCountry },
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
      ctx.body = toSettings(await privacySettings(tenantScopeOf(ctx)));
    },
  });

  api.route<unknown, unknown, PrivacySettingsChange>({
    method: 'put',
    path: '/settings',
    summary: 'Change retention and privacy settings (a lowered retention value is not retroactive)',
    tags: ['privacy'],
    auth: 'user',
    permission: 'manage_privacy',
    body: settingsBody,
    responses: { 200: { description: 'The settings after the change', schema: settingsSchema } },
    handler: async (ctx, { body }) => {
      const now = new Date();
      ctx.body = toSettings(await runMutation(ctx, userOf(ctx).tenantId, actorOf(ctx), (unit) => changePrivacySettings(unit, body, now)));
    },
  });
}
