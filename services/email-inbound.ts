/**
 * Inbound e-mail, without HTTP: the account a raw message is for and the secret that must have
 * signed it (email-inbound-secret.ts). api/routes/email-inbound.ts is the HTTP face;
 * services/inbound-messages.ts stores and routes the message.
 */
import type { Queryable } from '../db/knex';
import { ReceivingAccount, receivingAccountById } from '../db/queries/email-accounts';
import { isUuid } from '../db/tenant-scope';
import { unauthenticated } from '../domain/errors';
import { isSha256SignatureHeader } from '../domain/agents/provider-signature';
import { decryptInboundSecret } from './email-inbound-secret';

export type { ReceivingAccount };

/**
 * The account and its inbound secret, from the path and the signature header alone: an unknown
 * account, one without an inbound secret, or a signature that is not well formed is 401, so the
 * caller can refuse before reading a byte of the body.
 */
export async function receivingAccount(
  deps: { db: Queryable; dataEncryptionKey: Buffer },
  accountId: string,
  signature: string,
): Promise<{ account: ReceivingAccount; secret: string }> {
  const account = isUuid(accountId) && isSha256SignatureHeader(signature) ? await receivingAccountById(deps.db, accountId) : undefined;
  if (!account?.inbound_secret_encrypted) throw unauthenticated('X-Inbound-Signature does not verify');
  return { account, secret: decryptInboundSecret(account.inbound_secret_encrypted, deps.dataEncryptionKey, account.id) };
}
