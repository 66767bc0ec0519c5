import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * `sha256=<hex>`: HMAC-SHA256 of the exact bytes received under the sender's secret, compared in
 * constant time. The WhatsApp Cloud API's X-Hub-Signature-256 and our X-Inbound-Signature.
 */
const SIGNATURE_FORMAT = /^sha256=[0-9a-f]{64}$/i;

/** Whether a header can be such a signature at all: checked before a byte of the body is read. */
export function isSha256SignatureHeader(header: string | undefined): header is string {
  return typeof header === 'string' && SIGNATURE_FORMAT.test(header);
}

/** A signature checked while the body streams in: `update` with each chunk, then `matches`. */
export function sha256SignatureCheck(header: string | undefined, secret: string): { update(chunk: Buffer): void; matches(): boolean } {
  const hmac = createHmac('sha256', secret);
  return {
    update: (chunk) => void hmac.update(chunk),
    matches() {
      if (!isSha256SignatureHeader(header)) return false;
      const given = Buffer.from(header.slice('sha256='.length), 'hex');
      const expected = hmac.digest();
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}

export function sha256SignatureMatches(raw: Buffer | string, header: string | undefined, secret: string): boolean {
  const check = sha256SignatureCheck(header, secret);
  check.update(typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw);
  return check.matches();
}
