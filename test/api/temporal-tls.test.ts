/**
 * Temporal over TLS (issue 18), as against a self-hosted cluster with mTLS or Temporal Cloud with
 * an API key: a TLS-terminating gRPC proxy on loopback (HTTP/2 with ALPN h2, a client certificate
 * required, certificates made by the test with openssl) stands in front of the suite's dev server.
 * The API's client connection and the worker's native connection, configured only the way Temporal's
 * CLI and SDKs share (@temporalio/envconfig): once by the standard environment variables, once by a
 * temporal.toml profile. Both reach Temporal through the proxy; the proxy sees the API key as
 * `authorization: Bearer <key>` on every call; a client without the certificate is refused in the
 * handshake.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http2 from 'node:http2';
import { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { loadConfig } from '../../infra/config';
import { createTemporalGateway, temporalConnectionOptions } from '../../infra/temporal';

jest.setTimeout(120_000);

interface SeenCall {
  path: string;
  authorization: string;
  userAgent: string;
}

let dir: string;
let proxy: http2.Http2SecureServer;
let upstream: http2.ClientHttp2Session;
let proxyPort: number;
const seen: SeenCall[] = [];

function openssl(...args: string[]): void {
  execFileSync('openssl', args, { stdio: 'ignore', cwd: dir });
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'temporal-tls-'));
  // A CA, a server certificate for 127.0.0.1 and a client certificate, both signed by it.
  openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=test-ca', '-keyout', 'ca.key', '-out', 'ca.pem');
  for (const [name, cn, ext] of [
    ['server', '127.0.0.1', 'subjectAltName=IP:127.0.0.1'],
    ['client', 'worker', 'extendedKeyUsage=clientAuth'],
  ]) {
    openssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-subj', `/CN=${cn}`, '-keyout', `${name}.key`, '-out', `${name}.csr`);
    fs.writeFileSync(path.join(dir, `${name}.ext`), `${ext}\n`);
    openssl('x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '1', '-extfile', `${name}.ext`, '-out', `${name}.pem`);
  }
  const read = (file: string) => fs.readFileSync(path.join(dir, file));

  upstream = http2.connect(`http://${loadConfig(process.env).temporal.address}`);
  proxy = http2.createSecureServer({ key: read('server.key'), cert: read('server.pem'), ca: read('ca.pem'), requestCert: true, rejectUnauthorized: true, ALPNProtocols: ['h2'] });
  proxy.on('stream', (stream, headers) => {
    seen.push({ path: String(headers[':path']), authorization: String(headers.authorization ?? ''), userAgent: String(headers['user-agent'] ?? '') });
    const forwarded: http2.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(headers)) if (!name.startsWith(':') || name === ':method' || name === ':path') forwarded[name] = value;
    const request = upstream.request(forwarded);
    let trailers: http2.IncomingHttpHeaders = {};
    request.on('trailers', (t) => (trailers = t));
    request.on('response', (responseHeaders) => {
      // The caller went away meanwhile (a worker's long poll cancelled at shutdown).
      if (stream.destroyed || stream.closed) return request.close(http2.constants.NGHTTP2_CANCEL);
      const { [':status']: status, ...rest } = responseHeaders;
      if (rest['grpc-status'] !== undefined) return stream.respond({ ':status': status, ...rest }, { endStream: true }); // trailers-only
      stream.respond({ ':status': status, ...rest }, { waitForTrailers: true });
      stream.on('wantTrailers', () => {
        const { [':status']: _ignored, ...onlyTrailers } = trailers;
        if (!stream.destroyed) stream.sendTrailers(onlyTrailers);
      });
      request.pipe(stream);
    });
    request.on('error', () => stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR));
    stream.on('error', () => request.close(http2.constants.NGHTTP2_CANCEL));
    stream.on('close', () => request.destroyed || request.close(http2.constants.NGHTTP2_CANCEL));
    stream.pipe(request);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyPort = (proxy.address() as AddressInfo).port;
});

afterAll(async () => {
  upstream?.close();
  await new Promise((resolve) => proxy?.close(resolve));
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The configuration a deployment would give: only environment variables, Temporal's standard names. */
function tlsConfig(extra: Record<string, string> = {}) {
  return loadConfig({
    ...process.env,
    TEMPORAL_ADDRESS: `127.0.0.1:${proxyPort}`,
    TEMPORAL_TLS_SERVER_CA_CERT_PATH: path.join(dir, 'ca.pem'),
    TEMPORAL_TLS_CLIENT_CERT_PATH: path.join(dir, 'client.pem'),
    TEMPORAL_TLS_CLIENT_KEY_PATH: path.join(dir, 'client.key'),
    TEMPORAL_API_KEY: 'tls-test-key',
    ...extra,
  }).temporal;
}

it('the API client and the worker run a workflow through the TLS proxy with a client certificate, sending the API key on every call', async () => {
  const config = tlsConfig();
  const gateway = createTemporalGateway(config);
  const connection = await NativeConnection.connect(temporalConnectionOptions(config));
  try {
    await gateway.ping(5_000);
    const taskQueue = `tls-${randomUUID()}`;
    const worker = await Worker.create({
      connection,
      namespace: config.namespace,
      taskQueue,
      workflowsPath: require.resolve('../../workflows'),
      activities: {
        async deliverNotification() {
          return { status: 'recorded' as const };
        },
        async markNotificationFailed() {},
      },
    });
    const client = await gateway.client();
    const result = await worker.runUntil(
      client.workflow.execute('notificationWorkflow', { taskQueue, workflowId: `notification/tls/${taskQueue}`, args: [{ tenantId: 'tls', notificationId: taskQueue }] }),
    );
    expect(result).toEqual({ status: 'recorded' });
  } finally {
    await gateway.close();
    await connection.close();
  }
  // Both kinds of connection went through the proxy, each call with the key.
  const polls = seen.filter((c) => c.path.endsWith('/PollWorkflowTaskQueue'));
  const starts = seen.filter((c) => c.path.endsWith('/StartWorkflowExecution'));
  expect(polls.length).toBeGreaterThan(0);
  expect(starts.length).toBe(1);
  expect(new Set(seen.map((c) => c.authorization))).toEqual(new Set(['Bearer tls-test-key']));
  expect(polls[0].userAgent).not.toBe(starts[0].userAgent); // the worker's Rust core and the Node client
});

it('a client without the certificate is refused in the handshake; TEMPORAL_TLS=false turns TLS off', async () => {
  const config = tlsConfig({ TEMPORAL_TLS_CLIENT_CERT_PATH: '', TEMPORAL_TLS_CLIENT_KEY_PATH: '' });
  expect(temporalConnectionOptions(config).tls).toMatchObject({ clientCertPair: undefined });
  const refused = await Connection.connect({ ...temporalConnectionOptions(config), connectTimeout: 3_000 })
    .then(async (c) => {
      try {
        await c.withDeadline(Date.now() + 3_000, () => new Client({ connection: c }).workflowService.getSystemInfo({}));
        return 'answered';
      } finally {
        await c.close();
      }
    })
    .catch(() => 'refused');
  expect(refused).toBe('refused');
  expect(temporalConnectionOptions(tlsConfig({ TEMPORAL_TLS: 'false' })).tls).toBe(false);
  expect(() => loadConfig({ ...process.env, TEMPORAL_TLS_CLIENT_CERT_PATH: 'x.pem' })).toThrow(/TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH .* go together/);
});

it("an operator's temporal.toml profile (TEMPORAL_CONFIG_FILE, TEMPORAL_PROFILE) reaches the cluster unchanged, both kinds of connection", async () => {
  const file = path.join(dir, 'temporal.toml');
  fs.writeFileSync(
    file,
    [
      '[profile.proxied]',
      `address = "127.0.0.1:${proxyPort}"`,
      'namespace = "default"',
      'api_key = "profile-key"',
      '[profile.proxied.tls]',
      `server_ca_cert_path = "${path.join(dir, 'ca.pem')}"`,
      `client_cert_path = "${path.join(dir, 'client.pem')}"`,
      `client_key_path = "${path.join(dir, 'client.key')}"`,
    ].join('\n'),
  );
  // The stack's own TEMPORAL_ADDRESS would override the profile's address.
  const { TEMPORAL_ADDRESS: _stack, ...env } = process.env;
  const config = loadConfig({ ...env, TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'proxied' }).temporal;
  expect(config.address).toBe(`127.0.0.1:${proxyPort}`);
  const before = seen.length;
  const gateway = createTemporalGateway(config);
  const connection = await NativeConnection.connect(temporalConnectionOptions(config));
  try {
    await gateway.ping(5_000);
    await connection.workflowService.getSystemInfo({});
  } finally {
    await gateway.close();
    await connection.close();
  }
  const calls = seen.slice(before).filter((c) => c.path.endsWith('/GetSystemInfo'));
  expect(calls.length).toBeGreaterThanOrEqual(2);
  expect(new Set(calls.map((c) => c.authorization))).toEqual(new Set(['Bearer profile-key']));
  expect(new Set(calls.map((c) => c.userAgent)).size).toBe(2); // the Node client and the worker's Rust core
});
