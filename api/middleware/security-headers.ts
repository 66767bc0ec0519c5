import { Middleware } from 'koa';

export const HSTS = 'max-age=63072000; includeSubDomains; preload';

/** SPEC.md's HSTS, no MIME sniffing, no framing; API answers are not cached by intermediaries. */
export const securityHeaders: Middleware = async (ctx, next) => {
  ctx.set('Strict-Transport-Security', HSTS);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'");
  ctx.remove('X-Powered-By');
  await next();
};
