import { Middleware } from 'koa';
import type { ApiMetrics } from '../metrics';
import { AppState } from '../context';

/**
 * Times every request and counts its error code, after the error handler has shaped the answer.
 * The route label is the router's template (`/api/v1/assets/:id`), so ids never become labels;
 * a path no route matched is "unmatched".
 */
export function requestMetrics(metrics: ApiMetrics): Middleware<AppState> {
  return async (ctx, next) => {
    const stopTimer = metrics.requestDuration.startTimer();
    metrics.requestsInFlight.inc();
    try {
      await next();
    } finally {
      metrics.requestsInFlight.dec();
      const route = (ctx as { _matchedRoute?: unknown })._matchedRoute;
      stopTimer({ method: ctx.method, route: typeof route === 'string' ? route : 'unmatched', status: String(ctx.status) });
      const code = ctx.status >= 400 ? (ctx.body as { error_code?: unknown } | undefined)?.error_code : undefined;
      if (typeof code === 'string') metrics.errors.inc({ error_code: code });
    }
  };
}
