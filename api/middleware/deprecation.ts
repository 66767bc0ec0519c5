import { Middleware } from 'koa';
import { DeprecationRule } from '../../infra/config';

/**
 * Deprecation, Sunset and successor Link headers, driven by configuration per route prefix
 * (API_DEPRECATIONS), emitted from this one place. The longest matching prefix wins.
 */
export function deprecationHeaders(rules: DeprecationRule[]): Middleware {
  const sorted = [...rules].sort((a, b) => b.prefix.length - a.prefix.length);
  return async (ctx, next) => {
    const rule = sorted.find((r) => ctx.path === r.prefix || ctx.path.startsWith(`${r.prefix}/`));
    if (rule) {
      ctx.set('Deprecation', 'true');
      ctx.set('Sunset', new Date(rule.sunset).toUTCString());
      ctx.set('Link', `<${rule.successor}>; rel="successor-version"`);
    }
    await next();
  };
}
