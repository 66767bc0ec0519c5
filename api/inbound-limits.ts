/**
 * Limits of the anonymous provider callbacks (inbound e-mail, the WhatsApp webhook), which anyone
 * can call: a per-client-address budget per minute counted in PostgreSQL (rate-limiter-flexible,
 * shared by every API process, like the login limits), and per process at most
 * `inFlightPerAccount` requests of one receiving account and `inFlight` in all, so parallel
 * bodies cannot hold the process's memory. Every refusal is a 429 with Retry-After.
 */
import { createHash } from 'node:crypto';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { Db } from '../db/knex';
import { AppError } from '../domain/errors';
import type { InboundLimitsConfig } from '../infra/config';
import { InFlightCaps } from './in-flight-caps';

export interface InboundLimits {
  /** Counts one request of the client address: 429 past its budget. */
  countAddress(address: string): Promise<void>;
  /** A slot for one request of the receiving account (the whole callback when it is not known before the body): 429 when full. */
  enter(account: string | null): () => void;
}

/** One in-flight request takes about this long: the wait a refused sender is told. */
const RETRY_AFTER_SECONDS = 1;

const limited = (detail: string, retryAfter: number, scope: string) => new AppError('RATE_LIMITED', detail, { retry_after: retryAfter, scope });

export function createInboundLimits(db: Db, config: InboundLimitsConfig): InboundLimits {
  const perAddress = new RateLimiterPostgres({
    storeClient: db,
    storeType: 'knex',
    tableName: 'rate_limits',
    tableCreated: true,
    keyPrefix: 'inbound-addr',
    points: config.maxPerAddressPerMinute,
    duration: 60,
  });
  const caps = new InFlightCaps(config.inFlightPerAccount, config.inFlight);
  // A proxy chain could make the address anything: the key stays short.
  const addressKey = (address: string) => (address.length <= 64 ? address : createHash('sha256').update(address).digest('base64url'));

  return {
    async countAddress(address) {
      try {
        await perAddress.consume(addressKey(address));
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection; // the store failed: a 5xx is honest
        throw limited('too many inbound requests from this address', Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)), 'address');
      }
    },
    enter(account) {
      const slot = caps.enter(account);
      if ('refused' in slot) {
        throw slot.refused === 'key'
          ? limited('too many inbound requests for this receiver at once', RETRY_AFTER_SECONDS, 'account')
          : limited('too many inbound requests at once', RETRY_AFTER_SECONDS, 'capacity');
      }
      return slot.release;
    },
  };
}
