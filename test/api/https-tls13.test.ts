/**
 * SPEC.md: transport is HTTPS with TLS 1.3. Given a certificate and key, the API serves HTTPS itself
 * with TLS 1.3 as the minimum: a TLS 1.2 client is refused in the handshake, a TLS 1.3 client is
 * answered (with HSTS). Certificates are made by the test with openssl.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createApp } from '../../api/app';
import { createApiServer, requestListener } from '../../api/listen';
import { loadConfig } from '../../infra/config';
import { startTestApi, TestApi } from '../support/api';

let api: TestApi;
let server: ReturnType<typeof createApiServer>;
let port: number;
let ca: Buffer;

beforeAll(async () => {
  api = await startTestApi();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'api-tls-'));
  const [certFile, keyFile] = [path.join(dir, 'cert.pem'), path.join(dir, 'key.pem')];
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'ignore' },
  );
  ca = fs.readFileSync(certFile);
  const config = loadConfig({ ...process.env, API_TLS_CERT_FILE: certFile, API_TLS_KEY_FILE: keyFile });
  expect(config.api.tls).toEqual({ certFile, keyFile });
  server = createApiServer(requestListener(createApp(api.deps).app.callback()), config.api.tls);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await api.close();
});

function get(tls: { minVersion?: 'TLSv1.2' | 'TLSv1.3'; maxVersion?: 'TLSv1.2' | 'TLSv1.3' }) {
  return new Promise<{ status: number; hsts: string | undefined; protocol: string | null }>((resolve, reject) => {
    const req = https.get({ host: '127.0.0.1', port, path: '/livez', ca, ...tls, agent: false }, (res) => {
      const protocol = (res.socket as import('node:tls').TLSSocket).getProtocol();
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, hsts: res.headers['strict-transport-security'] as string | undefined, protocol }));
    });
    req.on('error', reject);
  });
}

describe('HTTPS served by the API', () => {
  it('answers a TLS 1.3 client, with HSTS', async () => {
    expect(await get({})).toEqual({ status: 200, hsts: 'max-age=63072000; includeSubDomains; preload', protocol: 'TLSv1.3' });
  });

  it('refuses a client that offers at most TLS 1.2', async () => {
    await expect(get({ maxVersion: 'TLSv1.2' })).rejects.toMatchObject({ code: expect.stringMatching(/ERR_SSL|EPROTO|ECONNRESET/) });
  });

  it('needs both the certificate and the key', () => {
    expect(() => loadConfig({ ...process.env, API_TLS_CERT_FILE: '/tmp/cert.pem' })).toThrow(/API_TLS_CERT_FILE and API_TLS_KEY_FILE go together/);
  });
});
