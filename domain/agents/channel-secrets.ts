/**
 * The encryption contexts (domain/credentials/encryption.ts additional data) of channel secrets: a ciphertext
 * decrypts only for the row and purpose it was written for. Shared by the routes that store the
 * secrets and the activities that use them. Pure.
 */
import { createHash } from 'node:crypto';

export const secretContexts = {
  emailPassword: (accountId: string) => `email-account:${accountId}`,
  emailInboundSecret: (accountId: string) => `email-inbound-secret:${accountId}`,
  whatsappAccessToken: (numberId: string) => `whatsapp-number:${numberId}`,
  whatsappAppSecret: (numberId: string) => `whatsapp-app-secret:${numberId}`,
} as const;

/** A WhatsApp number's webhook verify token as stored: the GET challenge finds the number by it. */
export const verifyTokenHash = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');
