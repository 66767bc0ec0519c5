import bodyParser from 'koa-bodyparser';
import { Middleware } from 'koa';
import { AppState } from '../context';

const parsers = new Map<string, Middleware<AppState>>();

/**
 * The JSON body parser of one route, with that route's size limit. Applied by the route chain after
 * authentication, so a request that is refused is never read, and an over-limit body is refused from
 * its Content-Length or after `limit` bytes, never buffered whole. `strict`: only objects and arrays.
 */
export function parseJsonBody(limit: string): Middleware<AppState> {
  let parser = parsers.get(limit);
  if (!parser) {
    parser = bodyParser({ enableTypes: ['json'], jsonLimit: limit, strict: true }) as unknown as Middleware<AppState>;
    parsers.set(limit, parser);
  }
  return parser;
}
