import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { Config } from '../infra/config';

/**
 * The API's server: HTTPS with TLS 1.3 as the minimum when given a certificate and key (SPEC.md:
 * transport is TLS 1.3), plain HTTP otherwise, for a TLS-terminating proxy or load balancer in front
 * (README, "TLS"). Timeouts as load balancers expect: keep-alive longer than their idle timeout, so
 * they close first.
 */
export function createApiServer(handler: http.RequestListener, tls: Config['api']['tls']): http.Server {
  const server = tls
    ? https.createServer({ cert: fs.readFileSync(tls.certFile), key: fs.readFileSync(tls.keyFile), minVersion: 'TLSv1.3' }, handler)
    : http.createServer(handler);
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 30_000;
  return server;
}

export function apiUrl(config: Pick<Config, 'api'>): string {
  return `${config.api.tls ? 'https' : 'http'}://${config.api.host}:${config.api.port}/api/v1`;
}
