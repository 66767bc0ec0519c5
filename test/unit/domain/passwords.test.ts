import { hashPassword, needsRehash, OWASP_SCRYPT, setPasswordHashParams, verifyPassword } from '../../../domain/auth/passwords';

describe('password hashes', () => {
  afterEach(() => setPasswordHashParams(OWASP_SCRYPT));

  it("use OWASP's scrypt parameters by default (N=2^17 needs Node's maxmem raised: 128 MiB)", async () => {
    const hash = await hashPassword('correct horse battery staple');
    expect(hash.startsWith('scrypt$131072$8$1$')).toBe(true);
    expect(await verifyPassword('correct horse battery staple', hash)).toBe(true);
    expect(await verifyPassword('wrong horse battery staple', hash)).toBe(false);
    expect(needsRehash(hash)).toBe(false);
  });

  it('call for a rehash when stored with weaker parameters than new hashes get', async () => {
    const weak = await hashPassword('correct horse battery staple', { N: 2 ** 12, r: 8, p: 1 });
    expect(needsRehash(weak)).toBe(true);
    expect(needsRehash(weak.replace('scrypt$4096$8$', 'scrypt$131072$4$'))).toBe(true);
    expect(needsRehash('not-a-hash')).toBe(false);
    // Under a lower target (the test stack's), the same hash is strong enough.
    setPasswordHashParams({ N: 2 ** 12, r: 8, p: 1 });
    expect(needsRehash(weak)).toBe(false);
    expect(await verifyPassword('correct horse battery staple', weak)).toBe(true);
  });
});
