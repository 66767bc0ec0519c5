import type { Middleware } from 'koa';
import type { Logger } from 'pino';

/**
 * With API_TRUSTED_PROXY_HOPS=0 the API ignores X-Forwarded-For and takes the socket address as the
 * client's. A request that carries the header anyway means a proxy is probably in front of the API:
 * then every client has the proxy's address, and the per-address login limits count them all as
 * one. Said once per process, at the first such request (it cannot be known at start).
 */
export function warnOfUntrustedForwardedFor(log: Logger): Middleware {
  let warned = false;
  return async (ctx, next) => {
    if (!warned && ctx.get('X-Forwarded-For') !== '') {
      warned = true;
      log.warn(
        { header: 'X-Forwarded-For', trusted_proxy_hops: 0 },
        'a request carries X-Forwarded-For but API_TRUSTED_PROXY_HOPS=0: the client address is the socket peer (a proxy makes every client one address for the login limits); set API_TRUSTED_PROXY_HOPS to the number of proxies in front of the API',
      );
    }
    await next();
  };
}
