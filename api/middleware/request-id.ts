import { randomUUID } from 'node:crypto';
import { Middleware } from 'koa';
import type { Logger } from 'pino';
import { AppState } from '../context';
import { runWithWorkContext } from '../../infra/work-context';

const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Takes the caller's X-Request-Id when it is sane, else makes one; echoes it and binds it to the request logger and its work context. */
export function requestId(logger: Logger): Middleware<AppState> {
  return async (ctx, next) => {
    const incoming = ctx.get('X-Request-Id');
    const id = ACCEPTABLE_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = id;
    // With tracing on, the logger's mixin adds trace_id and span_id (infra/logger.ts).
    ctx.state.log = logger.child({ request_id: id });
    ctx.set('X-Request-Id', id);
    const started = process.hrtime.bigint();
    try {
      // The crash log's context (infra/crash-policy.ts): what fails on this request's path names it.
      await runWithWorkContext({ request_id: id }, next);
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      // Path only: query strings can carry filters with personal data.
      ctx.state.log.info({ method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(ms * 10) / 10 }, 'request');
    }
  };
}
