/**
 * Signing of deliveries. Uses node:crypto, so workflows must NOT import this file (activities and
 * the API do).
 *
 * One secret serves both schemes: a secret is `whsec_<base64 of 32 random bytes>` (the Standard
 * Webhooks format) and both HMACs are keyed with the base64-DECODED bytes:
 * - ours (DESIGN.md): `X-Signature: sha256=<hex HMAC-SHA256(key, "<timestamp>.<body>")>`,
 *   `X-Signature-Timestamp: <unix seconds>`, `X-Webhook-Id: <delivery id>`;
 * - Standard Webhooks: `webhook-id`, `webhook-timestamp`,
 *   `webhook-signature: v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<body>")>`, signed by the
 *   reference library (`standardwebhooks`), the one its receivers verify with.
 * While a secret is being rotated, every secret given signs: `X-Signature` lists the signatures
 * separated by ", " (an HTTP list), `webhook-signature` separated by a space (as the Standard
 * Webhooks spec says); the newest secret comes first.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

export const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;
/** Standard Webhooks accepts keys of 24 to 64 bytes. */
const MIN_KEY_BYTES = 24;
const MAX_KEY_BYTES = 64;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** Printable ASCII without spaces or commas: safe in a header and in the signed string. */
const DELIVERY_ID = /^[\x21-\x2b\x2d-\x7e]{1,255}$/;
export const DEFAULT_TOLERANCE_SECONDS = 5 * 60;

export interface SignatureHeaders {
  'X-Webhook-Id': string;
  'X-Signature-Timestamp': string;
  'X-Signature': string;
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

export interface SignDeliveryInput {
  /** Current secret first; during a rotation also the previous one. */
  secrets: readonly string[];
  /** Same for every attempt of a delivery, so receivers can deduplicate on it. */
  deliveryId: string;
  /** Unix seconds at which this attempt is sent. */
  timestamp: number;
  /** The exact body sent (UTF-8). */
  body: string;
}

export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

export function isValidSecret(secret: string): boolean {
  return decodeSecret(secret) !== undefined;
}

/** The HMAC key of `secret`; throws when it is not a `whsec_` secret. */
export function secretKey(secret: string): Buffer {
  const key = decodeSecret(secret);
  if (key === undefined) throw new TypeError('webhook secret must be "whsec_" followed by base64 of 24 to 64 bytes');
  return key;
}

export function signDelivery(input: SignDeliveryInput): SignatureHeaders {
  const { secrets, deliveryId, timestamp, body } = input;
  if (secrets.length === 0) throw new TypeError('at least one secret is needed to sign');
  if (!DELIVERY_ID.test(deliveryId)) throw new TypeError('deliveryId must be 1 to 255 printable ASCII characters without spaces or commas');
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) throw new TypeError('timestamp must be whole unix seconds');
  const keys = secrets.map(secretKey);
  const ts = String(timestamp);
  return {
    'X-Webhook-Id': deliveryId,
    'X-Signature-Timestamp': ts,
    'X-Signature': keys.map((key) => `sha256=${xSignature(key, ts, body)}`).join(', '),
    'webhook-id': deliveryId,
    'webhook-timestamp': ts,
    'webhook-signature': keys.map((key) => new Webhook(key, { format: 'raw' }).sign(deliveryId, new Date(timestamp * 1000), body)).join(' '),
  };
}

export interface VerifyXSignatureInput {
  secret: string;
  /** Value of the X-Signature header. */
  signature: string;
  /** Value of the X-Signature-Timestamp header. */
  timestamp: string;
  /** The raw body as received. */
  body: string;
  /** Receiver's clock, unix seconds. */
  now: number;
  toleranceSeconds?: number;
}

export type VerifyResult = { ok: true } | { ok: false; reason: 'malformed' | 'timestamp_out_of_tolerance' | 'no_matching_signature' };

/** Receiver-side check of our `X-Signature` scheme (used by tests and shown in the README). */
export function verifyXSignature(input: VerifyXSignatureInput): VerifyResult {
  const key = decodeSecret(input.secret);
  if (key === undefined || !/^\d{1,12}$/.test(input.timestamp)) return { ok: false, reason: 'malformed' };
  const tolerance = input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(input.now - Number(input.timestamp)) > tolerance) return { ok: false, reason: 'timestamp_out_of_tolerance' };
  const expected = Buffer.from(xSignature(key, input.timestamp, input.body), 'hex');
  const matching = input.signature
    .split(',')
    .map((part) => /^sha256=([0-9a-f]{64})$/.exec(part.trim()))
    .some((m) => m !== null && timingSafeEqual(Buffer.from(m[1], 'hex'), expected));
  return matching ? { ok: true } : { ok: false, reason: 'no_matching_signature' };
}

function xSignature(key: Buffer, timestamp: string, body: string): string {
  return hmac(key, `${timestamp}.${body}`).toString('hex');
}

function hmac(key: Buffer, message: string): Buffer {
  return createHmac('sha256', key).update(message, 'utf8').digest();
}

function decodeSecret(secret: string): Buffer | undefined {
  if (!secret.startsWith(SECRET_PREFIX)) return undefined;
  const encoded = secret.slice(SECRET_PREFIX.length);
  if (!BASE64.test(encoded)) return undefined;
  const key = Buffer.from(encoded, 'base64');
  return key.length >= MIN_KEY_BYTES && key.length <= MAX_KEY_BYTES ? key : undefined;
}
