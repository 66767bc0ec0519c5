import { parse } from '@hapi/bourne';
import { Middleware } from 'koa';
import { AppState } from '../context';
import { AppError } from '../../domain/errors';
import { jsonShapeExcess, MAX_JSON_DEPTH, MAX_JSON_MEMBERS } from '../../domain/json-depth';
import { readRequestBody } from '../request-body';

/** RFC 8259: a body is an object or an array (after optional whitespace); scalars are refused. */
const OBJECT_OR_ARRAY = /^[ \t\n\r]*[[{]/;
const utf8 = new TextDecoder('utf-8');

/**
 * The JSON body parser of one route, with that route's size limit (bytes). Applied by the route
 * chain after authentication, so a refused request is never read. The body is read by
 * api/request-body.ts (gzip or deflate decoded, at most `limit` bytes after decoding, a
 * compression bomb refused), its shape is bounded before it is parsed (domain/json-depth.ts: 400
 * JSON_TOO_DEEP, JSON_TOO_WIDE), and the parser (@hapi/bourne) refuses a `__proto__` key at any depth.
 * Sets `ctx.request.body` (`{}` without a body) and `ctx.request.rawBody` (the text, for signatures).
 */
export function parseJsonBody(limit: number): Middleware<AppState> {
  return async (ctx, next) => {
    const request = ctx.request as typeof ctx.request & { body?: unknown; rawBody?: string };
    // ctx.is: null without a body headers-wise, false for another type; Content-Length 0 is no body.
    const isJson = ctx.is('application/json', '+json');
    // A body in another media type would otherwise be ignored and the request judged as bodiless.
    if (ctx.request.length !== 0 && isJson === false) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'the body must be JSON (Content-Type: application/json)');
    if (!isJson) {
      request.body = {};
      return next();
    }
    const text = utf8.decode(await readRequestBody(ctx, limit));
    request.rawBody = text;
    request.body = parseJson(text);
    return next();
  };
}

function parseJson(text: string): unknown {
  if (!text) return {};
  if (!OBJECT_OR_ARRAY.test(text)) throw new AppError('BAD_REQUEST', 'request body is not valid JSON');
  const excess = jsonShapeExcess(text);
  if (excess === 'depth') throw new AppError('JSON_TOO_DEEP', `request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`, { max_depth: MAX_JSON_DEPTH }, 400);
  if (excess === 'members')
    throw new AppError('JSON_TOO_WIDE', `request body has an array or object of more than ${MAX_JSON_MEMBERS} members`, { max_members: MAX_JSON_MEMBERS }, 400);
  try {
    return parse(text, { protoAction: 'error' });
  } catch (err) {
    if ((err as Error).message === 'Object contains forbidden prototype property') throw new AppError('BAD_REQUEST', 'request body has a "__proto__" key, which is refused');
    throw new AppError('BAD_REQUEST', 'request body is not valid JSON');
  }
}
