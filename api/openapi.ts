import { requestJsonSchema, responseJsonSchema, STORABLE_JSON } from './openapi-schema';
import { pathIdNames } from './path-ids';
import { ANONYMOUS_BODY_LIMIT, AUTHENTICATED_BODY_LIMIT, RegisteredRoute } from './route';
import { MAX_INFLATE_RATIO } from './request-body';

type JsonSchema = Record<string, any>;

const errorSchema: JsonSchema = {
  type: 'object',
  required: ['detail', 'error_code', 'request_id'],
  properties: {
    detail: { type: 'string', description: 'Human-readable message' },
    error_code: { type: 'string', description: 'Machine-readable code, e.g. NOT_FOUND, VALIDATION_ERROR' },
    request_id: { type: 'string', description: 'Identifier of the request (also in X-Request-Id)' },
    fields: {
      type: 'array',
      description: 'Present on VALIDATION_ERROR: the failing fields',
      items: { type: 'object', properties: { field: { type: 'string' }, message: { type: 'string' }, type: { type: 'string' } } },
    },
  },
};

const SECURITY_SCHEMES = {
  bearerAuth: { auth: 'user', type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
  internalToken: { auth: 'internal', type: 'http', scheme: 'bearer', bearerFormat: 'JWT (aud: internal)' },
} as const;

/**
 * The public contract leaves out the internal service API (`/internal/*`: service tokens, not part
 * of the public API, SPEC.md); operators have it in a document of its own, committed as
 * docs/internal-api.openapi.json and written by the same `npm run openapi:generate`
 * (api/openapi-document.ts).
 */
export const isPublicRoute = (route: RegisteredRoute): boolean => route.auth !== 'internal';

/** `/agents/:agent_id` → `/agents/{agent_id}` */
export const toOpenApiPath = (koaPath: string): string => {
  const path = koaPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
  return path.length > 1 ? path.replace(/\/$/, '') : path;
};

/**
 * The OpenAPI 3.1 document, built from the same route declarations (and joi schemas) that the
 * router validates with, so the document cannot drift from what the API accepts.
 */
export function buildOpenApi(routes: RegisteredRoute[], info: { version: string; title?: string; description?: string }): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    const path = toOpenApiPath(route.fullPath);
    const operation: JsonSchema = {
      operationId: operationId(route),
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      tags: route.tags,
      parameters: [...pathParameters(route), ...queryParameters(route)],
      responses: responses(route),
    };
    if (route.auth === 'user') operation.security = [{ bearerAuth: [] }];
    else if (route.auth === 'internal') operation.security = [{ internalToken: [] }];
    else operation.security = [];
    if (route.permission) operation['x-permission'] = route.permission;
    if (route.scope) operation['x-scope'] = route.scope;
    if (route.body) {
      // Optional when an empty object is valid: the API reads a missing body as `{}`.
      const required = route.body.validate({}).error !== undefined;
      // A provider's payload is taken with any strings (NUL made storable), so its shape is Joi's alone.
      const schema = route.providerPayload ? responseJsonSchema(route.body) : requestJsonSchema(route.body);
      operation.requestBody = { required, content: { 'application/json': { schema } } };
    }
    if (route.multipart) operation.requestBody = multipartBody(route.multipart);
    if (route.rawBody) {
      operation.requestBody = {
        required: true,
        description: route.rawBody.description,
        content: { [route.rawBody.contentType]: { schema: { type: 'string', format: 'binary' } } },
      };
    }
    (paths[path] ??= {})[route.method] = operation;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: info.title ?? 'Industrial Operations and Agent Service',
      version: info.version,
      description:
        info.description ??
        'Multi-tenant REST API. Every error is `{detail, error_code, request_id}`. Every response carries `X-RateLimit-Limit`, `X-RateLimit-Remaining` and ' +
          "`X-RateLimit-Reset` (Unix seconds): the tenant plan's requests per minute on an authenticated call, the refresh budget of the client address on a refresh, " +
          'and the login attempts of the client address (per 15 minutes) on any other answer (login, 401, unknown path, 405, docs, probes).',
    },
    servers: [{ url: '/' }],
    paths,
    components: {
      // The schemes the document's operations use.
      securitySchemes: Object.fromEntries(
        Object.entries(SECURITY_SCHEMES)
          .filter(([, scheme]) => routes.some((route) => route.auth === scheme.auth))
          .map(([name, { auth: _auth, ...scheme }]) => [name, scheme]),
      ),
      schemas: { Error: errorSchema, StorableJson: STORABLE_JSON },
      headers: RATE_LIMIT_HEADERS,
    },
  };
}

function multipartBody(fields: NonNullable<RegisteredRoute['multipart']>): JsonSchema {
  const properties = Object.fromEntries(
    Object.entries(fields).map(([name, f]) => [name, { type: 'string', ...(f.type === 'file' ? { format: 'binary' } : {}), description: f.description }]),
  );
  const required = Object.entries(fields)
    .filter(([, f]) => f.required)
    .map(([name]) => name);
  return { required: true, content: { 'multipart/form-data': { schema: { type: 'object', properties, required, additionalProperties: false } } } };
}

function operationId(route: RegisteredRoute): string {
  const words = route.fullPath
    .replace(/^\/api\/v1\//, '')
    .split(/[/:{}-]+/)
    .filter(Boolean);
  return [route.method, ...words].map((w, i) => (i === 0 ? w : w[0].toUpperCase() + w.slice(1))).join('');
}

function pathParameters(route: RegisteredRoute): JsonSchema[] {
  const names = [...route.fullPath.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]);
  const props = route.params ? (requestJsonSchema(route.params).properties ?? {}) : {};
  // Names come from the route's own path; hasOwn keeps a name like `constructor` off the prototype.
  return names.map((name) => ({ name, in: 'path', required: true, schema: Object.hasOwn(props, name) ? props[name] : { type: 'string' } }));
}

function queryParameters(route: RegisteredRoute): JsonSchema[] {
  if (!route.query) return [];
  const schema = requestJsonSchema(route.query);
  const required = new Set<string>(schema.required ?? []);
  return Object.entries<JsonSchema>(schema.properties ?? {}).map(([name, s]) => ({
    name,
    in: 'query',
    required: required.has(name),
    ...(s.description ? { description: s.description } : {}),
    schema: s,
  }));
}

/** On every response (api/middleware/rate-limit.ts); which budget they describe is in the document's description. */
const RATE_LIMIT_HEADERS: JsonSchema = {
  'X-RateLimit-Limit': { description: 'Total limit of the window', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests remaining in the window', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'When the window resets, as a Unix epoch timestamp (seconds)', schema: { type: 'integer' } },
};
const RATE_LIMIT_HEADER_REFS: JsonSchema = Object.fromEntries(Object.keys(RATE_LIMIT_HEADERS).map((name) => [name, { $ref: `#/components/headers/${name}` }]));

function responses(route: RegisteredRoute): JsonSchema {
  const out: JsonSchema = {};
  for (const [status, spec] of Object.entries(route.responses)) {
    const code = Number(status);
    const content =
      code >= 400
        ? { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } }
        : spec.schema
          ? { 'application/json': { schema: responseJsonSchema(spec.schema) } }
          : undefined;
    out[status] = { description: spec.description, headers: RATE_LIMIT_HEADER_REFS, ...(content ? { content } : {}) };
  }
  const standard: Array<[number, string, boolean]> = [
    [
      400,
      'Malformed body (JSON, or multipart/form-data); JSON_TOO_DEEP: arrays and objects nested deeper than 64 levels; JSON_TOO_WIDE: an array or object of more than 2 000 members; a Content-Encoding that does not decode',
      !!route.body || !!route.multipart,
    ],
    [415, 'Body not in JSON, or UNSUPPORTED_CONTENT_ENCODING: a Content-Encoding other than gzip or deflate', !!route.body],
    [401, 'Not authenticated', route.auth !== 'none'],
    [403, forbiddenDescription(route), !!route.permission || !!route.scope || route.auth === 'user'],
    [404, 'Not found: a path id names no record of this tenant (a malformed id included)', pathIdNames(route.fullPath).length > 0],
    [
      413,
      `Body over ${route.bodyLimit ?? (route.auth === 'none' ? ANONYMOUS_BODY_LIMIT : AUTHENTICATED_BODY_LIMIT)} bytes (after a gzip or deflate Content-Encoding is decoded), or COMPRESSION_RATIO_TOO_HIGH: it inflates more than ${MAX_INFLATE_RATIO} times`,
      !!route.body,
    ],
    [422, 'Validation error', !!(route.body || route.query || route.params)],
    [429, 'Rate limit of the tenant plan exceeded', route.auth === 'user'],
    [500, 'Internal error', true],
    // Any route that reads or writes: PostgreSQL restarting or unreachable (`down: ["postgres"]`), retry.
    [503, 'A dependency is unavailable (PostgreSQL restarting, Temporal unreachable): retry; `down` names it', true],
  ];
  for (const [code, description, applies] of standard) {
    if (applies && !out[code]) out[code] = { description, headers: RATE_LIMIT_HEADER_REFS, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
  }
  return out;
}

/** Why a route answers 403: a service token's scope or grant, a user's permission; and for every user route, a suspended tenant. */
function forbiddenDescription(route: Pick<RegisteredRoute, 'scope' | 'permission' | 'auth'>): string {
  if (route.scope) return 'The service token lacks the scope, or may not act for the tenant, or that tenant is suspended (TENANT_SUSPENDED)';
  if (route.permission) return 'Missing permission, or the tenant is suspended (TENANT_SUSPENDED)';
  return 'The tenant is suspended (TENANT_SUSPENDED)';
}
