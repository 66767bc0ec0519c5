import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as net from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { ResolvedAddress, Resolver } from '../../../infra/outbound/destination-guard';
import { postSigned } from '../../../infra/outbound/safe-http';
import { generateSecret, signDelivery } from '../../../domain/webhooks/signing';

interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A real receiver on loopback; `respond` decides the answer to each request. */
async function startReceiver(
  respond: (req: http.IncomingMessage, res: http.ServerResponse) => void,
  host = '127.0.0.1',
): Promise<{ port: number; received: Received[]; connections: () => number; close: () => Promise<void> }> {
  const received: Received[] = [];
  let connections = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks) });
      respond(req, res);
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    port: (server.address() as AddressInfo).port,
    received,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const staticResolver =
  (answers: Record<string, string[]>): Resolver =>
  async (hostname) =>
    (answers[hostname] ?? []).map((address): ResolvedAddress => ({ address, family: address.includes(':') ? 6 : 4 }));

const body = '{"id":"evt_1","type":"task.created","data":{"task_id":"t1","note":"café ☕"}}';

describe('postSigned refuses forbidden destinations without connecting', () => {
  let connect: jest.SpyInstance;
  beforeEach(() => {
    // Every TCP/TLS connection goes through net.Socket#connect: make any attempt fail loudly.
    connect = jest.spyOn(net.Socket.prototype, 'connect').mockImplementation(() => {
      throw new Error('a connection was attempted');
    });
  });
  afterEach(() => connect.mockRestore());

  it.each([
    ['https://127.0.0.1/hook', 'loopback'],
    ['https://10.1.2.3/hook', 'private'],
    ['https://169.254.169.254/latest/meta-data/', 'cloud metadata'],
    ['https://[::1]/hook', 'loopback'],
    ['https://[::ffff:127.0.0.1]/hook', 'loopback'],
  ])('%s', async (url, reason) => {
    const resolver = jest.fn(staticResolver({}));
    const result = await postSigned({ url, headers: {}, body, allowPrivate: false, resolver });
    expect(result).toEqual({ kind: 'refused_destination', reason: expect.stringContaining(reason) });
    expect(resolver).not.toHaveBeenCalled();
    expect(connect).not.toHaveBeenCalled();
  });

  it('a host name resolving to a public and a private address', async () => {
    const resolver = jest.fn(staticResolver({ 'hooks.example.com': ['93.184.215.14', '10.0.0.7'] }));
    const result = await postSigned({ url: 'https://hooks.example.com/in', headers: {}, body, allowPrivate: false, resolver });
    expect(result).toEqual({ kind: 'refused_destination', reason: 'hooks.example.com resolves to 10.0.0.7, a private address' });
    expect(resolver).toHaveBeenCalledWith('hooks.example.com');
    expect(connect).not.toHaveBeenCalled();
  });

  it('a host name resolving to ::ffff:127.0.0.1', async () => {
    const resolver = staticResolver({ 'hooks.example.com': ['::ffff:127.0.0.1'] });
    const result = await postSigned({ url: 'https://hooks.example.com/', headers: {}, body, allowPrivate: false, resolver });
    expect(result).toMatchObject({ kind: 'refused_destination' });
    expect(connect).not.toHaveBeenCalled();
  });

  it('http in production, even to loopback', async () => {
    const result = await postSigned({ url: 'http://localhost:8080/', headers: {}, body, allowPrivate: false, resolver: staticResolver({}) });
    expect(result).toEqual({ kind: 'refused_destination', reason: 'the URL must use https' });
    expect(connect).not.toHaveBeenCalled();
  });
});

describe('postSigned to a real loopback receiver (development setting)', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
  afterEach(async () => {
    await receiver?.close();
    receiver = undefined;
  });

  it('delivers the exact body and headers, verifiable by the receiver', async () => {
    receiver = await startReceiver((_req, res) => res.writeHead(202, { 'content-type': 'text/plain' }).end('accepted'));
    const secret = generateSecret();
    const signature = signDelivery({ secrets: [secret], deliveryId: 'dlv_1', timestamp: Math.floor(Date.now() / 1000), body });
    const result = await postSigned({
      url: `http://127.0.0.1:${receiver.port}/hooks/in?src=ops`,
      headers: { ...signature },
      body,
      allowPrivate: true,
    });

    expect(result).toEqual({ kind: 'response', status: 202, body: 'accepted', latencyMs: expect.any(Number) });
    expect(receiver.received).toHaveLength(1);
    const [request] = receiver.received;
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/hooks/in?src=ops');
    expect(request.body.equals(Buffer.from(body, 'utf8'))).toBe(true);
    expect(request.headers).toMatchObject({
      host: `127.0.0.1:${receiver.port}`,
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      'x-webhook-id': 'dlv_1',
      'x-signature-timestamp': signature['X-Signature-Timestamp'],
      'x-signature': signature['X-Signature'],
      'webhook-id': 'dlv_1',
      'webhook-timestamp': signature['webhook-timestamp'],
      'webhook-signature': signature['webhook-signature'],
    });
    const headers = request.headers as Record<string, string>;
    expect(new Webhook(secret).verify(request.body.toString('utf8'), headers)).toEqual(JSON.parse(body));
  });

  it('connects to the checked address, keeping the host name in the Host header', async () => {
    // Listens on 127.0.0.2 only: reaching it proves the socket went to the resolver's answer.
    receiver = await startReceiver((_req, res) => res.end('ok'), '127.0.0.2');
    const resolver = jest.fn(staticResolver({ 'hooks.localhost': ['127.0.0.2'] }));
    const result = await postSigned({ url: `http://hooks.localhost:${receiver.port}/`, headers: {}, body, allowPrivate: true, resolver });
    expect(result).toMatchObject({ kind: 'response', status: 200, body: 'ok' });
    expect(resolver).toHaveBeenCalledTimes(1);
    expect(receiver.received[0].headers.host).toBe(`hooks.localhost:${receiver.port}`);
  });

  it('does not follow a redirect', async () => {
    receiver = await startReceiver((req, res) => (req.url === '/start' ? res.writeHead(302, { location: '/elsewhere' }).end('moved') : res.end('followed')));
    const result = await postSigned({ url: `http://127.0.0.1:${receiver.port}/start`, headers: {}, body, allowPrivate: true });
    expect(result).toMatchObject({ kind: 'response', status: 302, body: 'moved' });
    expect(receiver.received.map((r) => r.url)).toEqual(['/start']);
  });

  it('gives up on a slow receiver at the deadline', async () => {
    receiver = await startReceiver(() => undefined); // never answers
    const result = await postSigned({ url: `http://127.0.0.1:${receiver.port}/`, headers: {}, body, allowPrivate: true, timeoutMs: 200 });
    expect(result).toEqual({ kind: 'timeout', phase: 'response', latencyMs: expect.any(Number) });
    const { latencyMs } = result as { latencyMs: number };
    expect(latencyMs).toBeGreaterThanOrEqual(195);
    expect(latencyMs).toBeLessThan(1000);
  });

  it('gives up at the connect deadline when the connection is never set up, and not before when it is', async () => {
    // Accepts TCP but never speaks TLS: the handshake, part of connecting, never completes.
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const port = (silent.address() as AddressInfo).port;
      const result = await postSigned({ url: `https://127.0.0.1:${port}/`, headers: {}, body, allowPrivate: true, connectTimeoutMs: 150, timeoutMs: 5_000 });
      expect(result).toEqual({ kind: 'timeout', phase: 'connect', latencyMs: expect.any(Number) });
      expect((result as { latencyMs: number }).latencyMs).toBeLessThan(2_000);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
    // Connected at once, then silent: the connect deadline has passed, the response deadline has not.
    receiver = await startReceiver(() => undefined);
    const slow = await postSigned({ url: `http://127.0.0.1:${receiver.port}/`, headers: {}, body, allowPrivate: true, connectTimeoutMs: 100, timeoutMs: 400 });
    expect(slow).toMatchObject({ kind: 'timeout', phase: 'response' });
    expect((slow as { latencyMs: number }).latencyMs).toBeGreaterThanOrEqual(395);
  });

  it('keeps the status when the body stalls past the deadline', async () => {
    receiver = await startReceiver((_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('partial');
    });
    const result = await postSigned({ url: `http://127.0.0.1:${receiver.port}/`, headers: {}, body, allowPrivate: true, timeoutMs: 200 });
    expect(result).toMatchObject({ kind: 'response', status: 200, body: 'partial' });
  });

  it('times out when resolution hangs', async () => {
    const hanging: Resolver = () => new Promise(() => undefined);
    const result = await postSigned({ url: 'http://hooks.localhost:9/', headers: {}, body, allowPrivate: true, resolver: hanging, timeoutMs: 100 });
    expect(result).toMatchObject({ kind: 'timeout' });
  });

  it('reads only the first 1 KB of a large answer', async () => {
    receiver = await startReceiver((_req, res) => res.writeHead(500).end('x'.repeat(1_000_000)));
    const result = await postSigned({ url: `http://127.0.0.1:${receiver.port}/`, headers: {}, body, allowPrivate: true });
    expect(result).toMatchObject({ kind: 'response', status: 500 });
    expect((result as { body: string }).body).toBe('x'.repeat(1024));
  });

  it('never cuts a UTF-8 character in half at the 1 KB limit', async () => {
    receiver = await startReceiver((_req, res) => res.end(`a${'é'.repeat(2000)}`)); // 1 + 2 × 2000 bytes
    const result = await postSigned({ url: `http://127.0.0.1:${receiver.port}/`, headers: {}, body, allowPrivate: true });
    expect((result as { body: string }).body).toBe(`a${'é'.repeat(511)}`); // 1023 bytes; the 1024th began an é
  });

  it('passes Retry-After through', async () => {
    receiver = await startReceiver((_req, res) => res.writeHead(429, { 'retry-after': '120' }).end());
    const result = await postSigned({ url: `http://127.0.0.1:${receiver.port}/`, headers: {}, body, allowPrivate: true });
    expect(result).toEqual({ kind: 'response', status: 429, body: '', latencyMs: expect.any(Number), retryAfter: '120' });
  });

  it('reports a refused connection as a connection error', async () => {
    receiver = await startReceiver(() => undefined);
    const port = receiver.port;
    await receiver.close();
    receiver = undefined;
    const result = await postSigned({ url: `http://127.0.0.1:${port}/`, headers: {}, body, allowPrivate: true });
    expect(result).toEqual({ kind: 'connection_error', message: expect.stringContaining('ECONNREFUSED'), latencyMs: expect.any(Number) });
  });

  it('reports a name that does not resolve as a connection error', async () => {
    const result = await postSigned({ url: 'http://nothing.localhost:9/', headers: {}, body, allowPrivate: true, resolver: staticResolver({}) });
    expect(result).toEqual({ kind: 'connection_error', message: 'cannot resolve nothing.localhost: no address', latencyMs: expect.any(Number) });
  });
});
