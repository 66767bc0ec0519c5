/**
 * The WhatsApp Cloud API's callback, without HTTP: which registered number a subscription
 * challenge or a signed payload is for. Not tenant-scoped: the provider names a number only by
 * its verify token or its phone number id, and the tenant is the one of the number that verifies.
 * api/routes/whatsapp-webhook.ts is the HTTP face; services/inbound-messages.ts stores each message.
 */
import type { Queryable } from '../db/knex';
import { numbersByPhoneNumberIds, ReceivingNumber, verifyTokenTaken } from '../db/queries/whatsapp-numbers';
import { receivingNumbers } from '../domain/agents/whatsapp-inbound';
import { secretContexts, verifyTokenHash } from '../domain/agents/channel-secrets';
import { sha256SignatureMatches } from '../domain/agents/provider-signature';
import { forbidden, unauthenticated } from '../domain/errors';
import { decryptSecret } from '../domain/credentials/encryption';

export type { ReceivingNumber };

/** The GET challenge's verify token must be a registered number's (403). */
export async function requireKnownVerifyToken(db: Queryable, token: string): Promise<void> {
  if (!(await verifyTokenTaken(db, verifyTokenHash(token)))) throw forbidden('unknown verify token');
}

/**
 * The registered numbers a payload is for, by provider id, once its signature (the
 * X-Hub-Signature-256 header) is proven under each one's app secret. Unknown numbers, numbers
 * without an app secret, or a bad signature: 401, nothing stored.
 */
export async function authenticatedNumbers(
  deps: { db: Queryable; dataEncryptionKey: Buffer },
  payload: Record<string, unknown>,
  signed: { rawBody: string; signature: string | undefined },
): Promise<Map<string, ReceivingNumber>> {
  const ids = receivingNumbers(payload);
  if (ids.length === 0) throw unauthenticated('the payload names no receiving number');
  const rows = await numbersByPhoneNumberIds(deps.db, ids);
  // Several tenants may have registered the same provider id; the owner is the one whose app
  // secret signed this payload (the oldest registration if two share a secret).
  const verified = new Map<string, ReceivingNumber>();
  for (const r of rows) {
    if (verified.has(r.phone_number_id) || r.app_secret_encrypted === null) continue;
    const secret = decryptSecret(r.app_secret_encrypted, deps.dataEncryptionKey, secretContexts.whatsappAppSecret(r.id));
    if (sha256SignatureMatches(signed.rawBody, signed.signature, secret)) verified.set(r.phone_number_id, r);
  }
  if (!ids.every((id) => verified.has(id))) throw unauthenticated('X-Hub-Signature-256 does not verify');
  return verified;
}
