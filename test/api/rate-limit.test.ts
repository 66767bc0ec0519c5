import { RATE_LIMITS } from '../../domain/tenancy/plans';
import { createTenant, expectError, startTestApi, TestApi } from '../support/api';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

/** The tenant's counters as if `points` requests had been counted in a minute that ends in 50 s (its burst long over). */
const spentMinute = (tenantId: string, points: number) =>
  api.deps.db('tenant_request_budgets').insert({ tenant_id: tenantId, burst_points: 1, burst_ends: Date.now() - 9_000, minute_points: points, minute_ends: Date.now() + 50_000 });

describe('rate limits per tenant plan', () => {
  it('lets a Free tenant firing 40 concurrent requests through its burst per second, and answers the rest 429', async () => {
    const free = await createTenant(api, 'free');
    const started = Date.now();
    const responses = await Promise.all(Array.from({ length: 40 }, () => api.request('/api/v1/assets', { token: free.token })));
    // The burst window is one second: a run that took longer (a loaded machine) may open a second one.
    const windows = Math.ceil((Date.now() - started) / 1000) + 1;
    const ok = responses.filter((r) => r.status === 200);
    const limited = responses.filter((r) => r.status === 429);
    expect(ok.length).toBeGreaterThanOrEqual(RATE_LIMITS.free.burstPerSecond);
    expect(ok.length).toBeLessThanOrEqual(Math.min(30, RATE_LIMITS.free.burstPerSecond * windows));
    expect(limited).toHaveLength(40 - ok.length);

    for (const r of responses) {
      expect(r.headers.get('x-ratelimit-limit')).toBe('30');
      expect(Number(r.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
      expect(Number(r.headers.get('x-ratelimit-reset'))).toBeLessThanOrEqual(Date.now() / 1000 + 61);
    }
    // The accepted requests spent one each of the 30 per minute; refused ones spent none.
    const remaining = ok.map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort((x, y) => x - y);
    expect(remaining).toEqual(Array.from({ length: ok.length }, (_, i) => 30 - ok.length + i));
    const refused = limited[0];
    expectError(refused, 429, 'RATE_LIMITED');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.body.retry_after).toBe(Number(refused.headers.get('retry-after')));
  });

  it('refuses once the per-minute budget is spent, with Retry-After until the window resets', async () => {
    const free = await createTenant(api, 'free');
    // The shared counter in PostgreSQL, as if 30 requests had been made 10 s ago.
    await spentMinute(free.tenantId, 30);
    const res = await api.request('/api/v1/assets', { token: free.token });
    expectError(res, 429, 'RATE_LIMITED');
    expect(res.body.detail).toMatch(/per minute/);
    expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(49);
    expect(retryAfter).toBeLessThanOrEqual(50);
  });

  it('counts per tenant: another tenant is not limited by the first one', async () => {
    const [t1, t2] = await Promise.all([createTenant(api, 'free'), createTenant(api, 'free')]);
    await spentMinute(t1.tenantId, 30);
    expect((await api.request('/api/v1/assets', { token: t1.token })).status).toBe(429);
    const other = await api.request('/api/v1/assets', { token: t2.token });
    expect(other.status).toBe(200);
    expect(other.headers.get('x-ratelimit-remaining')).toBe('29');
  });

  it("counts in the service's own table, one row per tenant, and writes nothing into the login limiter's rate_limits", async () => {
    const t = await createTenant(api, 'starter');
    for (let i = 0; i < 3; i += 1) expect((await api.request('/api/v1/assets', { token: t.token })).status).toBe(200);
    expect(await api.deps.db('tenant_request_budgets').where({ tenant_id: t.tenantId }).select('burst_points', 'minute_points')).toEqual([
      expect.objectContaining({ minute_points: 3 }),
    ]);
    expect(await api.deps.db('rate_limits').where('key', 'like', `%${t.tenantId}%`).count({ n: '*' })).toEqual([{ n: '0' }]);
  });

  it('shares the counters between API processes', async () => {
    const second = await startTestApi();
    try {
      const t = await createTenant(api, 'starter');
      await api.request('/api/v1/assets', { token: t.token });
      const res = await second.request('/api/v1/assets', { token: t.token });
      expect(res.headers.get('x-ratelimit-limit')).toBe('120');
      expect(res.headers.get('x-ratelimit-remaining')).toBe('118');
    } finally {
      await second.close();
    }
  });
});
