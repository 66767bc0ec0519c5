/**
 * Limits of the anonymous auth routes (issue 17), counted in PostgreSQL so every API process
 * shares them (rate-limiter-flexible, one atomic upsert per count):
 *
 * - a login attempt is counted *before* its password is checked, once per email and once per
 *   client address, and refunded when it succeeds or when its password was never checked (429
 *   for capacity); so N concurrent guesses for one email get at
 *   most `maxFailuresPerEmail` password checks, not 10 + N;
 * - refreshes are counted per client address (a refresh token is unguessable; the limit bounds
 *   the database work a flood can cause);
 * - password checks (scrypt, about 50 ms of a libuv thread each) run behind a bounded queue: a
 *   flood beyond it is answered 429 at once instead of starving every other request.
 */
import { createHash } from 'node:crypto';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { Db } from '../db/knex';
import type { AuthLimitsConfig } from '../infra/config';
import type { RateFigures } from './rate-limiter';
import { BoundedGate } from '../infra/bounded-gate';

export const LOGIN_WINDOW_SECONDS = 15 * 60;
const REFRESH_WINDOW_SECONDS = 60;

export type LimitDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number; scope: 'email' | 'address' | 'capacity' };

export interface LoginAttempt {
  readonly decision: LimitDecision;
  /** The password was right: the attempt does not count against the email or the address. */
  succeeded(): Promise<void>;
  /**
   * The password was never checked (the queue of checks was full): the attempt is given back to
   * the email and the address, so a flood of other logins cannot spend a user's attempts.
   */
  notChecked(): Promise<void>;
}

export interface LoginLimits {
  /** Counts one attempt for the email and the address; refused when either has no attempt left. */
  beginLogin(email: string, address: string): Promise<LoginAttempt>;
  /** Counts one refresh for the address; `figures` are the address's refresh budget after it. */
  countRefresh(address: string): Promise<{ decision: LimitDecision; figures: RateFigures }>;
  /**
   * The address's login budget as it stands (nothing counted): the X-RateLimit-* figures of the
   * answers no other budget counted (login, 401s, unknown paths, docs, probes).
   */
  addressFigures(address: string): Promise<RateFigures>;
  /** Runs a password check when the queue has room; `null` when it is full (answer 429). */
  checkPassword<T>(check: () => Promise<T>): Promise<T | null>;
  /**
   * Clears the account's count of failed logins (the operator's unlock, cli/): its next attempts,
   * from any address, have the account's whole budget again. The addresses' own counts stay: an
   * address that was guessing stays limited.
   */
  clearAccount(email: string): Promise<void>;
}

export function createLoginLimits(db: Db, config: AuthLimitsConfig): LoginLimits {
  const store = { storeClient: db, storeType: 'knex', tableName: 'rate_limits', tableCreated: true } as const;
  const perEmail = new RateLimiterPostgres({ ...store, keyPrefix: 'login', points: config.maxFailuresPerEmail, duration: LOGIN_WINDOW_SECONDS });
  const perAddress = new RateLimiterPostgres({ ...store, keyPrefix: 'login-addr', points: config.maxFailuresPerAddress, duration: LOGIN_WINDOW_SECONDS });
  const refreshes = new RateLimiterPostgres({ ...store, keyPrefix: 'refresh-addr', points: config.refreshesPerAddressPerMinute, duration: REFRESH_WINDOW_SECONDS });
  const gate = new BoundedGate(config.passwordChecksInFlight, config.passwordChecksQueued);
  // Hashed: rate_limits keys are bounded (an email may be 254 characters) and hold no address.
  const emailKey = (email: string) => createHash('sha256').update(email.trim().toLowerCase()).digest('base64url');

  // Client addresses are short, but a proxy chain could make them anything: bound them too.
  const addressKey = (address: string) => (address.length <= 64 ? address : createHash('sha256').update(address).digest('base64url'));

  async function take(limiter: RateLimiterPostgres, key: string, scope: 'email' | 'address'): Promise<LimitDecision> {
    return (await counted(limiter, key, scope)).decision;
  }

  async function counted(limiter: RateLimiterPostgres, key: string, scope: 'email' | 'address'): Promise<{ decision: LimitDecision; figures: RateFigures }> {
    try {
      return { decision: { allowed: true }, figures: figuresOf(limiter, await limiter.consume(key)) };
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection; // the store failed: a 5xx is honest
      return { decision: { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)), scope }, figures: figuresOf(limiter, rejection) };
    }
  }

  return {
    async beginLogin(email, rawAddress) {
      const address = addressKey(rawAddress);
      const noop = { succeeded: async () => undefined, notChecked: async () => undefined };
      const byEmail = await take(perEmail, emailKey(email), 'email');
      if (!byEmail.allowed) return { decision: byEmail, ...noop };
      const byAddress = await take(perAddress, address, 'address');
      if (!byAddress.allowed) {
        await perEmail.reward(emailKey(email), 1); // not checked: this attempt costs the email nothing
        return { decision: byAddress, ...noop };
      }
      return {
        decision: { allowed: true },
        async succeeded() {
          // The right password clears the email's failures (a user who mistyped a few times is not
          // held near the limit) and refunds the address its one attempt.
          await Promise.all([perEmail.delete(emailKey(email)), perAddress.reward(address, 1)]);
        },
        async notChecked() {
          await Promise.all([perEmail.reward(emailKey(email), 1), perAddress.reward(address, 1)]);
        },
      };
    },
    countRefresh: (address) => counted(refreshes, addressKey(address), 'address'),
    addressFigures: async (address) => figuresOf(perAddress, await perAddress.get(addressKey(address))),
    checkPassword: (check) => gate.run(check),
    async clearAccount(email) {
      await perEmail.delete(emailKey(email));
    },
  };
}

/** A window's figures from the store's answer (null: nothing counted in a window yet). */
function figuresOf(limiter: RateLimiterPostgres, res: RateLimiterRes | null): RateFigures {
  const live = res !== null && res.msBeforeNext > 0;
  return {
    limit: limiter.points,
    remaining: live ? Math.max(0, limiter.points - res.consumedPoints) : limiter.points,
    resetEpochSeconds: Math.ceil((Date.now() + (live ? res.msBeforeNext : limiter.duration * 1000)) / 1000),
  };
}
