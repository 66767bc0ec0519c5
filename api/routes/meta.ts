import fs from 'node:fs';
import path from 'node:path';
import Joi from '../../domain/joi';
import { buildOpenApi, isPublicRoute } from '../openapi';
import { ApiRouter, RegisteredRoute } from '../route';
import { AppError } from '../../domain/errors';
import { bearerMatches } from '../../infra/metrics';

/** Swagger UI assets come from the installed npm package: no CDN. */
const SWAGGER_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const DOC_ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'application/javascript; charset=utf-8',
};
const DOCS_CSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'";

const DOCS_HTML = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Industrial Ops API</title>
<link rel="stylesheet" href="/api/v1/docs/assets/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="/api/v1/docs/assets/swagger-ui-bundle.js"></script>
<script src="/api/v1/docs/assets/init.js"></script>
</body></html>`;
const DOCS_INIT = `window.ui = SwaggerUIBundle({ url: '/api/v1/openapi.json', dom_id: '#swagger-ui', deepLinking: true, persistAuthorization: true });`;

/**
 * Unauthenticated service routes: liveness, the OpenAPI document and its docs page. `routes` is
 * read lazily so the document covers every router registered in the app, this one included.
 * Dependencies are read from the request's context, so the declarations (and the OpenAPI document
 * built from them, api/openapi-document.ts) exist without a running app.
 */
export function metaRoutes(allRoutes: () => RegisteredRoute[], version: string): ApiRouter[] {
  const root = new ApiRouter('');
  root.route({
    method: 'get',
    path: '/livez',
    summary: 'Liveness of the API process (no dependency checks; see /internal/health)',
    tags: ['meta'],
    auth: 'none',
    responses: { 200: { description: 'Alive', schema: Joi.object({ status: Joi.string().valid('ok') }) } },
    handler: async (ctx) => {
      ctx.body = { status: 'ok' };
    },
  });

  root.route({
    method: 'get',
    path: '/readyz',
    summary: 'Readiness: this process takes requests (503 from the first moment of a stop, while it drains)',
    description:
      'For load balancers and orchestrators: no token. Dependencies are not checked here: PostgreSQL, Temporal or the object store down would take every replica out together, and the requests that need them fail on their own (503 DEPENDENCY_UNAVAILABLE for PostgreSQL and Temporal). Their state: /internal/health.',
    tags: ['meta'],
    auth: 'none',
    responses: {
      200: { description: 'Ready', schema: Joi.object({ status: Joi.string().valid('ready') }) },
      503: { description: 'Draining: the process is stopping and finishes the requests in flight' },
    },
    handler: async (ctx) => {
      if (ctx.deps.lifecycle.draining) throw new AppError('SERVICE_UNAVAILABLE', 'not ready: this process is stopping');
      ctx.body = { status: 'ready' };
    },
  });

  root.route({
    method: 'get',
    path: '/metrics',
    summary: 'Prometheus metrics of this API process (requests, errors, outbox backlog, Node.js runtime)',
    description:
      'Behind `Authorization: Bearer <METRICS_TOKEN>` when METRICS_TOKEN is set (always in production: the process refuses to start without it), open otherwise. Labels carry route templates and codes, never tenant ids.',
    tags: ['meta'],
    auth: 'none',
    responses: { 200: { description: 'Text exposition format 0.0.4' }, 401: { description: 'METRICS_TOKEN is set and the request does not carry it' } },
    handler: async (ctx) => {
      const { metricsToken } = ctx.deps.config;
      if (metricsToken !== null && !bearerMatches(ctx.get('Authorization'), metricsToken)) {
        throw new AppError('UNAUTHENTICATED', 'this endpoint needs the metrics token (Authorization: Bearer <METRICS_TOKEN>)');
      }
      const { registry } = ctx.deps.metrics;
      ctx.type = registry.contentType;
      ctx.body = await registry.metrics();
    },
  });

  const docs = new ApiRouter('/api/v1');
  let cached: object | null = null;
  docs.route({
    method: 'get',
    path: '/openapi.json',
    summary: 'OpenAPI 3.1 document of this API (the public one: the internal service API is not in it)',
    tags: ['meta'],
    auth: 'none',
    responses: { 200: { description: 'The document' } },
    handler: async (ctx) => {
      // The public contract: the internal service API is documented for operators apart.
      cached ??= buildOpenApi(allRoutes().filter(isPublicRoute), { version });
      ctx.body = cached;
    },
  });
  docs.route({
    method: 'get',
    path: '/docs',
    summary: 'Interactive API documentation (Swagger UI)',
    tags: ['meta'],
    auth: 'none',
    responses: { 200: { description: 'HTML page' } },
    handler: async (ctx) => {
      ctx.set('Content-Security-Policy', DOCS_CSP);
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = DOCS_HTML;
    },
  });
  docs.route<{ asset: string }>({
    method: 'get',
    path: '/docs/assets/:asset',
    summary: 'Static assets of the documentation page',
    tags: ['meta'],
    auth: 'none',
    params: Joi.object({ asset: Joi.string().max(64).required() }),
    responses: { 200: { description: 'Asset' }, 404: { description: 'No such asset' } },
    handler: async (ctx, { params }) => {
      ctx.set('Content-Security-Policy', DOCS_CSP);
      ctx.set('Cache-Control', 'public, max-age=3600');
      if (params.asset === 'init.js') {
        ctx.type = 'application/javascript; charset=utf-8';
        ctx.body = DOCS_INIT;
        return;
      }
      const type = Object.hasOwn(DOC_ASSETS, params.asset) ? DOC_ASSETS[params.asset] : undefined;
      if (!type) throw new AppError('NOT_FOUND', 'no such asset');
      ctx.type = type;
      ctx.body = fs.createReadStream(path.join(SWAGGER_DIR, params.asset));
    },
  });
  return [root, docs];
}
