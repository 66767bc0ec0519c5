import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { Config } from '../infra/config';

/**
 * The API's server: HTTPS with TLS 1.3 as the minimum when given a certificate and key (SPEC.md:
 * transport is TLS 1.3), plain HTTP otherwise, for a TLS-terminating proxy or load balancer in front
 * (docs/CONFIGURATION.md, "TLS"). Timeouts as load balancers expect: keep-alive longer than their idle timeout, so
 * they close first.
 */
export function createApiServer(handler: http.RequestListener, tls: Config['api']['tls']): http.Server {
  const server = tls ? https.createServer({ cert: fs.readFileSync(tls.certFile), key: fs.readFileSync(tls.keyFile), minVersion: 'TLSv1.3' }, handler) : http.createServer(handler);
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 30_000;
  return server;
}

/**
 * A Node request listener from a promise-returning handler (Koa's `app.callback()`, the tests' fake
 * servers): a rejection ends that response instead of escaping as an unhandled rejection. Koa's own
 * handler never rejects (it answers errors through ctx.onerror).
 */
export function requestListener(handler: (req: http.IncomingMessage, res: http.ServerResponse) => Promise<unknown>): http.RequestListener {
  return (req, res) => {
    handler(req, res).catch((err: unknown) => res.destroy(err instanceof Error ? err : new Error(String(err))));
  };
}

export function apiUrl(config: Pick<Config, 'api'>): string {
  return `${config.api.tls ? 'https' : 'http'}://${config.api.host}:${config.api.port}/api/v1`;
}
