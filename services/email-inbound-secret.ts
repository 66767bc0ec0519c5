/**
 * The per-account secret of inbound e-mail (docs/decisions/inbound-email-signed.md): the receiving MTA or
 * provider signs each raw message with HMAC-SHA256 under it (`X-Inbound-Signature: sha256=<hex>`).
 * Generated on account creation and by the rotate route, shown once, kept encrypted.
 */
import { randomBytes } from 'node:crypto';
import { secretContexts } from '../domain/agents/channel-secrets';
import { decryptSecret, encryptSecret } from '../domain/credentials/encryption';

const PREFIX = 'whin_';

export function newInboundSecret(): string {
  return `${PREFIX}${randomBytes(32).toString('base64url')}`;
}

export function inboundSecretColumns(secret: string, key: Buffer, accountId: string): { inbound_secret_encrypted: string } {
  return { inbound_secret_encrypted: encryptSecret(secret, key, secretContexts.emailInboundSecret(accountId)) };
}

export function decryptInboundSecret(stored: string, key: Buffer, accountId: string): string {
  return decryptSecret(stored, key, secretContexts.emailInboundSecret(accountId));
}
