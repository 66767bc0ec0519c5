/**
 * The guard of an anonymous provider callback, before its body is read: a signature header of the
 * right form (401 otherwise, without a query), the client address's budget, then a slot for the
 * receiving account (`accountOf`: from the path; null when the account is only named in the body),
 * held until the answer is written. A request refused before its body was read closes its
 * connection, so Node does not go on reading the rest of the body.
 */
import type { Middleware } from 'koa';
import { isSha256SignatureHeader } from '../../domain/agents/provider-signature';
import { unauthenticated } from '../../domain/errors';
import type { AppContext, AppState } from '../context';

export function inboundGuard(options: { signatureHeader: string; accountOf: (ctx: AppContext) => string | null }): Middleware<AppState> {
  return async (ctx, next) => {
    const c = ctx as AppContext;
    try {
      if (!isSha256SignatureHeader(c.get(options.signatureHeader) || undefined)) throw unauthenticated(`${options.signatureHeader} is missing or not sha256=<hex>`);
      await c.deps.inboundLimits.countAddress(c.ip);
      const release = c.deps.inboundLimits.enter(options.accountOf(c));
      try {
        await next();
      } finally {
        release();
      }
    } catch (err) {
      if (!c.req.complete) c.set('Connection', 'close');
      throw err;
    }
  };
}
