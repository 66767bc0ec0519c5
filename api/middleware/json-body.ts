import type { IncomingMessage } from 'node:http';
import { bodyParser } from '@koa/bodyparser';
import { Middleware } from 'koa';
import { AppState } from '../context';
import { AppError } from '../../domain/errors';
import { JsonShapeScan, MAX_JSON_DEPTH, MAX_JSON_MEMBERS } from '../../domain/json-depth';
import { bodyRefusal, boundedBody, closeUnlessRead } from '../request-body';

/** Every method a route with a body may have: the route chain decides which requests come here. */
const ANY_METHOD = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'];

/**
 * The JSON body parser of one route, with that route's size limit (bytes). Applied by the route
 * chain after authentication, so a refused request is never read. @koa/bodyparser reads and parses
 * the body (strict: an object or an array; a `__proto__` key at any depth refused by
 * @hapi/bourne) and sets `ctx.request.body` (`{}` without a body) and `ctx.request.rawBody` (the
 * text, for signatures). What it cannot bound is done in front of it, on the stream it reads:
 * api/request-body.ts decodes gzip or deflate with the decoded-bytes and ratio caps, and the shape
 * is scanned as the bytes pass (domain/json-depth.ts: 400 JSON_TOO_DEEP, JSON_TOO_WIDE) and
 * refused at the end of the body, before the library parses it.
 */
export function parseJsonBody(limit: number): Middleware<AppState> {
  // detectJSON: this middleware has already decided that the body is JSON (see below).
  const parse = bodyParser({ enableTypes: ['json'], detectJSON: () => true, jsonLimit: limit, parsedMethods: ANY_METHOD, encoding: 'utf-8' });
  return async (ctx, next) => {
    // ctx.is: null without a body headers-wise, false for another type; Content-Length 0 is no body.
    const isJson = ctx.is('application/json', '+json');
    // A body in another media type would otherwise be ignored and the request judged as bodiless.
    if (ctx.request.length !== 0 && isJson === false) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'the body must be JSON (Content-Type: application/json)');
    if (!isJson) {
      ctx.request.body = {};
      return next();
    }
    const req = ctx.req;
    const shape = new JsonShapeScan();
    try {
      // The library reads ctx.req (co-body): give it the bounded body, as a request without headers of its own.
      const body = boundedBody(req, limit, { onChunk: (chunk) => shape.feed(chunk), atEnd: () => refuseShape(shape) });
      ctx.req = Object.assign(body, { headers: {} }) as unknown as IncomingMessage;
      await parse(ctx, async () => undefined);
    } catch (err) {
      closeUnlessRead({ req, set: ctx.set.bind(ctx) });
      // SyntaxError: the library's parse (not JSON, not an object or array, a __proto__ key), worded by the error handler.
      throw err instanceof SyntaxError ? err : bodyRefusal(err, req);
    } finally {
      ctx.req = req;
    }
    return next();
  };
}

/** 400 for a body past the shape bounds; one that does not open as an object or array is left to the parser's own refusal. */
function refuseShape(shape: JsonShapeScan): void {
  if (!shape.opensContainer) return;
  if (shape.excess === 'depth')
    throw new AppError('JSON_TOO_DEEP', `request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`, { max_depth: MAX_JSON_DEPTH }, 400);
  if (shape.excess === 'members')
    throw new AppError('JSON_TOO_WIDE', `request body has an array or object of more than ${MAX_JSON_MEMBERS} members`, { max_members: MAX_JSON_MEMBERS }, 400);
}
