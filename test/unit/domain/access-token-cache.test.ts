import jwt from 'jsonwebtoken';
import { randomUUID } from 'node:crypto';
import { signAccessToken, verifyAccessToken, type AccessClaims } from '../../../domain/auth/tokens';

/** The access-token check keeps tokens it verified (domain/auth/tokens.ts): what it keeps must never answer for more than a full check would. */
describe('verifyAccessToken, for a token it has verified before', () => {
  const secret = 'a-secret-of-the-test-'.padEnd(40, 'x');
  const claims = (): AccessClaims => ({ sub: randomUUID(), tenant_id: randomUUID(), role: 'admin', permissions: ['view_assets'], ver: 3, sid: randomUUID() });

  afterEach(() => jest.useRealTimers());

  it('answers the same claims again, frozen so no request can change what the next one reads', () => {
    const c = claims();
    const token = signAccessToken(c, secret);
    const first = verifyAccessToken(token, secret);
    const again = verifyAccessToken(token, secret);
    expect(first).toEqual({ ok: true, claims: c });
    expect(again).toEqual(first);
    if (!again.ok) throw new Error('refused');
    expect(Object.isFrozen(again.claims)).toBe(true);
    expect(Object.isFrozen(again.claims.permissions)).toBe(true);
  });

  it('refuses it once it has expired, as jsonwebtoken would at that second', () => {
    jest.useFakeTimers({ now: new Date('2026-11-28T12:00:00.000Z'), doNotFake: ['nextTick', 'setImmediate'] });
    const token = signAccessToken(claims(), secret, 60);
    expect(verifyAccessToken(token, secret).ok).toBe(true);
    jest.setSystemTime(new Date('2026-11-28T12:00:59.999Z'));
    expect(verifyAccessToken(token, secret).ok).toBe(true);
    jest.setSystemTime(new Date('2026-11-28T12:01:00.000Z'));
    expect(verifyAccessToken(token, secret)).toEqual({ ok: false, reason: 'expired' });
    // Forgotten, and checked in full again: still expired, never valid.
    expect(verifyAccessToken(token, secret)).toEqual({ ok: false, reason: 'expired' });
  });

  it('does not answer for another secret (a token signed under one secret is refused under another)', () => {
    const token = signAccessToken(claims(), secret);
    expect(verifyAccessToken(token, secret).ok).toBe(true);
    expect(verifyAccessToken(token, `${secret}-rotated`)).toEqual({ ok: false, reason: 'invalid' });
  });

  it('refuses an altered token whose original it verified', () => {
    const c = claims();
    const token = signAccessToken(c, secret);
    expect(verifyAccessToken(token, secret).ok).toBe(true);
    const [header, , signature] = token.split('.');
    const payload = Buffer.from(JSON.stringify({ ...(jwt.decode(token) as object), tenant_id: randomUUID() })).toString('base64url');
    expect(verifyAccessToken(`${header}.${payload}.${signature}`, secret)).toEqual({ ok: false, reason: 'invalid' });
  });

  it('does not keep a refused token: one that fails its claims check fails again', () => {
    const token = jwt.sign({ tenant_id: randomUUID(), role: 'admin', permissions: [], ver: 0 }, secret, {
      algorithm: 'HS256',
      expiresIn: 60,
      subject: randomUUID(),
      audience: 'api',
      issuer: 'industrial-ops',
    });
    expect(verifyAccessToken(token, secret)).toEqual({ ok: false, reason: 'invalid' });
    expect(verifyAccessToken(token, secret)).toEqual({ ok: false, reason: 'invalid' });
  });
});
