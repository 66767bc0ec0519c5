/**
 * The typed client of the API: openapi-fetch over the types openapi-typescript generates from the
 * committed OpenAPI document (client/schema.d.ts; `npm run openapi:generate` rewrites both). Paths,
 * parameters, bodies and answers are checked by the compiler against the document the API serves.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './schema';

export type { components, operations, paths } from './schema';
export type ApiClient = Client<paths>;

/** A bearer token, or how to get the current one (a session that signs in again when it expires). */
export type TokenSource = string | (() => string | Promise<string>);

export function createApiClient(baseUrl: string, token?: TokenSource): ApiClient {
  const client = createClient<paths>({ baseUrl });
  if (token !== undefined) {
    client.use({
      async onRequest({ request }) {
        request.headers.set('Authorization', `Bearer ${typeof token === 'function' ? await token() : token}`);
        return request;
      },
    });
  }
  return client;
}
