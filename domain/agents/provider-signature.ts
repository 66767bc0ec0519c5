import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * `sha256=<hex>`: HMAC-SHA256 of the exact bytes received under the sender's secret, compared in
 * constant time. The WhatsApp Cloud API's X-Hub-Signature-256 and our X-Inbound-Signature.
 */
export function sha256SignatureMatches(raw: Buffer | string, header: string | undefined, secret: string): boolean {
  if (!header?.startsWith('sha256=')) return false;
  const given = Buffer.from(header.slice('sha256='.length), 'hex');
  const expected = createHmac('sha256', secret)
    .update(typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw)
    .digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}
