/**
 * `/api/v1/email/accounts`: the SMTP mailboxes email agents send from. An account is verified by
 * a real SMTP handshake when created and whenever its connection settings change or it is
 * re-activated. The password is kept encrypted (infra/crypto.ts) and never returned.
 * Status changes move the account's agents (DECISIONS.md, Agents).
 */
import { randomUUID } from 'node:crypto';
import Joi from '../../domain/joi';
import { tenantScope, TenantScope } from '../../db/tenant-scope';
import { ChannelStatus } from '../../domain/agents/agents';
import { secretContexts } from '../../domain/agents/channel-secrets';
import { decryptSecret, encryptSecret } from '../../infra/crypto';
import { SmtpSettings, verifySmtp } from '../../infra/smtp-verify';
import { checkSmtpDestination } from '../../infra/outbound/smtp-destination';
import { AppContext, userOf } from '../context';
import { AppError } from '../../domain/errors';
import { actorOf, runMutation } from '../mutation';
import { ApiRouter } from '../route';
import { propagateChannelStatus, refuseDeleteInUse, restoreAgentsAfterCredentialFix } from '../resources/channel-records';
import { inboundSecretColumns, newInboundSecret } from '../inbound/email-inbound-secret';
import { idRef } from '../validation';
import { findOr404 } from '../../db/find-or-404';
import { agentResourceRoutes } from '../resources/agent-resources';
import { inUserUnit } from '../resource-routes';
import { isoTime } from '../../domain/time';
import { recordTimesOf, recordTimesSchema } from '../record-times';

interface EmailAccountRow {
  id: string;
  name: string;
  email_address: string;
  smtp_host: string;
  smtp_port: number;
  smtp_secure: boolean;
  username: string | null;
  password_encrypted: string | null;
  inbound_secret_encrypted: string | null;
  status: ChannelStatus;
  verified_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

interface EmailAccountBody {
  name?: string;
  email_address?: string;
  smtp_host?: string;
  smtp_port?: number;
  smtp_secure?: boolean;
  username?: string | null;
  password?: string | null;
  status?: ChannelStatus;
}

const CONNECTION_FIELDS = ['smtp_host', 'smtp_port', 'smtp_secure', 'username', 'password'] as const;

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

const passwordContext = secretContexts.emailPassword;

function requireAccount(scope: TenantScope, id: string): Promise<EmailAccountRow> {
  return findOr404('email account', id, () => scope.table('email_accounts').where('id', id).first());
}

const verificationFailed = (reason: string, detail: string): AppError => new AppError('EMAIL_ACCOUNT_VERIFICATION_FAILED', detail, { reason }, 422);

/**
 * Refuses an account whose SMTP server does not complete the handshake with these settings. The
 * host must pass the webhook destination rules first (no private, loopback or metadata address
 * outside development), and the handshake goes to the address that was checked, so the API
 * cannot be used to probe the internal network.
 */
async function requireVerified(ctx: AppContext, settings: SmtpSettings): Promise<void> {
  const allowPrivate = ctx.deps.config.webhooks.allowPrivateDestinations;
  const destination = await checkSmtpDestination(settings.host, settings.port, allowPrivate);
  if (destination.kind === 'refused') throw verificationFailed('REFUSED_DESTINATION', `the SMTP host is not allowed: ${destination.reason}`);
  if (destination.kind === 'unresolved') throw verificationFailed('EDNS', 'the SMTP host does not resolve');
  const result = await verifySmtp({ ...settings, host: destination.address, servername: settings.host, requireTls: !allowPrivate });
  if (!result.ok) throw verificationFailed(result.reason, `the SMTP server did not accept the connection settings (${result.reason})`);
}

export function emailAccountRoutes(): ApiRouter {
  const key = (ctx: AppContext): Buffer => ctx.deps.config.secrets.dataEncryptionKey;
  const {
    api,
    tags,
    routes: account,
  } = agentResourceRoutes('/api/v1/email/accounts', 'email accounts', {
    path: '/:account_id',
    schema: accountSchema,
    find: requireAccount,
    present: toAccount,
    audit: 'email_account',
    table: 'email_accounts',
  });
  account.list({ summary: 'List email accounts', found: 'A page of email accounts', match: { status: fields.status } });
  api.route<unknown, unknown, EmailAccountBody>({
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
      const { tenantId } = userOf(ctx);
      const secure = body.smtp_secure ?? body.smtp_port === 465;
      await requireVerified(ctx, { host: body.smtp_host!, port: body.smtp_port!, secure, username: body.username ?? null, password: body.password ?? null });
      const id = randomUUID();
      const inboundSecret = newInboundSecret();
      const created = await runMutation(ctx, tenantId, actorOf(ctx), async (unit) => {
        const { password, ...rest } = body;
        const [row] = await unit.scope.insert('email_accounts', {
          ...rest,
          ...inboundSecretColumns(inboundSecret, key(ctx), id),
          id,
          smtp_secure: secure,
          password_encrypted: password ? encryptSecret(password, key(ctx), passwordContext(id)) : null,
          status: 'active',
          verified_at: new Date(),
        });
        unit.audit({ action: 'email_account.created', resourceType: 'email_account', resourceId: id });
        return row as EmailAccountRow;
      });
      ctx.status = 201;
      ctx.body = { ...toAccount(created), inbound_secret: inboundSecret };
    },
  });

  account.get({ summary: 'Get an email account', found: 'Email account' });

  // Not account.update: the SMTP handshake runs before the transaction, so no row lock is held during network I/O.
  api.route<{ account_id: string }, unknown, EmailAccountBody>({
    method: 'put',
    path: '/:account_id',
    summary: 'Update the fields sent; re-verified when connection settings change or it is re-activated',
    description: 'Deactivating moves the agents of the account from active to error; re-activating moves them back.',
    tags,
    auth: 'user',
    permission: 'manage_agents',
    params: accountParams,
    body: updateBody,
    responses: {
      200: { description: 'Updated account', schema: accountSchema },
      404: { description: 'Not found' },
      422: { description: 'Invalid body or EMAIL_ACCOUNT_VERIFICATION_FAILED' },
    },
    handler: async (ctx, { params, body }) => {
      const { tenantId } = userOf(ctx);
      const current = await requireAccount(tenantScope(ctx.deps.db, tenantId), params.account_id);
      const finalStatus = body.status ?? current.status;
      const reconnecting = CONNECTION_FIELDS.some((f) => body[f] !== undefined) || (current.status === 'inactive' && body.status === 'active');
      // The handshake runs before the transaction: no row lock is held during network I/O.
      if (reconnecting && finalStatus === 'active') {
        const password =
          body.password !== undefined ? body.password : current.password_encrypted && decryptSecret(current.password_encrypted, key(ctx), passwordContext(current.id));
        await requireVerified(ctx, {
          host: body.smtp_host ?? current.smtp_host,
          port: body.smtp_port ?? current.smtp_port,
          secure: body.smtp_secure ?? current.smtp_secure,
          username: body.username !== undefined ? body.username : current.username,
          password: password ?? null,
        });
      }
      const updated = await runMutation(ctx, tenantId, actorOf(ctx), async (unit) => {
        const before = await requireAccount(unit.scope, params.account_id);
        const { password, ...rest } = body;
        const changes: Record<string, unknown> = { ...rest, updated_at: new Date() };
        if (password !== undefined) changes.password_encrypted = password ? encryptSecret(password, key(ctx), passwordContext(before.id)) : null;
        if (reconnecting && finalStatus === 'active') changes.verified_at = new Date();
        const [row] = await unit.scope.table('email_accounts').where('id', before.id).update(changes).returning('*');
        const moved = [
          ...(await propagateChannelStatus(unit, 'email', before.id, before.status, row.status)),
          // Re-verified credentials on an account that stayed active end a credentials rejection.
          ...(reconnecting && before.status === 'active' && row.status === 'active' ? await restoreAgentsAfterCredentialFix(unit, 'email', before.id) : []),
        ];
        unit.audit({ action: 'email_account.updated', resourceType: 'email_account', resourceId: before.id, details: { fields: Object.keys(body), agents_moved: moved } });
        return row as EmailAccountRow;
      });
      ctx.body = toAccount(updated);
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
      const inboundSecret = newInboundSecret();
      await inUserUnit(ctx, async (unit) => {
        const account = await requireAccount(unit.scope, params.account_id);
        await unit.scope
          .table('email_accounts')
          .where('id', account.id)
          .update({ ...inboundSecretColumns(inboundSecret, key(ctx), account.id), updated_at: new Date() });
        unit.audit({ action: 'email_account.inbound_secret_rotated', resourceType: 'email_account', resourceId: account.id });
      });
      ctx.body = { inbound_secret: inboundSecret };
    },
  });

  account.remove(
    { summary: 'Delete an email account no agent uses', responses: { 409: { description: 'Agents use the account' } } },
    { before: (unit, row) => refuseDeleteInUse(unit, 'email', row.id) },
  );

  return api;
}
