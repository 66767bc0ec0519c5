import { context, trace } from '@opentelemetry/api';
import { getRPCMetadata, RPCType } from '@opentelemetry/core';
import { Middleware } from 'koa';
import { tracingInstalled } from '../../infra/tracing';
import { AppState } from '../context';

/**
 * Names the request's server span (opened by the SDK's HTTP instrumentation, continuing the
 * caller's W3C `traceparent`) by the route template: `POST /api/v1/maintenance/plans/:plan_id/counter`,
 * through the RPC metadata the instrumentation reads when the response ends, as the Koa
 * instrumentation does for Koa 2. Without tracing (infra/tracing.ts) it steps aside.
 */
export const requestTracing: Middleware<AppState> = async (ctx, next) => {
  if (!tracingInstalled()) return next();
  try {
    await next();
  } finally {
    const rpc = getRPCMetadata(context.active());
    const route = (ctx as { _matchedRoute?: unknown })._matchedRoute;
    if (rpc?.type === RPCType.HTTP && typeof route === 'string') rpc.route = route;
    if (ctx.state.requestId) trace.getActiveSpan()?.setAttribute('request_id', ctx.state.requestId);
  }
};
