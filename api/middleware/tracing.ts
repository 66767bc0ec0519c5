import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { Middleware } from 'koa';
import { tracingInstalled } from '../../infra/tracing';
import { AppState } from '../context';

const tracer = trace.getTracer('industrial-ops-api');

/**
 * One server span per request, continuing the caller's trace (W3C `traceparent`), named by the
 * route template; Temporal calls made while it is active join it (infra/temporal.ts). Without
 * tracing (infra/tracing.ts) it steps aside.
 */
export const requestTracing: Middleware<AppState> = async (ctx, next) => {
  // Traces off: nothing to extract or open on the hot path.
  if (!tracingInstalled()) return next();
  const parent = propagation.extract(context.active(), ctx.headers);
  await tracer.startActiveSpan(ctx.method, { kind: SpanKind.SERVER, attributes: { 'http.request.method': ctx.method } }, parent, async (span) => {
    try {
      await next();
    } finally {
      const route = (ctx as { _matchedRoute?: unknown })._matchedRoute;
      if (typeof route === 'string') {
        span.updateName(`${ctx.method} ${route}`);
        span.setAttribute('http.route', route);
      }
      span.setAttribute('http.response.status_code', ctx.status);
      if (ctx.state.requestId) span.setAttribute('request_id', ctx.state.requestId);
      if (ctx.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
  });
};
