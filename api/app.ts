import Koa, { Middleware } from 'koa';
import { AppDeps, AppState } from './context';
import { deprecationHeaders } from './middleware/deprecation';
import { errorHandler } from './middleware/errors';
import { warnOfUntrustedForwardedFor } from './middleware/forwarded-warning';
import { methodNotAllowed } from './middleware/method-not-allowed';
import { rateLimitHeaders } from './middleware/rate-limit';
import { requestId } from './middleware/request-id';
import { requestMetrics } from './middleware/request-metrics';
import { requestTracing } from './middleware/tracing';
import { securityHeaders } from './middleware/security-headers';
import { testFaultHeader } from './middleware/test-faults';
import { ApiRouter, RegisteredRoute } from './route';
import { apiRouters } from './routers';

export interface BuiltApp {
  app: Koa<AppState, { deps: AppDeps }>;
  routes: RegisteredRoute[];
}

/** The Koa application, without listening: the server entry and the tests both build it. */
export function createApp(deps: AppDeps): BuiltApp {
  const hops = deps.config.api.trustedProxyHops;
  // ctx.ip is the client address only through proxies we run (see Config.api.trustedProxyHops).
  const app = new Koa<AppState, { deps: AppDeps }>({ proxy: hops > 0, maxIpsCount: hops });
  app.context.deps = deps;
  // Errors are answered by errorHandler; Koa's own handler would only log them twice.
  app.silent = true;

  const routers = apiRouters();

  if (hops === 0) app.use(warnOfUntrustedForwardedFor(deps.logger));
  app.use(requestTracing);
  app.use(requestId(deps.logger));
  if (deps.config.testFaults?.requestHeader) app.use(testFaultHeader);
  app.use(requestMetrics(deps.metrics));
  app.use(securityHeaders);
  app.use(deprecationHeaders(deps.config.deprecations));
  // Outside the error handler: every answer, errors included, gets its X-RateLimit-* headers.
  app.use(rateLimitHeaders);
  app.use(errorHandler);
  // JSON bodies are parsed per route, after authentication (api/route.ts).
  app.use(methodNotAllowed(() => routers.map((r) => r.router)));
  app.use(routersByPrefix(routers));
  return { app, routes: routers.flatMap((r) => r.routes) };
}

/**
 * The routers, each consulted only for paths under its prefix, in their order: a koa-router tests
 * each of its routes' patterns against every request it sees, so with every router on every request
 * the routing took about 0.2 ms of each (a CPU profile of the execute, docs/decisions/routers-consulted-by-prefix.md). The
 * check ignores case, as the routers' own matching does; the path is lowered once per request.
 */
function routersByPrefix(routers: readonly ApiRouter[]): Middleware<AppState, { deps: AppDeps }> {
  const mounted = routers.map((r) => ({ prefix: r.prefix.toLowerCase(), routes: r.router.routes() as Middleware<AppState, { deps: AppDeps }> }));
  return (ctx, next) => {
    const path = ctx.path.toLowerCase();
    const under = mounted.filter(({ prefix }) => prefix === '' || path === prefix || path.startsWith(`${prefix}/`));
    const dispatch = (i: number): Promise<unknown> => (i < under.length ? under[i].routes(ctx, () => dispatch(i + 1)) : next());
    return dispatch(0);
  };
}
