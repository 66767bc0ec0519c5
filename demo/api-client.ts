/**
 * The demo's way into the service: the public API, as the demo tenant's admin, over HTTP, exactly
 * as an integrator would call it. Signs in, signs in again when the 15-minute token expires.
 */
export class DemoApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    what: string,
  ) {
    super(`${what}: ${status} ${JSON.stringify(body).slice(0, 300)}`);
  }
}

interface Page<T> {
  items: T[];
  total: number;
}

export class DemoApiClient {
  private token: string | null = null;

  constructor(
    private readonly origin: string,
    private readonly email: string,
    private readonly password: string,
  ) {}

  private async login(): Promise<string> {
    const res = await fetch(`${this.origin}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: this.email, password: this.password }),
    });
    const body = await res.json().catch(() => null);
    if (res.status !== 200) throw new DemoApiError(res.status, body, 'sign-in');
    this.token = (body as { access_token: string }).access_token;
    return this.token;
  }

  /** Answers the parsed body of a 2xx; throws DemoApiError otherwise. */
  async call<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const token = this.token ?? (await this.login());
      const res = await fetch(`${this.origin}${path}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (res.status === 401 && attempt === 0) {
        this.token = null; // expired: sign in again, once
        continue;
      }
      const parsed = res.status === 204 ? undefined : await res.json().catch(() => undefined);
      if (res.status >= 400) throw new DemoApiError(res.status, parsed, `${method} ${path}`);
      return parsed as T;
    }
  }

  /** Every item of a list endpoint (pages of 100). */
  async all<T = any>(path: string): Promise<T[]> {
    const items: T[] = [];
    const join = path.includes('?') ? '&' : '?';
    for (let skip = 0; ; skip += 100) {
      const page = await this.call<Page<T>>('GET', `${path}${join}skip=${skip}&limit=100`);
      items.push(...page.items);
      if (items.length >= page.total || page.items.length === 0) return items;
    }
  }
}
