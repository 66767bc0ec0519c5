import { Middleware } from 'koa';
import type Router from '@koa/router';
import { AppState } from '../context';
import { AppError } from '../../domain/errors';
import { malformedPathId, recordNameOf } from '../path-ids';

/**
 * After every router: a path that exists but not for this method answers 405 with `Allow` (any
 * method, TRACE or PROPFIND alike: the server implements none of them on any path, and a 5xx would
 * tell monitoring the server failed); OPTIONS answers 204 with `Allow`. A path no router knows falls
 * through to the error handler's 404. One rule for every router, instead of each router's
 * `allowedMethods`, which answers unknown methods with a thrown 501.
 */
export function methodNotAllowed(routers: () => Router<any, any>[]): Middleware<AppState> {
  return async (ctx, next) => {
    await next();
    if (ctx.status !== 404 || ctx.body !== undefined) return;
    const allowed = new Set<string>();
    let malformed: string | undefined;
    for (const router of routers()) {
      for (const layer of router.match(ctx.path, ctx.method).path) {
        // A route whose `:xxx_id` segment here is not a UUID does not own this path.
        const idName = malformedPathId(layer.params(ctx.path, layer.captures(ctx.path), {}));
        if (idName !== undefined) {
          malformed ??= idName;
          continue;
        }
        for (const method of layer.methods) allowed.add(method);
      }
    }
    if (allowed.size === 0) {
      if (malformed !== undefined) throw new AppError('NOT_FOUND', `${recordNameOf(malformed)} not found`);
      return;
    }
    if (allowed.has('GET')) allowed.add('HEAD');
    allowed.add('OPTIONS');
    const allow = [...allowed].sort().join(', ');
    ctx.set('Allow', allow);
    if (ctx.method === 'OPTIONS') {
      ctx.status = 204;
      return;
    }
    throw new AppError('METHOD_NOT_ALLOWED', `${ctx.method} is not allowed on ${ctx.path}; allowed: ${allow}`, { allow: [...allowed].sort() });
  };
}
