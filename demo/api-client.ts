/**
 * The demo's way into the service: the typed client (client/) over HTTP, as the demo tenant's
 * admin, exactly as an integrator would call it. Signs in, and again before the 15-minute token
 * expires (or after a 401, for the next call).
 */
import { ApiClient, createApiClient } from '../client';

export class DemoApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    what: string,
  ) {
    super(`${what}: ${status} ${JSON.stringify(body ?? null).slice(0, 300)}`);
  }
}

/** A token is renewed this long before it expires. */
const RENEW_BEFORE_MS = 60_000;

export function demoApiClient(origin: string, email: string, password: string): ApiClient {
  let session: { token: string; renewAt: number } | null = null;
  const token = async () => {
    if (session === null || Date.now() >= session.renewAt) {
      const answer = await ok(createApiClient(origin).POST('/api/v1/auth/login', { body: { email, password } }));
      session = { token: answer.access_token!, renewAt: Date.now() + answer.expires_in! * 1000 - RENEW_BEFORE_MS };
    }
    return session.token;
  };
  const api = createApiClient(origin, token);
  api.use({
    onResponse({ response }) {
      if (response.status === 401) session = null; // revoked or expired early: sign in again next time
    },
  });
  return api;
}

/** The body of a 2xx answer; DemoApiError otherwise. */
export async function ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw new DemoApiError(response.status, error, `${new URL(response.url).pathname}`);
  return data as T;
}

/** Every item of a list endpoint, 100 a page: `page` asks for one. */
export async function all<T>(
  page: (query: { skip: number; limit: number }) => Promise<{ data?: { items?: T[]; total?: number }; error?: unknown; response: Response }>,
): Promise<T[]> {
  const items: T[] = [];
  for (let skip = 0; ; skip += 100) {
    const { items: more = [], total = 0 } = await ok(page({ skip, limit: 100 }));
    items.push(...more);
    if (items.length >= total || more.length === 0) return items;
  }
}
