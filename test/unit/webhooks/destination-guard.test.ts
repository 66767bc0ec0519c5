import { classifyAddress, isCloudMetadataAddress } from '../../../infra/outbound/address-class';
import { checkDestination, checkWebhookUrl, type ResolvedAddress, type Resolver } from '../../../infra/outbound/destination-guard';

/** A fake resolver boundary: fixed answers, records what it was asked. */
function fakeResolver(answers: Record<string, string[]>): Resolver & { asked: string[] } {
  const asked: string[] = [];
  const resolver = async (hostname: string): Promise<ResolvedAddress[]> => {
    asked.push(hostname);
    const found = answers[hostname];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolver, { asked });
}

describe('classifyAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['0:0:0:0:0:ffff:7f00:0001', 'loopback'],
    ['64:ff9b::127.0.0.1', 'loopback'],
    ['2002:7f00:1::', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['::ffff:10.0.0.1', 'private'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['100.64.0.1', 'shared'],
    ['100.127.255.255', 'shared'],
    ['169.254.169.254', 'link_local'],
    ['::ffff:169.254.169.254', 'link_local'],
    ['fe80::1', 'link_local'],
    ['fe80::1%eth0', 'link_local'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['192.0.2.10', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['2001:0:4136:e378::1', 'reserved'],
    ['::127.0.0.1', 'reserved'],
    ['fec0::1', 'reserved'],
    ['8.8.8.8', 'public'],
    ['172.32.0.1', 'public'],
    ['100.128.0.1', 'public'],
    ['::ffff:8.8.8.8', 'public'],
    ['64:ff9b::8.8.8.8', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['2a00:1450:4001:81b::200e', 'public'],
  ])('%s is %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });

  it('throws on a non-address', () => {
    expect(() => classifyAddress('example.com')).toThrow(TypeError);
    expect(() => classifyAddress('127.1')).toThrow(TypeError);
  });

  it('recognises cloud metadata addresses in any form', () => {
    expect(['169.254.169.254', '::ffff:a9fe:a9fe', 'fd00:ec2:0::254'].map(isCloudMetadataAddress)).toEqual([true, true, true]);
    expect(isCloudMetadataAddress('169.254.1.1')).toBe(false);
  });
});

describe('checkWebhookUrl (no resolution)', () => {
  const prod = { allowPrivate: false };
  const dev = { allowPrivate: true };

  it('accepts https with a name or a public address', () => {
    expect(checkWebhookUrl('https://hooks.example.com/in?x=1', prod)).toMatchObject({ kind: 'ok', hostname: 'hooks.example.com' });
    expect(checkWebhookUrl('https://[2606:4700:4700::1111]:8443/', prod)).toMatchObject({ kind: 'ok', hostname: '2606:4700:4700::1111' });
  });

  it.each([
    ['http://hooks.example.com/', 'https'],
    ['ftp://hooks.example.com/', 'https'],
    ['not a url', 'valid'],
    ['https://user:pw@hooks.example.com/', 'credentials'],
    ['https://127.0.0.1/', '127.0.0.1, a loopback address'],
    ['https://2130706433/', '127.0.0.1, a loopback address'],
    ['https://0x7f.1/', '127.0.0.1, a loopback address'],
    ['https://10.1.2.3/', '10.1.2.3, a private address'],
    ['https://169.254.169.254/latest/meta-data', '169.254.169.254, a cloud metadata address'],
    ['https://[::1]/', '::1, a loopback address'],
    ['https://[::ffff:127.0.0.1]/', 'loopback'],
  ])('refuses %s in production (%s)', (url, reason) => {
    expect(checkWebhookUrl(url, prod)).toEqual({ kind: 'refused', reason: expect.stringContaining(reason) });
  });

  it('in development allows http to loopback only, and private https', () => {
    expect(checkWebhookUrl('http://127.0.0.1:8080/hook', dev)).toMatchObject({ kind: 'ok' });
    expect(checkWebhookUrl('http://[::1]:8080/hook', dev)).toMatchObject({ kind: 'ok', hostname: '::1' });
    expect(checkWebhookUrl('http://localhost:8080/hook', dev)).toMatchObject({ kind: 'ok' });
    expect(checkWebhookUrl('http://api.localhost/hook', dev)).toMatchObject({ kind: 'ok' });
    expect(checkWebhookUrl('https://10.1.2.3/hook', dev)).toMatchObject({ kind: 'ok' });
    expect(checkWebhookUrl('http://10.1.2.3/hook', dev)).toEqual({ kind: 'refused', reason: expect.stringContaining('loopback') });
    expect(checkWebhookUrl('http://hooks.example.com/', dev)).toEqual({ kind: 'refused', reason: expect.stringContaining('loopback') });
  });

  it('refuses metadata, link-local and unspecified addresses even in development', () => {
    for (const url of ['https://169.254.169.254/', 'https://[fe80::1]/', 'https://0.0.0.0/', 'https://224.0.0.1/']) {
      expect(checkWebhookUrl(url, dev)).toMatchObject({ kind: 'refused' });
    }
  });
});

describe('checkDestination', () => {
  const prod = { allowPrivate: false };

  it('returns every resolved address when all are public', async () => {
    const resolver = fakeResolver({ 'hooks.example.com': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'] });
    expect(await checkDestination('https://hooks.example.com/x', { ...prod, resolver })).toEqual({
      kind: 'allowed',
      url: new URL('https://hooks.example.com/x'),
      hostname: 'hooks.example.com',
      addresses: [
        { address: '93.184.215.14', family: 4 },
        { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
      ],
    });
    expect(resolver.asked).toEqual(['hooks.example.com']);
  });

  it.each([
    [['127.0.0.1'], 'loopback'],
    [['10.1.2.3'], 'private'],
    [['169.254.169.254'], 'cloud metadata'],
    [['::1'], 'loopback'],
    [['::ffff:127.0.0.1'], 'loopback'],
    [['93.184.215.14', '10.0.0.7'], '10.0.0.7, a private address'],
    [['fd00::5', '93.184.215.14'], 'fd00::5, a private address'],
  ])('refuses a host resolving to %j', async (addresses, reason) => {
    const resolver = fakeResolver({ 'evil.example.com': addresses });
    expect(await checkDestination('https://evil.example.com/', { ...prod, resolver })).toEqual({
      kind: 'refused',
      reason: expect.stringContaining(reason),
    });
  });

  it('does not resolve IP literals', async () => {
    const resolver = fakeResolver({});
    expect(await checkDestination('https://[::1]/', { ...prod, resolver })).toMatchObject({ kind: 'refused' });
    expect(await checkDestination('https://8.8.8.8/', { ...prod, resolver })).toMatchObject({
      kind: 'allowed',
      addresses: [{ address: '8.8.8.8', family: 4 }],
    });
    expect(resolver.asked).toEqual([]);
  });

  it('reports a name that does not resolve as unresolved, not refused', async () => {
    const resolver = fakeResolver({ 'empty.example.com': [] });
    expect(await checkDestination('https://nowhere.example.com/', { ...prod, resolver })).toEqual({
      kind: 'unresolved',
      message: 'cannot resolve nowhere.example.com: ENOTFOUND',
    });
    expect(await checkDestination('https://empty.example.com/', { ...prod, resolver })).toMatchObject({ kind: 'unresolved' });
  });

  it('in development, http to a loopback name must resolve to loopback only', async () => {
    const resolver = fakeResolver({ localhost: ['127.0.0.1', '::1'], 'rebind.localhost': ['127.0.0.1', '192.168.1.20'] });
    expect(await checkDestination('http://localhost:9/', { allowPrivate: true, resolver })).toMatchObject({ kind: 'allowed' });
    expect(await checkDestination('http://rebind.localhost:9/', { allowPrivate: true, resolver })).toEqual({
      kind: 'refused',
      reason: expect.stringContaining('192.168.1.20, which is not loopback'),
    });
    expect(await checkDestination('http://localhost:9/', { allowPrivate: false, resolver })).toMatchObject({ kind: 'refused' });
  });
});
