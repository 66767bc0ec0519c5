import Router from '@koa/router';
import type { ObjectSchema, Schema } from 'joi';
import { Middleware } from 'koa';
import { Permission } from '../domain/auth/permissions';
import { AppContext, AppState, AppDeps } from './context';
import { forbidden } from '../domain/errors';
import type { ServiceScope } from '../domain/auth/tokens';
import { storableJson } from '../domain/text';
import { isUuid } from '../domain/ids';
import { runRequestScope } from '../db/db-scope';
import { pathIdNames } from './path-ids';
import { parseJsonBody } from './middleware/json-body';
import { authenticateInternal, authenticateUser } from './middleware/authenticate';
import { rateLimit, rateLimitAlongside } from './middleware/rate-limit';
import { assertStorable, validate } from './validation';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface ResponseSpec {
  description: string;
  schema?: Schema;
}

/**
 * One route: its contract (documented in OpenAPI from the same joi schemas that validate it),
 * its authentication, permission and handler. Routers only declare these; the shared chain
 * (authenticate → rate limit → permission → validate) is applied here, once.
 */
export interface RouteSpec<TParams = any, TQuery = any, TBody = any> {
  method: HttpMethod;
  /** koa-router path relative to the router's prefix, e.g. `/agents/:agent_id`. */
  path: string;
  summary: string;
  description?: string;
  tags: string[];
  auth: 'user' | 'internal' | 'none';
  /** The scope a service token needs on an `internal` route. */
  scope?: ServiceScope;
  permission?: Permission;
  params?: ObjectSchema;
  query?: ObjectSchema;
  body?: Schema;
  /**
   * A `multipart/form-data` body the handler streams itself (uploads): the JSON body parser and
   * `body` validation never touch it; these form fields document it in OpenAPI.
   */
  multipart?: Record<string, { type: 'file' | 'string'; description: string; required?: boolean }>;
  responses: Record<number, ResponseSpec>;
  /**
   * Largest JSON body accepted in bytes (after a Content-Encoding is decoded), default 1 MiB for
   * authenticated routes and 64 KiB for routes without authentication, so an anonymous client
   * cannot make the API buffer a megabyte.
   */
  bodyLimit?: number;
  /**
   * A provider's callback (WhatsApp): NUL characters in its JSON become U+FFFD instead of a 422,
   * since the provider cannot change its payload and would retry it for ever.
   */
  providerPayload?: true;
  /**
   * Runs before the body is read (after authentication, path ids): the anonymous provider
   * callbacks' address budget and in-flight caps (middleware/inbound-guard.ts).
   */
  guard?: Middleware<AppState>;
  /**
   * A GET whose handler only reads (no rows, workflows, objects or mail, nothing streamed): its
   * request may be counted against the tenant's budget while the handler runs
   * (middleware/rate-limit.ts, `rateLimitAlongside`), since a refused one only wasted its read.
   */
  readOnly?: true;
  /** A raw body of another media type that the handler reads itself (documented only). */
  rawBody?: { contentType: string; description: string };
  handler: (ctx: AppContext, input: { params: TParams; query: TQuery; body: TBody }) => Promise<void>;
}

export interface RegisteredRoute extends RouteSpec {
  fullPath: string;
}

export class ApiRouter {
  readonly router: Router<AppState, { deps: AppDeps }>;
  readonly routes: RegisteredRoute[] = [];

  constructor(readonly prefix: string) {
    this.router = new Router<AppState, { deps: AppDeps }>({ prefix });
  }

  route<P = any, Q = any, B = any>(spec: RouteSpec<P, Q, B>): this {
    if (spec.auth === 'user' && !spec.permission && !spec.tags.includes('auth')) {
      throw new Error(`${spec.method.toUpperCase()} ${spec.path}: user routes declare a permission`);
    }
    // The database scope of the whole chain (db/db-scope.ts): a user's request sees nothing until
    // authenticateUser declares the token's tenant; the routes without a user are the named
    // cross-tenant paths (login by e-mail, callbacks that find their tenant, the internal API).
    const chain: Middleware<AppState, any>[] = [(_ctx, next) => runRequestScope(spec.auth === 'user' ? 'tenant' : 'system', next)];
    if (spec.readOnly && (spec.method !== 'get' || spec.auth !== 'user')) throw new Error(`${spec.method.toUpperCase()} ${spec.path}: only a user's GET is marked read-only`);
    if (spec.auth === 'user') chain.push(authenticateUser, spec.readOnly ? rateLimitAlongside : rateLimit);
    if (spec.auth === 'internal') chain.push(authenticateInternal);
    if (spec.permission) chain.push(requirePermission(spec.permission));
    if (spec.auth === 'internal') {
      if (!spec.scope) throw new Error(`internal route ${spec.method.toUpperCase()} ${spec.path} declares no scope`);
      chain.push(requireScope(spec.scope));
    }
    const ids = pathIdNames(spec.path);
    if (ids.length) chain.push(requireUuidPathIds(ids));
    if (spec.guard) chain.push(spec.guard);
    // The body is read only once the caller is known: nothing is buffered for a refused request.
    if (spec.body) chain.push(parseJsonBody(spec.bodyLimit ?? (spec.auth === 'none' ? ANONYMOUS_BODY_LIMIT : AUTHENTICATED_BODY_LIMIT)));
    chain.push(async (ctx: AppContext) => {
      const params = spec.params ? validate<P>(spec.params, ctx.params, 'params') : (assertStorable(ctx.params, 'params'), ctx.params as P);
      const query = spec.query ? validate<Q>(spec.query, ctx.query, 'query') : ({} as Q);
      const received = ctx.request.body ?? {};
      const body = spec.body ? validate<B>(spec.body, spec.providerPayload ? storableJson(received) : received, 'body') : ({} as B);
      await spec.handler(ctx, { params, query, body });
    });
    this.router.register(spec.path, [spec.method.toUpperCase()], chain as any);
    this.routes.push({ ...(spec as RouteSpec), fullPath: `${this.prefix}${spec.path}` });
    return this;
  }
}

export const AUTHENTICATED_BODY_LIMIT = 1024 * 1024;
export const ANONYMOUS_BODY_LIMIT = 64 * 1024;

/**
 * A path id that is not a UUID cannot name a record of this route, so the route steps aside before
 * any query (no cast error can reach PostgreSQL): the 405 rule after the routers answers, 405 when
 * another route owns the path (`PUT /assets/tree`), else the same 404 as an unknown id.
 */
function requireUuidPathIds(names: string[]): Middleware<AppState> {
  return async (ctx, next) => {
    // `names` come from the route's own path, never from the client; hasOwn keeps the lookup honest anyway.
    const params = (ctx as AppContext).params;
    if (names.some((name) => !isUuid(Object.hasOwn(params, name) ? params[name] : ''))) return;
    await next();
  };
}

function requireScope(scope: ServiceScope): Middleware<AppState> {
  return async (ctx, next) => {
    const p = ctx.state.principal;
    if (p?.kind !== 'service' || !p.scopes.includes(scope)) throw forbidden(`the service token lacks the scope ${scope}`);
    await next();
  };
}

function requirePermission(permission: Permission): Middleware<AppState> {
  return async (ctx, next) => {
    const p = ctx.state.principal;
    if (p?.kind !== 'user' || !p.permissions.includes(permission)) {
      throw forbidden(`missing permission ${permission}`);
    }
    await next();
  };
}
