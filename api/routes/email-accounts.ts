/**
 * `/api/v1/email/accounts`: the SMTP mailboxes email agents send from. An account is verified by
 * a real SMTP handshake when created and whenever its connection settings change or it is
 * re-activated. The password is kept encrypted (domain/credentials/encryption.ts) and never returned.
 * Status changes move the account's agents (docs/decisions/agent-status-follows-its-channel.md).
 */
import Joi from '../../domain/joi';
import {
  createEmailAccount,
  deleteEmailAccount,
  EmailAccountBody,
  EmailAccountDeps,
  EmailAccountRow,
  listEmailAccounts,
  requireEmailAccount,
  rotateInboundSecret,
  updateEmailAccount,
} from '../../services/email-accounts';
import { AppContext, userOf } from '../context';
import { unitContextOf } from '../mutation';
import { ApiRouter } from '../route';
import { idRef } from '../validation';
import { agentResourceRoutes } from '../resources/agent-resources';
import { inUserUnit } from '../resource-routes';
import { isoTime } from '../../domain/time';
import { recordTimesOf, recordTimesSchema } from '../record-times';

const fields = {
  name: Joi.string().trim().min(1).max(200),
  email_address: Joi.string().trim().email({ tlds: false }).max(320),
  smtp_host: Joi.string().trim().hostname().max(253),
  smtp_port: Joi.number().integer().min(1).max(65535),
  smtp_secure: Joi.boolean(),
  username: Joi.string().max(320).allow(null),
  password: Joi.string().max(1_000).allow(null).description('Write-only; stored encrypted'),
  status: Joi.string().valid('active', 'inactive'),
};
const createBody = Joi.object({
  ...fields,
  name: fields.name.required(),
  email_address: fields.email_address.required(),
  smtp_host: fields.smtp_host.required(),
  smtp_port: fields.smtp_port.default(587),
  status: Joi.forbidden(),
});
const updateBody = Joi.object(fields).min(1);
const accountParams = Joi.object({ account_id: idRef.required() });

const accountSchema = Joi.object({
  id: Joi.string(),
  name: Joi.string(),
  email_address: Joi.string(),
  smtp_host: Joi.string(),
  smtp_port: Joi.number(),
  smtp_secure: Joi.boolean(),
  username: Joi.string().allow(null),
  has_password: Joi.boolean().description('The password itself is never returned'),
  inbound_configured: Joi.boolean().description('An inbound secret exists (POST /api/v1/email/inbound/{id}); the secret itself is returned only when generated'),
  status: Joi.string().valid('active', 'inactive'),
  verified_at: Joi.string().isoDate().allow(null),
  ...recordTimesSchema,
});

const toAccount = (row: EmailAccountRow) => ({
  id: row.id,
  name: row.name,
  email_address: row.email_address,
  smtp_host: row.smtp_host,
  smtp_port: row.smtp_port,
  smtp_secure: row.smtp_secure,
  username: row.username,
  has_password: row.password_encrypted !== null,
  inbound_configured: row.inbound_secret_encrypted !== null,
  status: row.status,
  verified_at: isoTime(row.verified_at),
  ...recordTimesOf(row),
});

const accountDeps = (ctx: AppContext): EmailAccountDeps => ({
  db: ctx.deps.db,
  dataEncryptionKey: ctx.deps.config.secrets.dataEncryptionKey,
  allowPrivateDestinations: ctx.deps.config.webhooks.allowPrivateDestinations,
});
const changeOf = (ctx: AppContext) => [accountDeps(ctx), unitContextOf(ctx, userOf(ctx).tenantId)] as const;

export function emailAccountRoutes(): ApiRouter {
  const {
    api,
    tags,
    routes: account,
  } = agentResourceRoutes('/api/v1/email/accounts', 'email accounts', {
    path: '/:account_id',
    schema: accountSchema,
    find: requireEmailAccount,
    present: toAccount,
  });
  account.list<{ status?: 'active' | 'inactive' }>({
    summary: 'List email accounts',
    found: 'A page of email accounts',
    match: { status: fields.status },
    load: (scope, query) => listEmailAccounts(scope, query, query),
  });
  api.route<unknown, unknown, EmailAccountBody & { smtp_host: string; smtp_port: number }>({
    method: 'post',
    path: '/',
    summary: 'Add an email account, verified by an SMTP handshake',
    tags,
    auth: 'user',
    permission: 'manage_agents',
    body: createBody,
    responses: {
      201: { description: 'Created, verified, active account, with its inbound_secret (shown only this once)', schema: accountSchema.keys({ inbound_secret: Joi.string() }) },
      422: { description: 'Invalid body or EMAIL_ACCOUNT_VERIFICATION_FAILED' },
    },
    handler: async (ctx, { body }) => {
      const { account, inboundSecret } = await createEmailAccount(...changeOf(ctx), body);
      ctx.status = 201;
      ctx.body = { ...toAccount(account), inbound_secret: inboundSecret };
    },
  });

  account.get({ summary: 'Get an email account', found: 'Email account' });

  // Not account.update: the SMTP handshake runs before the transaction, so no row lock is held during network I/O.
  api.route<{ account_id: string }, unknown, EmailAccountBody>({
    method: 'put',
    path: '/:account_id',
    summary: 'Update the fields sent; re-verified when connection settings change or it is re-activated',
    description:
      'Deactivating moves the agents of the account from active to error; re-activating moves them back. ' +
      'Changing smtp_host, smtp_port or smtp_secure of an account with a stored password requires the password in the same request ' +
      '(422 CREDENTIAL_REQUIRED, field body.password): a stored password is never sent to another server than the one it was given for.',
    tags,
    auth: 'user',
    permission: 'manage_agents',
    params: accountParams,
    body: updateBody,
    responses: {
      200: { description: 'Updated account', schema: accountSchema },
      404: { description: 'Not found' },
      422: { description: 'Invalid body, EMAIL_ACCOUNT_VERIFICATION_FAILED, or CREDENTIAL_REQUIRED (a changed server without the password)' },
    },
    handler: async (ctx, { params, body }) => {
      ctx.body = toAccount(await updateEmailAccount(...changeOf(ctx), params.account_id, body));
    },
  });

  account.route({
    method: 'post',
    sub: 'inbound-secret',
    summary: 'Generate (or rotate) the inbound secret of the account',
    description:
      'The secret signs POST /api/v1/email/inbound/{account_id} (X-Inbound-Signature: sha256=<HMAC-SHA256 of the raw body>). It is returned only here; the previous one stops working at once.',
    access: 'manage',
    responses: { 200: { description: 'The new secret', schema: Joi.object({ inbound_secret: Joi.string() }) } },
    handler: async (ctx, { params }) => {
      const inboundSecret = await inUserUnit(ctx, (unit) => rotateInboundSecret(unit, ctx.deps.config.secrets.dataEncryptionKey, params.account_id));
      ctx.body = { inbound_secret: inboundSecret };
    },
  });

  account.remove({ summary: 'Delete an email account no agent uses', responses: { 409: { description: 'Agents use the account' } } }, (ctx, id) =>
    inUserUnit(ctx, (unit) => deleteEmailAccount(unit, id)),
  );

  return api;
}
