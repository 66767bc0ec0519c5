/**
 * `/api/v1/whatsapp/numbers`: the WhatsApp Cloud API numbers WhatsApp agents answer on. The
 * API keeps the provider's phone number id and the access token encrypted (domain/credentials/encryption.ts);
 * the token is never returned. Status changes move the number's agents (docs/decisions/agent-status-follows-its-channel.md).
 */
import Joi from '../../domain/joi';
import {
  createWhatsappNumber,
  deleteWhatsappNumber,
  listWhatsappNumbers,
  requireWhatsappNumber,
  updateWhatsappNumber,
  WhatsappNumberBody,
  WhatsappNumberRow,
} from '../../services/whatsapp-numbers';
import { AppContext } from '../context';
import { ApiRouter } from '../route';
import { inUserUnit } from '../resource-routes';
import { agentResourceRoutes } from '../resources/agent-resources';
import { recordTimesOf, recordTimesSchema } from '../record-times';

const fields = {
  display_phone_number: Joi.string()
    .trim()
    .pattern(/^\+[1-9]\d{6,14}$/)
    .messages({ 'string.pattern.base': 'must be an E.164 number such as +34600111222' }),
  phone_number_id: Joi.string()
    .trim()
    .pattern(/^\d{5,32}$/)
    .messages({ 'string.pattern.base': "must be the provider's numeric phone number id" }),
  business_account_id: Joi.string()
    .trim()
    .pattern(/^\d{5,32}$/)
    .allow(null),
  access_token: Joi.string().min(8).max(4_096).description('Write-only; stored encrypted'),
  app_secret: Joi.string().min(16).max(256).description('Write-only: the Meta app secret that signs inbound webhooks (X-Hub-Signature-256)'),
  verify_token: Joi.string().min(16).max(256).description('Write-only: the verify token of the webhook GET challenge'),
  status: Joi.string().valid('active', 'inactive'),
};
const createBody = Joi.object({
  ...fields,
  display_phone_number: fields.display_phone_number.required(),
  phone_number_id: fields.phone_number_id.required(),
  access_token: fields.access_token.required(),
  status: Joi.forbidden(),
});
const updateBody = Joi.object(fields).min(1);

const numberSchema = Joi.object({
  id: Joi.string(),
  display_phone_number: Joi.string(),
  phone_number_id: Joi.string(),
  business_account_id: Joi.string().allow(null),
  has_access_token: Joi.boolean().description('The token itself is never returned'),
  inbound_webhook_configured: Joi.boolean().description('app_secret and verify_token are set'),
  status: Joi.string().valid('active', 'inactive'),
  ...recordTimesSchema,
});

const toNumber = (row: WhatsappNumberRow) => ({
  id: row.id,
  display_phone_number: row.display_phone_number,
  phone_number_id: row.phone_number_id,
  business_account_id: row.business_account_id,
  has_access_token: true,
  inbound_webhook_configured: row.app_secret_encrypted !== null && row.verify_token_hash !== null,
  status: row.status,
  ...recordTimesOf(row),
});

const keyOf = (ctx: AppContext): Buffer => ctx.deps.config.secrets.dataEncryptionKey;

export function whatsappNumberRoutes(): ApiRouter {
  const { api, routes: number } = agentResourceRoutes('/api/v1/whatsapp/numbers', 'whatsapp numbers', {
    path: '/:number_id',
    schema: numberSchema,
    find: requireWhatsappNumber,
    present: toNumber,
  });
  number.list<{ status?: 'active' | 'inactive' }>({
    summary: 'List WhatsApp numbers',
    found: 'A page of numbers',
    match: { status: fields.status },
    load: (scope, query) => listWhatsappNumbers(scope, query, query),
  });
  number.create<WhatsappNumberBody & { phone_number_id: string }>(
    { summary: 'Register a WhatsApp number', body: createBody, created: 'Created, active number', responses: { 409: { description: 'phone_number_id already registered' } } },
    (ctx, body) => inUserUnit(ctx, (unit) => createWhatsappNumber(unit, keyOf(ctx), body)),
  );
  number.get({ summary: 'Get a WhatsApp number', found: 'Number' });
  number.update<WhatsappNumberBody>(
    {
      summary: 'Update the fields sent',
      description:
        'Deactivating moves the agents of the number from active to error; re-activating it, or a new access_token after the provider rejected the old one, moves them back. ' +
        'A new phone_number_id requires the access_token in the same request (422 CREDENTIAL_REQUIRED, field body.access_token): a stored token is never used for another number than the one it was given for.',
      body: updateBody,
      updated: 'Updated number',
      responses: {
        409: { description: 'phone_number_id already registered' },
        422: { description: 'Invalid body, or CREDENTIAL_REQUIRED (a new phone_number_id without the access_token)' },
      },
    },
    (ctx, id, body) => inUserUnit(ctx, (unit) => updateWhatsappNumber(unit, keyOf(ctx), id, body)),
  );
  number.remove({ summary: 'Delete a WhatsApp number no agent uses', responses: { 409: { description: 'Agents use the number' } } }, (ctx, id) =>
    inUserUnit(ctx, (unit) => deleteWhatsappNumber(unit, id)),
  );

  return api;
}
