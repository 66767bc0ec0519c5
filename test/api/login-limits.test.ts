/**
 * Limits of the anonymous auth routes under concurrency (issue 17), over real HTTP against the real
 * database. The API here trusts one proxy hop, so each test speaks from its own client address
 * (X-Forwarded-For) and the counters of other test files (all from 127.0.0.1) never interfere.
 */
import { randomUUID } from 'node:crypto';
import { provisionTenant } from '../../db/tenants';
import { createLoginLimits } from '../../api/login-limits';
import { loadConfig } from '../../infra/config';
import { expectError, startTestApi, TestApi, TestResponse } from '../support/api';

let api: TestApi;
/** The same stack with a small per-account budget and a short slowdown step, for distributed guessing. */
let guarded: TestApi;
const base = loadConfig(process.env);
const GUARDED = { maxFailuresPerAccount: 20, slowdownAfterFailures: 5, slowdownStepMs: 400, slowdownMaxMs: 1_200 };

beforeAll(async () => {
  [api, guarded] = await Promise.all([
    startTestApi({
      api: { ...base.api, trustedProxyHops: 1 },
      auth: { ...base.auth, maxFailuresPerAddress: 12, refreshesPerAddressPerMinute: 3 },
    }),
    startTestApi({ api: { ...base.api, trustedProxyHops: 1 }, auth: { ...base.auth, ...GUARDED } }),
  ]);
});
afterAll(() => Promise.all([api?.close(), guarded?.close()]));

/** A fresh documentation-range address per call: counters start from zero. */
let nextHost = 1;
const address = () => `203.0.113.${nextHost++}`;

const login = (email: string, password: string, from: string, on: TestApi = api) =>
  on.request('/api/v1/auth/login', { method: 'POST', json: { email, password }, headers: { 'X-Forwarded-For': from } });
const statuses = (answers: TestResponse[]) => answers.map((a) => a.status).sort();

/**
 * A tenant whose admin signs in from an address of its own: the shared helper signs in from
 * 127.0.0.1, whose counter every test file of the run feeds.
 */
async function createTenant(on: TestApi = api) {
  const suffix = randomUUID().slice(0, 8);
  const email = `admin-${suffix}@limits-${suffix}.example.com`;
  const password = `pw-${randomUUID()}`;
  const t = await provisionTenant(on.deps.db, { name: `Limits ${suffix}`, plan: 'enterprise', adminEmail: email, adminPassword: password });
  const res = await on.request('/api/v1/auth/login', { method: 'POST', json: { email, password }, headers: { 'X-Forwarded-For': address() } });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${res.text}`);
  return { tenantId: t.tenant_id, email, password, refreshToken: res.body.refresh_token as string };
}

describe('login limits', () => {
  it('checks at most 10 of 40 concurrent wrong passwords for one email from one address; the rest are refused before any check', async () => {
    const t = await createTenant(api);
    const from = address();
    const answers = await Promise.all(Array.from({ length: 40 }, () => login(t.email, 'wrong-password-123', from)));
    expect(statuses(answers)).toEqual([...Array(10).fill(401), ...Array(30).fill(429)]);
    for (const refused of answers.filter((a) => a.status === 429)) {
      expectError(refused, 429, 'RATE_LIMITED');
      expect(refused.body.detail).toMatch(/this email from this address/);
    }
    // The guessing address is refused for this account, even with the right password...
    expectError(await login(t.email, t.password, from), 429, 'RATE_LIMITED');
    // ...but the owner, from an address that has not been guessing, signs in: no lockout of the account.
    expect((await login(t.email, t.password, address())).status).toBe(200);
  });

  it("bounds guessing from many addresses per account, slowing then refusing new addresses, never the owner's known-good address", async () => {
    const t = await createTenant(guarded);
    // The owner's usual address: it signed in before the attack.
    const usual = address();
    expect((await login(t.email, t.password, usual, guarded)).status).toBe(200);
    // 12 addresses, 2 wrong passwords each: 24 failures, past the account's budget of 20.
    const guesses = await Promise.all(
      Array.from({ length: 12 }, () => address()).flatMap((from) => [login(t.email, 'wrong-1', from, guarded), login(t.email, 'wrong-2', from, guarded)]),
    );
    const refusedAccount = guesses.filter((a) => a.status === 429);
    expect({ checked: guesses.filter((a) => a.status === 401).length, refused: refusedAccount.length }).toEqual({ checked: 20, refused: 4 });
    for (const refused of refusedAccount) expect(refused.body.detail).toMatch(/many addresses/);
    // An address the account never signed in from is refused while the account is over its budget.
    const fresh = await login(t.email, t.password, address(), guarded);
    expectError(fresh, 429, 'RATE_LIMITED');
    expect(fresh.body.detail).toMatch(/an address you signed in from before/);
    // The owner's known-good address is neither refused nor slowed (the wait the limits ask for, read directly).
    const limits = createLoginLimits(guarded.deps.db, guarded.deps.config.auth);
    const known = await limits.beginLogin(t.email, usual);
    expect({ decision: known.decision, delayMs: known.delayMs }).toEqual({ decision: { allowed: true }, delayMs: 0 });
    await known.notChecked();
    expect((await login(t.email, t.password, usual, guarded)).status).toBe(200);
  });

  it('slows attempts from addresses that are not known-good once the account has failed past its threshold', async () => {
    const t = await createTenant(guarded);
    // 5 failures from 5 addresses: the threshold, no wait yet.
    for (let i = 0; i < GUARDED.slowdownAfterFailures; i += 1) expect((await login(t.email, 'wrong', address(), guarded)).status).toBe(401);
    // The next failure's check waits one step; the one after, two (the right password too, from a new address).
    const timed = async (password: string) => {
      const started = Date.now();
      const res = await login(t.email, password, address(), guarded);
      return { status: res.status, ms: Date.now() - started };
    };
    const sixth = await timed('wrong');
    expect(sixth.status).toBe(401);
    expect(sixth.ms).toBeGreaterThanOrEqual(GUARDED.slowdownStepMs - 20);
    const owner = await timed(t.password);
    expect(owner.status).toBe(200);
    expect(owner.ms).toBeGreaterThanOrEqual(2 * GUARDED.slowdownStepMs - 20);
  });

  it('counts per client address across emails, refunds a success, and trusts only the hop our proxy wrote', async () => {
    const t = await createTenant(api);
    const from = address();
    // A success does not count: the address still has its 12 attempts afterwards.
    expect((await login(t.email, t.password, from)).status).toBe(200);
    const wrong = await Promise.all(Array.from({ length: 15 }, (_, i) => login(`nobody-${i}-${randomUUID()}@example.com`, 'wrong-password-123', from)));
    expect(statuses(wrong)).toEqual([...Array(12).fill(401), ...Array(3).fill(429)]);
    expect(wrong.find((a) => a.status === 429)!.body.detail).toMatch(/this address/);
    // A forged left-hand entry changes nothing: the client address is the right-most one.
    expectError(await login(t.email, t.password, `10.9.8.7, ${from}`), 429, 'RATE_LIMITED');
    // Another address is not affected.
    expect((await login(t.email, t.password, address())).status).toBe(200);
  });

  it('counts refreshes per client address', async () => {
    const t = await createTenant(api);
    const from = address();
    let token = t.refreshToken;
    for (let i = 0; i < 3; i += 1) {
      const res = await api.request('/api/v1/auth/refresh', { method: 'POST', json: { refresh_token: token }, headers: { 'X-Forwarded-For': from } });
      expect(res.status).toBe(200);
      token = res.body.refresh_token;
    }
    const refused = await api.request('/api/v1/auth/refresh', { method: 'POST', json: { refresh_token: token }, headers: { 'X-Forwarded-For': from } });
    expectError(refused, 429, 'RATE_LIMITED');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // The token was not spent by the refused call: from another address it still rotates.
    expect((await api.request('/api/v1/auth/refresh', { method: 'POST', json: { refresh_token: token }, headers: { 'X-Forwarded-For': address() } })).status).toBe(200);
  });
});

describe('X-RateLimit-* on answers no tenant budget counted', () => {
  /** The answer's figures, its reset within the window from now. */
  const expectFigures = (r: TestResponse, expected: { status: number; limit: string; remaining: string; windowSeconds: number }) => {
    const now = Date.now() / 1000;
    const reset = Number(r.headers.get('x-ratelimit-reset'));
    expect({
      status: r.status,
      limit: r.headers.get('x-ratelimit-limit'),
      remaining: r.headers.get('x-ratelimit-remaining'),
      resetInWindow: reset > now - 1 && reset <= now + expected.windowSeconds + 1,
    }).toEqual({
      status: expected.status,
      limit: expected.limit,
      remaining: expected.remaining,
      resetInWindow: true,
    });
  };
  const LOGIN_WINDOW = 15 * 60;

  it("401s, unknown paths, 405s, docs, probes and logins carry the address's login budget; refreshes their refresh budget", async () => {
    const from = address();
    const at = (path: string, init: { method?: string; json?: unknown } = {}) => api.request(path, { ...init, headers: { 'X-Forwarded-For': from } });
    const untouched = [
      await at('/api/v1/assets'),
      await at('/api/v1/no-such-resource'),
      await at('/api/v1/auth/login', { method: 'DELETE' }),
      await at('/api/v1/openapi.json'),
      await at('/api/v1/docs'),
      await at('/livez'),
    ];
    expect(untouched.map((r) => r.status)).toEqual([401, 404, 405, 200, 200, 200]);
    for (const r of untouched) expectFigures(r, { status: r.status, limit: '12', remaining: '12', windowSeconds: LOGIN_WINDOW });

    // A failed login spends one of the address's attempts: its answer and the next ones say so.
    const failed = await login(`nobody-${randomUUID()}@example.com`, 'wrong-password-123', from);
    expectFigures(failed, { status: 401, limit: '12', remaining: '11', windowSeconds: LOGIN_WINDOW });
    expectFigures(await at('/api/v1/no-such-resource'), { status: 404, limit: '12', remaining: '11', windowSeconds: LOGIN_WINDOW });

    // A refresh is counted in the refresh budget of the address (3 per minute here), refused or not.
    const refreshed = await at('/api/v1/auth/refresh', { method: 'POST', json: { refresh_token: `rt_${randomUUID()}` } });
    expectFigures(refreshed, { status: 401, limit: '3', remaining: '2', windowSeconds: 60 });
  });
});

describe('password checks behind a bounded queue', () => {
  let small: TestApi;
  beforeAll(async () => {
    small = await startTestApi({ api: { ...base.api, trustedProxyHops: 1 }, auth: { ...base.auth, passwordChecksInFlight: 1, passwordChecksQueued: 1 } });
  });
  afterAll(() => small?.close());

  it('answers a flood beyond the queue 429 at once, never a 5xx, and serves again afterwards', async () => {
    const flood = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        small.request('/api/v1/auth/login', {
          method: 'POST',
          json: { email: `flood-${i}-${randomUUID()}@example.com`, password: 'wrong-password-123' },
          headers: { 'X-Forwarded-For': address() },
        }),
      ),
    );
    expect(flood.every((a) => a.status === 401 || a.status === 429)).toBe(true);
    const capacity = flood.filter((a) => a.status === 429);
    expect(capacity.length).toBeGreaterThan(0);
    expect(capacity[0].body.detail).toMatch(/password checks in progress/);
    expect(flood.filter((a) => a.status === 401).length).toBeGreaterThan(0);
    const t = await createTenant(small);
    expect((await small.request('/api/v1/auth/login', { method: 'POST', json: { email: t.email, password: t.password }, headers: { 'X-Forwarded-For': address() } })).status).toBe(
      200,
    );
  });
});
