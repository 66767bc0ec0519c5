/**
 * The releaser loop of parked webhook deliveries (orchestration/webhook-release.ts), run by every
 * worker process beside its outbox dispatcher; an advisory lock lets one pass run at a time. It
 * polls: a pass is a few indexed reads, and while deliveries are going out it comes back sooner,
 * so a recovered endpoint gets its backlog at the pace its window refills. Parked deliveries
 * themselves never wake: this loop is what a dead endpoint's backlog costs, whatever its size.
 */
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import type { Db } from '../db/knex';
import type { TemporalGateway } from '../infra/temporal';
import { describeError } from '../orchestration/webhook-dispatch';
import { releaseParkedDeliveries, type ReleaserSettings } from '../orchestration/webhook-release';

/** Between passes when nothing went out: how late a probe may go after its circuit allows one. */
export const RELEASE_IDLE_MS = 1_000;
/** Between passes while deliveries go out: how soon a window that refilled is used again. */
export const RELEASE_BUSY_MS = 200;
const MAX_ERROR_BACKOFF_MS = 30_000;

export interface WebhookReleaserOptions {
  db: Db;
  temporal: TemporalGateway;
  /** A client for the signals; `temporal`'s by default. */
  client?: Client;
  settings: ReleaserSettings;
  log: Logger;
}

export interface WebhookReleaser {
  /** Resolves when the loop has stopped. */
  stop(): Promise<void>;
}

export function startWebhookReleaser(options: WebhookReleaserOptions): WebhookReleaser {
  const { db, temporal, settings, log } = options;
  let stopped = false;
  let wake: (() => void) | null = null;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = null;
        resolve();
      }
      wake = done;
    });

  const loop = (async () => {
    let backoffMs = 0;
    while (!stopped) {
      let nextMs = RELEASE_IDLE_MS;
      try {
        const pass = await releaseParkedDeliveries(db, options.client ?? (await temporal.client()), settings);
        if (pass.released.length > 0) log.debug({ released: pass.released.length, gone: pass.gone, failed: pass.failed }, 'released parked webhook deliveries');
        if (pass.failed > 0) log.warn({ failed: pass.failed }, 'some parked webhook deliveries could not be signalled; they are released again later');
        if (pass.released.length > 0) nextMs = RELEASE_BUSY_MS;
        backoffMs = 0;
      } catch (err) {
        backoffMs = Math.min(MAX_ERROR_BACKOFF_MS, backoffMs === 0 ? 500 : backoffMs * 2);
        nextMs = backoffMs;
        log.warn({ err: describeError(err), retryInMs: backoffMs }, 'releasing parked webhook deliveries failed (database or Temporal unreachable); they stay parked');
      }
      if (!stopped) await pause(nextMs);
    }
  })();

  return {
    async stop() {
      stopped = true;
      wake?.();
      await loop;
    },
  };
}
