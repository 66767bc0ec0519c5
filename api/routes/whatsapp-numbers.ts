/**
 * `/api/v1/whatsapp/numbers`: the WhatsApp Cloud API numbers WhatsApp agents answer on. The
 * API keeps the provider's phone number id and the access token encrypted (infra/crypto.ts);
 * the token is never returned. Status changes move the number's agents (DECISIONS.md, Agents).
 */
import { createHash, randomUUID } from 'node:crypto';
import Joi from '../../domain/joi';
import { TenantScope } from '../../db/tenant-scope';
import { ChannelStatus } from '../../domain/agents/agents';
import { secretContexts } from '../../domain/agents/channel-secrets';
import { encryptSecret } from '../../infra/crypto';
import { conflict } from '../../domain/errors';
import { ApiRouter } from '../route';
import { propagateChannelStatus, refuseDeleteInUse, restoreAgentsAfterCredentialFix } from '../resources/channel-records';
import { findOr404 } from '../../db/find-or-404';
import { agentResourceRoutes } from '../resources/agent-resources';
import { recordTimesOf, recordTimesSchema } from '../record-times';

interface WhatsappNumberRow {
  id: string;
  display_phone_number: string;
  phone_number_id: string;
  business_account_id: string | null;
  access_token_encrypted: string;
  app_secret_encrypted: string | null;
  verify_token_hash: string | null;
  status: ChannelStatus;
  created_at: Date;
  updated_at: Date;
}

interface WhatsappNumberBody {
  display_phone_number?: string;
  phone_number_id?: string;
  business_account_id?: string | null;
  access_token?: string;
  app_secret?: string;
  verify_token?: string;
  status?: ChannelStatus;
}

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

const tokenContext = secretContexts.whatsappAccessToken;
export const appSecretContext = secretContexts.whatsappAppSecret;
export const verifyTokenHash = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

/** Columns of the write-only secrets sent in a body, encrypted or hashed for storage. */
function secretColumns(body: WhatsappNumberBody, id: string, key: Buffer): Record<string, string> {
  return {
    ...(body.access_token !== undefined ? { access_token_encrypted: encryptSecret(body.access_token, key, tokenContext(id)) } : {}),
    ...(body.app_secret !== undefined ? { app_secret_encrypted: encryptSecret(body.app_secret, key, appSecretContext(id)) } : {}),
    ...(body.verify_token !== undefined ? { verify_token_hash: verifyTokenHash(body.verify_token) } : {}),
  };
}

/** A verify token names one number: the GET challenge, which carries nothing else, finds it by the token. */
async function refuseTakenVerifyToken(scope: TenantScope, token: string | undefined, exceptId?: string): Promise<void> {
  if (token === undefined) return;
  const q = scope.db('whatsapp_numbers').where('verify_token_hash', verifyTokenHash(token));
  if (exceptId) q.whereNot('id', exceptId);
  if (await q.first('id')) throw conflict('choose another verify_token');
}

function requireNumber(scope: TenantScope, id: string): Promise<WhatsappNumberRow> {
  return findOr404('WhatsApp number', id, () => scope.table('whatsapp_numbers').where('id', id).first());
}

/**
 * A provider id is registered once per tenant. Other tenants are not looked at: a registration
 * neither blocks another company's nor tells whether it exists (the inbound webhook routes by the
 * app secret that verifies, which only the number's owner holds).
 */
async function refuseTakenPhoneNumberId(scope: TenantScope, phoneNumberId: string, exceptId?: string): Promise<void> {
  const q = scope.table('whatsapp_numbers').where('phone_number_id', phoneNumberId);
  if (exceptId) q.whereNot('id', exceptId);
  if (await q.first('id')) throw conflict('this phone_number_id is already registered');
}

export function whatsappNumberRoutes(): ApiRouter {
  const { api, routes: number } = agentResourceRoutes('/api/v1/whatsapp/numbers', 'whatsapp numbers', {
    path: '/:number_id',
    schema: numberSchema,
    find: requireNumber,
    present: toNumber,
    audit: 'whatsapp_number',
    table: 'whatsapp_numbers',
  });
  number.list({ summary: 'List WhatsApp numbers', found: 'A page of numbers', match: { status: fields.status } });
  number.create<WhatsappNumberBody>(
    { summary: 'Register a WhatsApp number', body: createBody, created: 'Created, active number', responses: { 409: { description: 'phone_number_id already registered' } } },
    {
      check: async (unit, body) => {
        await refuseTakenPhoneNumberId(unit.scope, body.phone_number_id!);
        await refuseTakenVerifyToken(unit.scope, body.verify_token);
      },
      columns: (body, ctx) => {
        const id = randomUUID();
        const { access_token, app_secret, verify_token, ...rest } = body;
        return { ...rest, ...secretColumns(body, id, ctx.deps.config.secrets.dataEncryptionKey), id, status: 'active' };
      },
    },
  );
  number.get({ summary: 'Get a WhatsApp number', found: 'Number' });
  number.update<WhatsappNumberBody>(
    {
      summary: 'Update the fields sent',
      description:
        'Deactivating moves the agents of the number from active to error; re-activating it, or a new access_token after the provider rejected the old one, moves them back.',
      body: updateBody,
      updated: 'Updated number',
      responses: { 409: { description: 'phone_number_id already registered' } },
    },
    {
      check: async (unit, before, body) => {
        if (body.phone_number_id) await refuseTakenPhoneNumberId(unit.scope, body.phone_number_id, before.id);
        await refuseTakenVerifyToken(unit.scope, body.verify_token, before.id);
      },
      columns: (body, before, ctx) => {
        const { access_token, app_secret, verify_token, ...rest } = body;
        return { ...rest, ...secretColumns(body, before.id, ctx.deps.config.secrets.dataEncryptionKey) };
      },
      after: async (unit, before, row, body) => ({
        agents_moved: [
          ...(await propagateChannelStatus(unit, 'whatsapp', before.id, before.status, row.status)),
          // A new access token on a number that stayed active ends a credentials rejection.
          ...(body.access_token !== undefined && before.status === 'active' && row.status === 'active' ? await restoreAgentsAfterCredentialFix(unit, 'whatsapp', before.id) : []),
        ],
      }),
    },
  );
  number.remove(
    { summary: 'Delete a WhatsApp number no agent uses', responses: { 409: { description: 'Agents use the number' } } },
    { before: (unit, row) => refuseDeleteInUse(unit, 'whatsapp', row.id) },
  );

  return api;
}
