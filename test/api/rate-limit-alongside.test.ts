/**
 * A read-only route's request counted while its handler runs (api/middleware/rate-limit.ts,
 * `rateLimitAlongside`): the real limiter over the real `tenant_request_budgets` table, in a small
 * Koa app whose handler says when it ran; a transaction of the test holds the tenant's row, so a
 * count waits for as long as the test decides. Then the same through the real API's list.
 */
import { AddressInfo } from 'node:net';
import { createServer, Server } from 'node:http';
import Koa from 'koa';
import { Knex } from 'knex';
import { requestListener } from '../../api/listen';
import { errorHandler } from '../../api/middleware/errors';
import { rateLimitAlongside, rateLimitHeaders } from '../../api/middleware/rate-limit';
import { createRateLimiter, MAX_COUNTED_ALONGSIDE } from '../../api/rate-limiter';
import { ApiRouter } from '../../api/route';
import { RATE_LIMITS } from '../../domain/tenancy/plans';
import { createTenant, expectError, send, startTestApi, TestApi, TestTenant } from '../support/api';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const FREE = RATE_LIMITS.free;

/** The app: a user of `tenant` (as authenticateUser leaves it), the middleware under test, and a handler that counts its runs. */
async function readApp(tenant: TestTenant) {
  const runs: number[] = [];
  const app = new Koa();
  Object.assign(app.context, { deps: { rateLimiter: createRateLimiter(api.deps.db), loginLimits: api.deps.loginLimits } });
  app.use(async (ctx, next) => {
    ctx.state.requestId = `req-${runs.length}-${Math.random()}`;
    ctx.set('X-Request-Id', ctx.state.requestId);
    await next();
  });
  app.use(rateLimitHeaders);
  app.use(errorHandler);
  app.use(async (ctx, next) => {
    ctx.state.principal = { kind: 'user', userId: tenant.adminUserId, tenantId: tenant.tenantId, role: 'admin', permissions: [], sessionId: 'test' };
    await next();
  });
  app.use(rateLimitAlongside);
  app.use((ctx) => {
    runs.push(Date.now());
    ctx.set('X-Handled', 'yes');
    ctx.body = { read: true };
  });
  const server: Server = createServer(requestListener(app.callback()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    runs,
    get: () => send(url, '/'),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Holds the tenant's counters in a transaction of the test: every count of the tenant waits until `release`. */
async function holdBudgetRow(tenantId: string): Promise<{ release(): Promise<void> }> {
  const trx: Knex.Transaction = await api.deps.db.transaction();
  const ends = Date.now() + 60_000;
  await trx.raw('insert into tenant_request_budgets values (?, 0, ?, 0, ?) on conflict (tenant_id) do nothing', [tenantId, ends, ends]);
  await trx.raw('select 1 from tenant_request_budgets where tenant_id = ? for update', [tenantId]);
  return { release: () => trx.commit().then(() => undefined) };
}

/** The tenant's counters as the shared table holds them. */
const counters = (tenantId: string): Promise<{ burst_points: number; minute_points: number }> =>
  api.deps.db('tenant_request_budgets').where({ tenant_id: tenantId }).first('burst_points', 'minute_points');

/** Another API process spends the rest of the tenant's minute. */
const spendMinute = (tenantId: string) => api.deps.db('tenant_request_budgets').where({ tenant_id: tenantId }).update({ minute_points: FREE.requestsPerMinute });

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

describe('a read counted while it runs', () => {
  it('waits for its count when the process has not counted for the tenant yet, and runs beside it afterwards, the shared counter and headers exact', async () => {
    const tenant = await createTenant(api, 'free');
    const app = await readApp(tenant);
    try {
      // First: nothing known of the tenant in this process, so the handler waits for the count.
      let held = await holdBudgetRow(tenant.tenantId);
      const first = app.get();
      await settle();
      expect(app.runs).toHaveLength(0);
      await held.release();
      const firstRes = await first;
      expect(firstRes.status).toBe(200);
      expect(firstRes.headers.get('x-ratelimit-remaining')).toBe(String(FREE.requestsPerMinute - 1));
      expect(app.runs).toHaveLength(1);

      // Second: the first count left room, so the handler runs while the count still waits.
      held = await holdBudgetRow(tenant.tenantId);
      const second = app.get();
      await until(() => app.runs.length === 2, 'the handler to run beside its waiting count');
      let answered = false;
      void second.then(() => (answered = true));
      await settle();
      expect(answered).toBe(false); // the answer waits for the count
      await held.release();
      const secondRes = await second;
      expect(secondRes.status).toBe(200);
      expect(secondRes.body).toEqual({ read: true });
      expect(secondRes.headers.get('x-ratelimit-remaining')).toBe(String(FREE.requestsPerMinute - 2));
      expect(await counters(tenant.tenantId)).toEqual({ burst_points: 2, minute_points: 2 });
    } finally {
      await app.close();
    }
  });

  it('answers 429 without anything of the handler when its count refuses it, and counts the next read first', async () => {
    const tenant = await createTenant(api, 'free');
    const app = await readApp(tenant);
    try {
      expect((await app.get()).status).toBe(200);
      await spendMinute(tenant.tenantId);
      const refused = await app.get();
      expectError(refused, 429, 'RATE_LIMITED');
      expect(refused.body.detail).toMatch(/per minute/);
      expect(refused.headers.get('x-handled')).toBeNull();
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(app.runs).toHaveLength(2); // its read ran beside the count, and was dropped

      // The refusal is now what this process knows: the next read waits for its count, which refuses it.
      expectError(await app.get(), 429, 'RATE_LIMITED');
      expect(app.runs).toHaveLength(2);
    } finally {
      await app.close();
    }
  });

  it(`runs at most ${MAX_COUNTED_ALONGSIDE} of a tenant's reads beside their counts at once; the others wait for theirs`, async () => {
    // Starter: 30 per second and 120 per minute leave room for more than the bound.
    const tenant = await createTenant(api, 'starter');
    const app = await readApp(tenant);
    try {
      expect((await app.get()).status).toBe(200);
      const held = await holdBudgetRow(tenant.tenantId);
      const burst = Array.from({ length: MAX_COUNTED_ALONGSIDE + 4 }, () => app.get());
      await until(() => app.runs.length === 1 + MAX_COUNTED_ALONGSIDE, 'the reads counted alongside to run');
      await settle();
      expect(app.runs).toHaveLength(1 + MAX_COUNTED_ALONGSIDE);
      await held.release();
      expect((await Promise.all(burst)).map((r) => r.status)).toEqual(Array.from({ length: MAX_COUNTED_ALONGSIDE + 4 }, () => 200));
      expect(app.runs).toHaveLength(1 + MAX_COUNTED_ALONGSIDE + 4);
    } finally {
      await app.close();
    }
  });

  it("starts a read's count once the read's own query is on its way, so the read does not queue behind the count", async () => {
    const tenant = await createTenant(api, 'free');
    const { db } = api.deps;
    const limiter = createRateLimiter(db);
    expect((await limiter.consume(tenant.tenantId)).allowed).toBe(true); // the process now knows the tenant's room
    const order: string[] = [];
    const client = db.client as { acquireConnection: () => Promise<unknown> };
    const acquire = client.acquireConnection;
    client.acquireConnection = () => {
      order.push('connection taken');
      return acquire.call(client);
    };
    const sent = () => order.push('read sent');
    db.on('query', sent);
    try {
      const counting = limiter.countAlongside(tenant.tenantId);
      expect(counting).not.toBeNull();
      await db.raw('select 1');
      const decision = await counting!;
      expect(decision).toMatchObject({ allowed: true, remaining: FREE.requestsPerMinute - 2 });
      expect(order).toEqual(['connection taken', 'read sent', 'connection taken']);
    } finally {
      db.off('query', sent);
      client.acquireConnection = acquire;
    }
  });

  it('marks only a user GET read-only', () => {
    const router = new ApiRouter('/x');
    const spec = {
      path: '/',
      summary: 's',
      tags: ['t'],
      auth: 'user' as const,
      permission: 'view_assets' as const,
      responses: {},
      readOnly: true as const,
      handler: async () => {},
    };
    expect(() => router.route({ ...spec, method: 'post' })).toThrow(/read-only/);
    expect(() => router.route({ ...spec, method: 'get', auth: 'none' })).toThrow(/read-only/);
    expect(() => router.route({ ...spec, method: 'get' })).not.toThrow();
  });
});

describe('the asset list, read-only', () => {
  it('is refused 429 with the error object when another process spent the minute since its last count', async () => {
    const tenant = await createTenant(api, 'free');
    const ok = await api.request('/api/v1/assets', { token: tenant.token });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-ratelimit-remaining')).toBe(String(FREE.requestsPerMinute - 1));
    const next = await api.request('/api/v1/assets', { token: tenant.token });
    expect(next.headers.get('x-ratelimit-remaining')).toBe(String(FREE.requestsPerMinute - 2));
    await spendMinute(tenant.tenantId);
    const refused = await api.request('/api/v1/assets', { token: tenant.token });
    expectError(refused, 429, 'RATE_LIMITED');
    expect(refused.body.items).toBeUndefined();
    expect((await counters(tenant.tenantId)).minute_points).toBe(FREE.requestsPerMinute + 1);
  });
});
