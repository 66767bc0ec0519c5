import { createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { generateSecret, isValidSecret, secretKey, signDelivery, verifyXSignature } from '../../../domain/webhooks/signing';

const body = '{"id":"evt_1","type":"task.created","data":{"task_id":"t1","note":"café ☕"}}';
const deliveryId = 'dlv_01HX7Z';
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The receiver snippet of domain/webhooks/README.md, verbatim. */
function receiverVerifies(secret: string, headers: Record<string, string>, rawBody: string): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const timestamp = headers['x-signature-timestamp'];
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const expected = createHmac('sha256', key).update(`${timestamp}.${rawBody}`).digest();
  return headers['x-signature']
    .split(',')
    .map((s) => s.trim().replace(/^sha256=/, ''))
    .some((hex) => hex.length === 64 && timingSafeEqual(Buffer.from(hex, 'hex'), expected));
}

const lowerCased = (headers: object): Record<string, string> => Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), String(v)]));

describe('secrets', () => {
  it('are whsec_ + base64 of 32 random bytes', () => {
    const secret = generateSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(secretKey(secret)).toHaveLength(32);
    expect(generateSecret()).not.toBe(secret);
  });

  it.each(['', 'whsec_', 'abc', `sk_${'A'.repeat(44)}`, 'whsec_not base64!', `whsec_${Buffer.alloc(16).toString('base64')}`, `whsec_${Buffer.alloc(65).toString('base64')}`])(
    'refuses %p',
    (secret) => {
      expect(isValidSecret(secret)).toBe(false);
      expect(() => secretKey(secret)).toThrow(TypeError);
    },
  );
});

describe('signDelivery', () => {
  it('produces the DESIGN.md headers with known values', () => {
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const headers = signDelivery({ secrets: [secret], deliveryId: 'd1', timestamp: 1_700_000_000, body: '{"a":1}' });
    const key = Buffer.alloc(32, 7);
    expect(headers).toEqual({
      'X-Webhook-Id': 'd1',
      'X-Signature-Timestamp': '1700000000',
      'X-Signature': `sha256=${createHmac('sha256', key).update('1700000000.{"a":1}').digest('hex')}`,
      'webhook-id': 'd1',
      'webhook-timestamp': '1700000000',
      'webhook-signature': `v1,${createHmac('sha256', key).update('d1.1700000000.{"a":1}').digest('base64')}`,
    });
  });

  it('is verified by the standardwebhooks library, untouched', () => {
    const secret = generateSecret();
    const headers = signDelivery({ secrets: [secret], deliveryId, timestamp: nowSeconds(), body });
    expect(new Webhook(secret).verify(body, lowerCased(headers))).toEqual(JSON.parse(body));
    expect(() => new Webhook(secret).verify(`${body} `, lowerCased(headers))).toThrow('No matching signature');
    expect(() => new Webhook(generateSecret()).verify(body, lowerCased(headers))).toThrow('No matching signature');
  });

  it('X-Signature is verified by the README snippet and verifyXSignature', () => {
    const secret = generateSecret();
    const ts = nowSeconds();
    const headers = lowerCased(signDelivery({ secrets: [secret], deliveryId, timestamp: ts, body }));
    expect(receiverVerifies(secret, headers, body)).toBe(true);
    expect(receiverVerifies(secret, headers, body.replace('t1', 't2'))).toBe(false);
    const check = { secret, signature: headers['x-signature'], timestamp: headers['x-signature-timestamp'], body, now: ts };
    expect(verifyXSignature(check)).toEqual({ ok: true });
    expect(verifyXSignature({ ...check, body: `${body}\n` })).toEqual({ ok: false, reason: 'no_matching_signature' });
    expect(verifyXSignature({ ...check, secret: generateSecret() })).toEqual({ ok: false, reason: 'no_matching_signature' });
    expect(verifyXSignature({ ...check, now: ts + 301 })).toEqual({ ok: false, reason: 'timestamp_out_of_tolerance' });
    expect(verifyXSignature({ ...check, now: ts + 300 })).toEqual({ ok: true });
    expect(verifyXSignature({ ...check, timestamp: 'soon' })).toEqual({ ok: false, reason: 'malformed' });
  });

  it('the timestamp is part of the signed content', () => {
    const secret = generateSecret();
    const ts = nowSeconds();
    const headers = lowerCased(signDelivery({ secrets: [secret], deliveryId, timestamp: ts, body }));
    const moved = { ...headers, 'webhook-timestamp': String(ts - 1), 'x-signature-timestamp': String(ts - 1) };
    expect(() => new Webhook(secret).verify(body, moved)).toThrow('No matching signature');
    expect(receiverVerifies(secret, moved, body)).toBe(false);
  });

  it('during a rotation, both secrets sign and either verifies with both schemes', () => {
    const [current, previous] = [generateSecret(), generateSecret()];
    const headers = lowerCased(signDelivery({ secrets: [current, previous], deliveryId, timestamp: nowSeconds(), body }));
    expect(headers['x-signature']).toMatch(/^sha256=[0-9a-f]{64}, sha256=[0-9a-f]{64}$/);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}= v1,[A-Za-z0-9+/]{43}=$/);
    for (const secret of [current, previous]) {
      expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
      expect(receiverVerifies(secret, headers, body)).toBe(true);
    }
    expect(() => new Webhook(generateSecret()).verify(body, headers)).toThrow('No matching signature');
    expect(receiverVerifies(generateSecret(), headers, body)).toBe(false);
  });

  it('refuses to sign without a secret, with a header-unsafe id or a fractional timestamp', () => {
    const secret = generateSecret();
    expect(() => signDelivery({ secrets: [], deliveryId, timestamp: 1, body })).toThrow(TypeError);
    expect(() => signDelivery({ secrets: [secret], deliveryId: 'a\r\nx-evil: 1', timestamp: 1, body })).toThrow(TypeError);
    expect(() => signDelivery({ secrets: [secret], deliveryId: 'a,b', timestamp: 1, body })).toThrow(TypeError);
    expect(() => signDelivery({ secrets: [secret], deliveryId, timestamp: 1.5, body })).toThrow(TypeError);
  });
});
