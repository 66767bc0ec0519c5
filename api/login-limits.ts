/**
 * Limits of the anonymous auth routes, counted in PostgreSQL so every API process shares them
 * (rate-limiter-flexible, one atomic upsert per count). Logins follow OWASP's guidance against
 * online guessing without account lockout (its Authentication cheat sheet: lockout lets anyone keep
 * a user out; "Slow Down Online Guessing Attacks with Device Cookies") and NIST SP 800-63B 5.2.2
 * (at most 100 failed attempts on an account; delays that grow as an account nears its limit):
 *
 * - per (account, client address): `maxFailuresPerAccountAddress` failures in 15 minutes, then that
 *   address is refused for that account only. A guesser locks out itself, never the owner
 *   elsewhere;
 * - per client address, across accounts: `maxFailuresPerAddress` (password spraying from one place);
 * - per account, across addresses (distributed guessing): past `slowdownAfterFailures` failures in
 *   15 minutes, each attempt from an address that is not known-good waits before its check
 *   (`slowdownStepMs` per failure beyond, at most `slowdownMaxMs`), and past
 *   `maxFailuresPerAccount` such an address is refused. A known-good address (one the account
 *   signed in from in the last 30 days) is never slowed or refused by the account's count, so
 *   guessing from elsewhere cannot keep the owner out of their usual places.
 *
 * Every attempt is counted *before* its password is checked, and refunded when it succeeds or when
 * its password was never checked (429 for capacity); so N concurrent guesses get at most the
 * budget's checks, not budget + N. A success refunds one failure of the account (it does not wipe
 * the account's count: an owner's login must not reset the count of a distributed attack). Refreshes
 * are counted per client address (a refresh token is unguessable; the limit bounds the database
 * work a flood can cause). Password checks (scrypt) run behind a bounded queue: a flood beyond it is
 * answered 429 at once instead of starving every other request.
 */
import { createHash } from 'node:crypto';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { Db } from '../db/knex';
import type { AuthLimitsConfig } from '../infra/config';
import type { RateFigures } from './rate-limiter';
import { BoundedGate } from '../infra/bounded-gate';

export const LOGIN_WINDOW_SECONDS = 15 * 60;
const REFRESH_WINDOW_SECONDS = 60;
/** How long an address stays known-good for an account after a successful login from it. */
export const KNOWN_ADDRESS_SECONDS = 30 * 24 * 60 * 60;

export type LimitScope = 'account_address' | 'account' | 'address' | 'capacity';
export type LimitDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number; scope: LimitScope };

export interface LoginAttempt {
  readonly decision: LimitDecision;
  /** How long to wait before checking the password (the account's slowdown; 0 from a known-good address). */
  readonly delayMs: number;
  /** The password was right: the attempt is refunded and the address becomes known-good for the account. */
  succeeded(): Promise<void>;
  /**
   * The password was never checked (the queue of checks was full): the attempt is given back to
   * every budget, so a flood of other logins cannot spend a user's attempts.
   */
  notChecked(): Promise<void>;
}

export interface LoginLimits {
  /** Counts one attempt for the account and address, the address and the account; refused when one has no attempt left. */
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
   * Clears the account's count of failed logins across addresses (the operator's unlock, cli/):
   * its next attempts are neither slowed nor refused by that count again. The counts of each
   * (account, address) pair and of each address stay: an address that was guessing stays limited.
   */
  clearAccount(email: string): Promise<void>;
}

/** The wait before an attempt's check from an address that is not known-good, after `failures` failures of the account (this one included). */
export function slowdownMs(config: Pick<AuthLimitsConfig, 'slowdownAfterFailures' | 'slowdownStepMs' | 'slowdownMaxMs'>, failures: number): number {
  return Math.min(config.slowdownMaxMs, Math.max(0, failures - config.slowdownAfterFailures) * config.slowdownStepMs);
}

export function createLoginLimits(db: Db, config: AuthLimitsConfig): LoginLimits {
  const store = { storeClient: db, storeType: 'knex', tableName: 'rate_limits', tableCreated: true } as const;
  const window = { duration: LOGIN_WINDOW_SECONDS };
  const perAccountAddress = new RateLimiterPostgres({ ...store, ...window, keyPrefix: 'login-pair', points: config.maxFailuresPerAccountAddress });
  const perAddress = new RateLimiterPostgres({ ...store, ...window, keyPrefix: 'login-addr', points: config.maxFailuresPerAddress });
  const perAccount = new RateLimiterPostgres({ ...store, ...window, keyPrefix: 'login-account', points: config.maxFailuresPerAccount });
  const knownAddresses = new RateLimiterPostgres({ ...store, keyPrefix: 'login-known', points: 1, duration: KNOWN_ADDRESS_SECONDS });
  const refreshes = new RateLimiterPostgres({ ...store, keyPrefix: 'refresh-addr', points: config.refreshesPerAddressPerMinute, duration: REFRESH_WINDOW_SECONDS });
  const gate = new BoundedGate(config.passwordChecksInFlight, config.passwordChecksQueued);
  // Hashed: rate_limits keys are bounded (an email may be 254 characters) and hold no address.
  const hashed = (text: string) => createHash('sha256').update(text).digest('base64url');
  const accountKey = (email: string) => hashed(email.trim().toLowerCase());
  // Client addresses are short, but a proxy chain could make them anything: bound them too.
  const addressKey = (address: string) => (address.length <= 64 ? address : hashed(address));
  const pairKey = (email: string, address: string) => hashed(`${email.trim().toLowerCase()}\n${address}`);

  /** Counts one; the store's answer (its consumed points) whether or not the budget had room. */
  async function count(limiter: RateLimiterPostgres, key: string): Promise<{ allowed: boolean; res: RateLimiterRes }> {
    try {
      return { allowed: true, res: await limiter.consume(key) };
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection; // the store failed: a 5xx is honest
      return { allowed: false, res: rejection };
    }
  }
  const refused = (res: RateLimiterRes, scope: LimitScope): LimitDecision => ({ allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)), scope });
  const noop = { delayMs: 0, succeeded: async () => undefined, notChecked: async () => undefined };

  return {
    async beginLogin(email, rawAddress) {
      const address = addressKey(rawAddress);
      const pair = pairKey(email, address);
      const account = accountKey(email);
      const known = (await knownAddresses.get(pair)) !== null;
      const byPair = await count(perAccountAddress, pair);
      if (!byPair.allowed) return { decision: refused(byPair.res, 'account_address'), ...noop };
      const byAddress = await count(perAddress, address);
      if (!byAddress.allowed) {
        await perAccountAddress.reward(pair, 1); // not checked: this attempt costs the account nothing
        return { decision: refused(byAddress.res, 'address'), ...noop };
      }
      const byAccount = await count(perAccount, account);
      if (!byAccount.allowed && !known) {
        await Promise.all([perAccountAddress.reward(pair, 1), perAddress.reward(address, 1), perAccount.reward(account, 1)]);
        return { decision: refused(byAccount.res, 'account'), ...noop };
      }
      return {
        decision: { allowed: true },
        delayMs: known ? 0 : slowdownMs(config, byAccount.res.consumedPoints),
        async succeeded() {
          // The right password clears this address's failures for the account (a user who mistyped
          // a few times is not held near the limit), refunds its attempt, and marks it known-good.
          await Promise.all([perAccountAddress.delete(pair), perAddress.reward(address, 1), perAccount.reward(account, 1), knownAddresses.set(pair, 1, KNOWN_ADDRESS_SECONDS)]);
        },
        async notChecked() {
          await Promise.all([perAccountAddress.reward(pair, 1), perAddress.reward(address, 1), perAccount.reward(account, 1)]);
        },
      };
    },
    async countRefresh(address) {
      const { allowed, res } = await count(refreshes, addressKey(address));
      return { decision: allowed ? { allowed: true } : refused(res, 'address'), figures: figuresOf(refreshes, res) };
    },
    addressFigures: async (address) => figuresOf(perAddress, await perAddress.get(addressKey(address))),
    checkPassword: (check) => gate.run(check),
    async clearAccount(email) {
      await perAccount.delete(accountKey(email));
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
