/**
 * WhatsApp numbers across tenants: the inbound webhook knows a number only by what the provider
 * sends (the verify token, the phone number id), so these queries are not tenant-scoped.
 */
import type { Queryable } from '../knex';

/** Whether a number (of any tenant) other than `exceptId` has this verify token. */
export async function verifyTokenTaken(db: Queryable, tokenHash: string, exceptId?: string): Promise<boolean> {
  const q = db('whatsapp_numbers').where('verify_token_hash', tokenHash);
  if (exceptId) q.whereNot('id', exceptId);
  return Boolean(await q.first('id'));
}

export interface ReceivingNumber {
  id: string;
  tenant_id: string;
  phone_number_id: string;
  app_secret_encrypted: string | null;
  status: 'active' | 'inactive';
}

/** The numbers registered under these provider ids, oldest registration first. */
export function numbersByPhoneNumberIds(db: Queryable, phoneNumberIds: readonly string[]): Promise<ReceivingNumber[]> {
  return db('whatsapp_numbers')
    .whereIn('phone_number_id', phoneNumberIds)
    .orderBy([{ column: 'created_at' }, { column: 'id' }])
    .select('id', 'tenant_id', 'phone_number_id', 'app_secret_encrypted', 'status');
}
