import { buildOpenApi } from './openapi';
import { API_VERSION, apiRouters } from './routers';

/**
 * The OpenAPI document `GET /api/v1/openapi.json` serves, built from the route declarations alone
 * (no database, no server): what `npm run openapi:generate` commits as client/openapi.json.
 */
export function openApiDocument(): Record<string, any> {
  return buildOpenApi(
    apiRouters().flatMap((r) => r.routes),
    { version: API_VERSION },
  );
}
