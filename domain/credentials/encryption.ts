/**
 * Encryption of secrets the service must keep but never show again (webhook signing secrets,
 * mailbox credentials...) with the DATA_ENCRYPTION_KEY: AES-256-GCM, a fresh 96-bit IV per value.
 *
 * Stored form: `v1.<iv>.<tag>.<ciphertext>` (base64url parts). The version prefix lets a later key
 * rotation tell old values from new ones. `context` is bound as additional authenticated data: a
 * value encrypted for one row (pass e.g. `webhook:<id>`) does not decrypt for another, so copying
 * ciphertexts between rows in the database does not move a secret.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const ALGORITHM = 'aes-256-gcm';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export function encryptSecret(plaintext: string, key: Buffer, context = ''): string {
  assertKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [VERSION, iv, cipher.getAuthTag(), ciphertext].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
}

/** Throws when the value was not produced by encryptSecret with this key and context, or was altered. */
export function decryptSecret(stored: string, key: Buffer, context = ''): string {
  assertKey(key);
  const parts = stored.split('.');
  if (parts.length !== 4 || parts[0] !== VERSION) throw new Error('not an encrypted secret of a known version');
  const [iv, tag, ciphertext] = parts.slice(1).map((part) => Buffer.from(part, 'base64url'));
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new Error('malformed encrypted secret');
  const decipher = createDecipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
  } catch {
    // Never echo OpenSSL's text: it says nothing useful and callers may log the message.
    throw new Error('encrypted secret does not authenticate with this key and context');
  }
}

function assertKey(key: Buffer): void {
  if (key.length !== KEY_BYTES) throw new TypeError(`the data encryption key must be ${KEY_BYTES} bytes`);
}
