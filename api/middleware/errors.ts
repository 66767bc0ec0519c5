import { Middleware } from 'koa';
import { AppState } from '../context';
import { AppError, ErrorCode } from '../../domain/errors';
import { isDatabaseUnavailable } from '../../infra/error-chain';
import { ContentError } from '../../domain/content-error';
import { SandboxUnavailableError } from '../../infra/sandbox/protocol';
import { TenantCapacityError } from '../../infra/tenant-limiter';

/**
 * The one error path: whatever fails below turns into `{detail, error_code, request_id}` with
 * the status of the catalogue. Unexpected errors are logged with their stack and answered 500
 * without it.
 */
export const errorHandler: Middleware<AppState> = async (ctx, next) => {
  try {
    await next();
    if (ctx.status === 404 && ctx.body === undefined) {
      throw new AppError('NOT_FOUND', `no route for ${ctx.method} ${ctx.path}`);
    }
  } catch (err) {
    const appError = toAppError(err);
    if (appError.status >= 500 && appError.code === 'INTERNAL_ERROR') {
      ctx.state.log?.error({ err }, 'unhandled error');
    } else {
      ctx.state.log?.info({ error_code: appError.code, status: appError.status }, 'request failed');
    }
    ctx.status = appError.status;
    ctx.body = {
      detail: appError.message,
      error_code: appError.code,
      request_id: ctx.state.requestId,
      ...appError.extra,
    };
    // RATE_LIMITED, EXPORT_NOT_READY: when to ask again, as clients read it.
    if (typeof appError.extra.retry_after === 'number') {
      ctx.set('Retry-After', String(appError.extra.retry_after));
    }
  }
};

/** Maps errors thrown by libraries (body parser, raw-body, busboy, router) onto the catalogue. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const e = err as { status?: number; type?: string; expose?: boolean; message?: string; limit?: number };
  if (e?.type === 'entity.too.large' || e?.status === 413) {
    const limit = typeof e.limit === 'number' ? `the ${e.limit}-byte limit of this route` : 'the limit of this route';
    return new AppError('PAYLOAD_TOO_LARGE', `request body exceeds ${limit}`, typeof e.limit === 'number' ? { max_bytes: e.limit } : {});
  }
  if (e?.type === 'entity.parse.failed' || (err instanceof SyntaxError && e?.status === 400)) {
    // The parser (@hapi/bourne) refuses a "__proto__" key at any depth: the JSON is well formed, so say which rule it broke.
    if (e.message === 'Object contains forbidden prototype property') return new AppError('BAD_REQUEST', 'request body has a "__proto__" key, which is refused');
    return new AppError('BAD_REQUEST', 'request body is not valid JSON');
  }
  // A unique index lost a race the handler's own check could not see (two creates at once): the
  // second is a conflict, not a server error. The constraint names the rule, never the values.
  const pg = err as { code?: unknown; constraint?: unknown };
  if (pg?.code === '23505') {
    return new AppError('CONFLICT', `conflicts with an existing record${typeof pg.constraint === 'string' ? ` (${pg.constraint})` : ''}`);
  }
  // Untrusted content that broke a bound (a sandbox's, a parser's): the request's own doing, said with the bound it broke.
  if (err instanceof ContentError) return new AppError('CONTENT_REJECTED', err.message, { reason: err.reason }, 422);
  if (err instanceof TenantCapacityError)
    return new AppError('RATE_LIMITED', `the tenant has its maximum of ${err.pool} work running on this replica; retry shortly`, { retry_after: 5 });
  if (err instanceof SandboxUnavailableError) return new AppError('DEPENDENCY_UNAVAILABLE', err.message, { down: ['content_sandbox'] });
  if (isDatabaseUnavailable(err)) return new AppError('DEPENDENCY_UNAVAILABLE', 'the database is unavailable; retry shortly', { down: ['postgres'] });
  if (e?.status === 415) return new AppError('UNSUPPORTED_MEDIA_TYPE', e.message ?? 'unsupported media type');
  if (e?.status === 405) return new AppError('METHOD_NOT_ALLOWED', e.message ?? 'method not allowed');
  // Any other client error a library raises on purpose (aborted or truncated body, bad
  // Content-Length, unsupported charset) keeps its 4xx status under a catalogue code.
  if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500 && e.expose) {
    return new AppError(CLIENT_ERROR_CODES[e.status] ?? 'BAD_REQUEST', e.message ?? 'bad request', {}, e.status);
  }
  return new AppError('INTERNAL_ERROR', 'internal server error');
}

const CLIENT_ERROR_CODES: Record<number, ErrorCode> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'VALIDATION_ERROR',
  429: 'RATE_LIMITED',
};
