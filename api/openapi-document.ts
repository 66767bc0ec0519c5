import { buildOpenApi, isPublicRoute } from './openapi';
import type { RegisteredRoute } from './route';
import { API_VERSION, apiRouters } from './routers';

const allRoutes = (): RegisteredRoute[] => apiRouters().flatMap((r) => r.routes);

/**
 * The OpenAPI document `GET /api/v1/openapi.json` serves, built from the route declarations alone
 * (no database, no server): what `npm run openapi:generate` commits as client/openapi.json.
 */
export function openApiDocument(): Record<string, any> {
  return buildOpenApi(allRoutes().filter(isPublicRoute), { version: API_VERSION });
}

/** The internal service API's document, for operators (docs/internal-api.openapi.json). */
export function internalOpenApiDocument(): Record<string, any> {
  return buildOpenApi(
    allRoutes().filter((route) => !isPublicRoute(route)),
    {
      version: API_VERSION,
      title: 'Industrial Operations and Agent Service: internal service API',
      description:
        'Service-to-service endpoints under /internal, not part of the public API: each needs a service token (JWT with aud "internal", signed with INTERNAL_JWT_SECRET) carrying the scope the operation names (x-scope). ' +
        'Every error is `{detail, error_code, request_id}`.',
    },
  );
}
