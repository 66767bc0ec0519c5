/**
 * WhatsApp numbers (the Cloud API numbers WhatsApp agents answer on), without HTTP: reads take the
 * tenant's scope, changes a unit of work (db/unit-of-work.ts); both answer rows. The access token
 * and app secret are kept encrypted (domain/credentials/encryption.ts), the verify token hashed; none is answered.
 * api/routes/whatsapp-numbers.ts is the HTTP face.
 */
import { randomUUID } from 'node:crypto';
import { insertRecord, updateRecord, valueTaken } from '../db/queries/records';
import { verifyTokenTaken } from '../db/queries/whatsapp-numbers';
import { acrossTenants } from '../db/row-security';
import type { Page, PageRequest } from '../db/pagination';
import type { TenantScope } from '../db/tenant-scope';
import type { Unit } from '../db/unit-of-work';
import type { ChannelStatus } from '../domain/agents/agents';
import { secretContexts, verifyTokenHash } from '../domain/agents/channel-secrets';
import { boundColumns, CREDENTIAL_BINDINGS, requireCredentialToMove } from '../domain/credentials/destination-binding';
import { conflict } from '../domain/errors';
import { encryptSecret } from '../domain/credentials/encryption';
import { channelAuditType, deleteChannelRecord, listChannelRecords, moveAgentsAfterChannelUpdate, requireChannelRecord } from './agent-channels';

export interface WhatsappNumberRow {
  id: string;
  display_phone_number: string;
  phone_number_id: string;
  business_account_id: string | null;
  access_token_encrypted: string;
  /** Where the access token was given for (domain/credentials/destination-binding.ts). */
  access_token_destination: Record<string, unknown> | null;
  app_secret_encrypted: string | null;
  verify_token_hash: string | null;
  status: ChannelStatus;
  created_at: Date;
  updated_at: Date;
}

export interface WhatsappNumberBody {
  display_phone_number?: string;
  phone_number_id?: string;
  business_account_id?: string | null;
  access_token?: string;
  app_secret?: string;
  verify_token?: string;
  status?: ChannelStatus;
}

const AUDIT_TYPE = channelAuditType('whatsapp');
const tokenBinding = CREDENTIAL_BINDINGS.whatsappAccessToken;

export function requireWhatsappNumber(scope: TenantScope, id: string): Promise<WhatsappNumberRow> {
  return requireChannelRecord<WhatsappNumberRow>(scope, 'whatsapp', id);
}

export function listWhatsappNumbers(scope: TenantScope, filter: { status?: ChannelStatus }, page: PageRequest): Promise<Page<WhatsappNumberRow>> {
  return listChannelRecords<WhatsappNumberRow>(scope, 'whatsapp', filter, page);
}

/**
 * The columns of a body: its write-only secrets encrypted or hashed for storage, the access token
 * bound to the phone number id it is for (`current`: the row it changes, if any).
 */
function columnsOf(body: WhatsappNumberBody, id: string, key: Buffer, current?: WhatsappNumberRow): Record<string, unknown> {
  const { access_token, app_secret, verify_token, ...rest } = body;
  return {
    ...rest,
    ...(access_token !== undefined
      ? { access_token_encrypted: encryptSecret(access_token, key, secretContexts.whatsappAccessToken(id)), ...boundColumns(tokenBinding, { ...current, ...rest }) }
      : {}),
    ...(app_secret !== undefined ? { app_secret_encrypted: encryptSecret(app_secret, key, secretContexts.whatsappAppSecret(id)) } : {}),
    ...(verify_token !== undefined ? { verify_token_hash: verifyTokenHash(verify_token) } : {}),
  };
}

/**
 * A provider id is registered once per tenant (409). Other tenants are not looked at: a
 * registration neither blocks another company's nor tells whether it exists (the inbound webhook
 * routes by the app secret that verifies, which only the number's owner holds). A verify token
 * names one number of any tenant: the GET challenge, which carries nothing else, finds it by the token.
 */
async function refuseTaken(unit: Unit, body: WhatsappNumberBody, exceptId?: string): Promise<void> {
  if (body.phone_number_id && (await valueTaken(unit.scope, 'whatsapp_numbers', 'phone_number_id', body.phone_number_id, exceptId))) {
    throw conflict('this phone_number_id is already registered');
  }
  const token = body.verify_token;
  // Across tenants, past the row-level security of the tenant's unit (db/row-security.ts).
  if (token !== undefined && (await acrossTenants(unit.tx, unit.scope.tenantId, () => verifyTokenTaken(unit.tx, verifyTokenHash(token), exceptId)))) {
    throw conflict('choose another verify_token');
  }
}

/** Registers an active number. */
export async function createWhatsappNumber(unit: Unit, dataEncryptionKey: Buffer, body: WhatsappNumberBody & { phone_number_id: string }): Promise<WhatsappNumberRow> {
  await refuseTaken(unit, body);
  const id = randomUUID();
  const row = await insertRecord<WhatsappNumberRow>(unit.scope, 'whatsapp_numbers', { ...columnsOf(body, id, dataEncryptionKey), id, status: 'active' });
  unit.audit({ action: `${AUDIT_TYPE}.created`, resourceType: AUDIT_TYPE, resourceId: row.id });
  return row;
}

/**
 * Updates the fields sent; a new phone_number_id needs the access token in the same request (422
 * CREDENTIAL_REQUIRED). Deactivating moves the number's agents from active to error;
 * re-activating it, or a new access token after the provider rejected the old one, moves them back.
 */
export async function updateWhatsappNumber(unit: Unit, dataEncryptionKey: Buffer, id: string, body: WhatsappNumberBody): Promise<WhatsappNumberRow> {
  const before = await requireWhatsappNumber(unit.scope, id);
  // Another phone number id without the token would send this token for a number it was not given for.
  requireCredentialToMove(tokenBinding, { ...before }, { ...body }, { stored: true, credentialGiven: body.access_token !== undefined });
  await refuseTaken(unit, body, before.id);
  const row = await updateRecord<WhatsappNumberRow>(unit.scope, 'whatsapp_numbers', before.id, columnsOf(body, before.id, dataEncryptionKey, before));
  const moved = await moveAgentsAfterChannelUpdate(unit, 'whatsapp', before, row, body.access_token !== undefined);
  unit.audit({ action: `${AUDIT_TYPE}.updated`, resourceType: AUDIT_TYPE, resourceId: before.id, details: { fields: Object.keys(body), agents_moved: moved } });
  return row;
}

export const deleteWhatsappNumber = (unit: Unit, id: string): Promise<void> => deleteChannelRecord(unit, 'whatsapp', id);
