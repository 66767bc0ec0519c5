/**
 * Email accounts (the SMTP mailboxes email agents send from), without HTTP. An account is verified
 * by a real SMTP handshake when created and whenever its connection settings change or it is
 * re-activated; the handshake runs before the unit of work, so no row lock is held during network
 * I/O, which is why the create and the update run their own units. The password is kept encrypted
 * (domain/credentials/encryption.ts), never answered, and bound to the server it was given for: moving the account
 * to another server needs the password again (domain/credentials/destination-binding.ts).
 * api/routes/email-accounts.ts is the HTTP face.
 */
import { randomUUID } from 'node:crypto';
import type { Db } from '../db/knex';
import { insertRecord, updateRecord } from '../db/queries/records';
import type { Page, PageRequest } from '../db/pagination';
import { tenantScope, type TenantScope } from '../db/tenant-scope';
import { runUnit, type Unit, type UnitContext } from '../db/unit-of-work';
import type { ChannelStatus } from '../domain/agents/agents';
import { secretContexts } from '../domain/agents/channel-secrets';
import { boundColumns, CREDENTIAL_BINDINGS, requireCredentialToMove, requireStillBound } from '../domain/credentials/destination-binding';
import { AppError } from '../domain/errors';
import { decryptSecret, encryptSecret } from '../domain/credentials/encryption';
import { SmtpSettings, verifySmtp } from '../infra/smtp-verify';
import { checkSmtpDestination } from '../infra/outbound/smtp-destination';
import { channelAuditType, deleteChannelRecord, listChannelRecords, moveAgentsAfterChannelUpdate, requireChannelRecord } from './agent-channels';
import { inboundSecretColumns, newInboundSecret } from './email-inbound-secret';

export interface EmailAccountRow {
  id: string;
  name: string;
  email_address: string;
  smtp_host: string;
  smtp_port: number;
  smtp_secure: boolean;
  username: string | null;
  password_encrypted: string | null;
  /** Where the password was given for (domain/credentials/destination-binding.ts). */
  password_destination: Record<string, unknown> | null;
  inbound_secret_encrypted: string | null;
  status: ChannelStatus;
  verified_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface EmailAccountBody {
  name?: string;
  email_address?: string;
  smtp_host?: string;
  smtp_port?: number;
  smtp_secure?: boolean;
  username?: string | null;
  password?: string | null;
  status?: ChannelStatus;
}

/** The database, the key secrets are encrypted under, and whether SMTP hosts may be private (development). */
export interface EmailAccountDeps {
  db: Db;
  dataEncryptionKey: Buffer;
  allowPrivateDestinations: boolean;
}

const CONNECTION_FIELDS = ['smtp_host', 'smtp_port', 'smtp_secure', 'username', 'password'] as const;
const AUDIT_TYPE = channelAuditType('email');
const passwordContext = secretContexts.emailPassword;
const passwordBinding = CREDENTIAL_BINDINGS.emailPassword;

/** A change that moves the stored password to another SMTP server must give the password (422 CREDENTIAL_REQUIRED). */
function refuseMovingPassword(current: EmailAccountRow, body: EmailAccountBody): void {
  requireCredentialToMove(passwordBinding, { ...current }, { ...body }, { stored: current.password_encrypted !== null, credentialGiven: body.password !== undefined });
}

/** The stored password, used only while the account still points where it was given for (422 otherwise). */
function storedPassword(key: Buffer, current: EmailAccountRow): string | null {
  if (!current.password_encrypted) return null;
  requireStillBound(passwordBinding, { ...current });
  return decryptSecret(current.password_encrypted, key, passwordContext(current.id));
}

/** The password columns for a password given (null clears it), bound to the account's destination. */
function passwordColumns(key: Buffer, id: string, password: string | null, destination: Record<string, unknown>): Record<string, unknown> {
  if (!password) return { password_encrypted: null, password_destination: null };
  return { password_encrypted: encryptSecret(password, key, passwordContext(id)), ...boundColumns(passwordBinding, destination) };
}

export function requireEmailAccount(scope: TenantScope, id: string): Promise<EmailAccountRow> {
  return requireChannelRecord<EmailAccountRow>(scope, 'email', id);
}

export function listEmailAccounts(scope: TenantScope, filter: { status?: ChannelStatus }, page: PageRequest): Promise<Page<EmailAccountRow>> {
  return listChannelRecords<EmailAccountRow>(scope, 'email', filter, page);
}

const verificationFailed = (reason: string, detail: string): AppError => new AppError('EMAIL_ACCOUNT_VERIFICATION_FAILED', detail, { reason }, 422);

/**
 * Refuses an account whose SMTP server does not complete the handshake with these settings. The
 * host must pass the webhook destination rules first (no private, loopback or metadata address
 * outside development), and the handshake goes to the address that was checked, so the API
 * cannot be used to probe the internal network.
 */
async function requireVerified(allowPrivate: boolean, settings: SmtpSettings): Promise<void> {
  const destination = await checkSmtpDestination(settings.host, settings.port, allowPrivate);
  if (destination.kind === 'refused') throw verificationFailed('REFUSED_DESTINATION', `the SMTP host is not allowed: ${destination.reason}`);
  if (destination.kind === 'unresolved') throw verificationFailed('EDNS', 'the SMTP host does not resolve');
  const result = await verifySmtp({ ...settings, host: destination.address, servername: settings.host, requireTls: !allowPrivate });
  if (!result.ok) throw verificationFailed(result.reason, `the SMTP server did not accept the connection settings (${result.reason})`);
}

/** Adds a verified, active account; answers it with its inbound secret (the only time it is shown). */
export async function createEmailAccount(
  deps: EmailAccountDeps,
  context: UnitContext,
  body: EmailAccountBody & { smtp_host: string; smtp_port: number },
): Promise<{ account: EmailAccountRow; inboundSecret: string }> {
  const key = deps.dataEncryptionKey;
  const secure = body.smtp_secure ?? body.smtp_port === 465;
  await requireVerified(deps.allowPrivateDestinations, { host: body.smtp_host, port: body.smtp_port, secure, username: body.username ?? null, password: body.password ?? null });
  const id = randomUUID();
  const inboundSecret = newInboundSecret();
  const account = await runUnit(deps.db, context, async (unit) => {
    const { password, ...rest } = body;
    const row = await insertRecord<EmailAccountRow>(unit.scope, 'email_accounts', {
      ...rest,
      ...inboundSecretColumns(inboundSecret, key, id),
      id,
      smtp_secure: secure,
      ...passwordColumns(key, id, password ?? null, { ...body, smtp_secure: secure }),
      status: 'active',
      verified_at: new Date(),
    });
    unit.audit({ action: `${AUDIT_TYPE}.created`, resourceType: AUDIT_TYPE, resourceId: id });
    return row;
  });
  return { account, inboundSecret };
}

/**
 * Updates the fields sent, re-verified when connection settings change or the account is
 * re-activated. Deactivating moves its agents from active to error; re-activating, or
 * re-verified credentials on an account that stayed active, moves them back.
 */
export async function updateEmailAccount(deps: EmailAccountDeps, context: UnitContext, id: string, body: EmailAccountBody): Promise<EmailAccountRow> {
  const key = deps.dataEncryptionKey;
  const current = await requireEmailAccount(tenantScope(deps.db, context.tenantId), id);
  refuseMovingPassword(current, body);
  const finalStatus = body.status ?? current.status;
  const reconnecting = CONNECTION_FIELDS.some((f) => body[f] !== undefined) || (current.status === 'inactive' && body.status === 'active');
  if (reconnecting && finalStatus === 'active') {
    const password = body.password !== undefined ? body.password : storedPassword(key, current);
    await requireVerified(deps.allowPrivateDestinations, {
      host: body.smtp_host ?? current.smtp_host,
      port: body.smtp_port ?? current.smtp_port,
      secure: body.smtp_secure ?? current.smtp_secure,
      username: body.username !== undefined ? body.username : current.username,
      password: password ?? null,
    });
  }
  return runUnit(deps.db, context, async (unit) => {
    const before = await requireEmailAccount(unit.scope, id);
    // Again inside the unit: a concurrent change may have moved the account since the first read.
    refuseMovingPassword(before, body);
    const { password, ...rest } = body;
    const changes: Record<string, unknown> = { ...rest };
    if (password !== undefined) Object.assign(changes, passwordColumns(key, before.id, password, { ...before, ...rest }));
    if (reconnecting && finalStatus === 'active') changes.verified_at = new Date();
    const row = await updateRecord<EmailAccountRow>(unit.scope, 'email_accounts', before.id, changes);
    const moved = await moveAgentsAfterChannelUpdate(unit, 'email', before, row, reconnecting);
    unit.audit({ action: `${AUDIT_TYPE}.updated`, resourceType: AUDIT_TYPE, resourceId: before.id, details: { fields: Object.keys(body), agents_moved: moved } });
    return row;
  });
}

/** A new inbound secret for the account (the previous one stops working at once); answered only here. */
export async function rotateInboundSecret(unit: Unit, dataEncryptionKey: Buffer, id: string): Promise<string> {
  const inboundSecret = newInboundSecret();
  const account = await requireEmailAccount(unit.scope, id);
  await updateRecord(unit.scope, 'email_accounts', account.id, inboundSecretColumns(inboundSecret, dataEncryptionKey, account.id), ['id']);
  unit.audit({ action: `${AUDIT_TYPE}.inbound_secret_rotated`, resourceType: AUDIT_TYPE, resourceId: account.id });
  return inboundSecret;
}

export const deleteEmailAccount = (unit: Unit, id: string): Promise<void> => deleteChannelRecord(unit, 'email', id);
