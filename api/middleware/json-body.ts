import bodyParser from 'koa-bodyparser';
import { Middleware } from 'koa';
import { AppState } from '../context';
import { AppError } from '../../domain/errors';

const parsers = new Map<string, Middleware<AppState>>();

/**
 * The JSON body parser of one route, with that route's size limit. Applied by the route chain after
 * authentication, so a request that is refused is never read, and an over-limit body is refused from
 * its Content-Length or after `limit` bytes, never buffered whole. `strict`: only objects and arrays.
 */
export function parseJsonBody(limit: string): Middleware<AppState> {
  let parser = parsers.get(limit);
  if (!parser) {
    const json = bodyParser({ enableTypes: ['json'], jsonLimit: limit, strict: true }) as unknown as Middleware<AppState>;
    parser = async (ctx, next) => {
      // A body in another media type would otherwise be ignored and the request judged as bodiless.
      // ctx.is: null without a body headers-wise, false for another type; Content-Length 0 is no body.
      if (ctx.request.length !== 0 && ctx.is('application/json', '+json') === false) {
        throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'the body must be JSON (Content-Type: application/json)');
      }
      return json(ctx, next);
    };
    parsers.set(limit, parser);
  }
  return parser;
}
