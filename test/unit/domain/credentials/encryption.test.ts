import { randomBytes } from 'node:crypto';
import { decryptSecret, encryptSecret } from '../../../../domain/credentials/encryption';

const key = randomBytes(32);

describe('encryptSecret / decryptSecret (AES-256-GCM)', () => {
  it('round-trips, with a fresh IV each time', () => {
    const a = encryptSecret('whsec_abc', key, 'webhook:1');
    const b = encryptSecret('whsec_abc', key, 'webhook:1');
    expect(a).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]+$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('whsec_abc');
    expect(decryptSecret(a, key, 'webhook:1')).toBe('whsec_abc');
    expect(decryptSecret(encryptSecret('é ✓', key), key)).toBe('é ✓');
  });

  it('refuses another key, another context and any altered byte', () => {
    const stored = encryptSecret('whsec_abc', key, 'webhook:1');
    const message = 'encrypted secret does not authenticate with this key and context';
    expect(() => decryptSecret(stored, randomBytes(32), 'webhook:1')).toThrow(message);
    expect(() => decryptSecret(stored, key, 'webhook:2')).toThrow(message);
    const [v, iv, tag, ct] = stored.split('.');
    const flipped = Buffer.from(ct, 'base64url');
    flipped[0] ^= 1;
    expect(() => decryptSecret([v, iv, tag, flipped.toString('base64url')].join('.'), key, 'webhook:1')).toThrow(message);
    expect(() => decryptSecret(`v2.${iv}.${tag}.${ct}`, key, 'webhook:1')).toThrow('not an encrypted secret of a known version');
  });

  it('requires a 32-byte key', () => {
    expect(() => encryptSecret('x', randomBytes(16))).toThrow('the data encryption key must be 32 bytes');
  });
});
