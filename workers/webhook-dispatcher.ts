/**
 * The outbox dispatcher loop, run by every worker process beside its Temporal workers.
 *
 * Why a worker-side loop rather than a dispatcher workflow: dispatching holds no state of its own
 * (the outbox row is the durable state, and the derived workflow ids make each start idempotent),
 * so a workflow would add nothing to durability while its timer loop would cost history events
 * and continue-as-new churn even when idle, and add a timer's and two tasks' latency to every
 * event. The loop sleeps on PostgreSQL LISTEN: an insert into the outbox NOTIFYs at commit
 * (trigger of migration 20261123000500), so an event is dispatched within milliseconds. A slow
 * fallback poll covers a lost listener connection. Several workers run it side by side: FOR UPDATE
 * SKIP LOCKED gives each batch to one of them, and a worker killed mid-batch only releases its
 * rows to the others. The API never sleeps or polls (DESIGN.md); this runs in the worker.
 */
import type { Client } from '@temporalio/client';
import { Client as PgClient } from 'pg';
import type { Logger } from 'pino';
import { Db } from '../db/knex';
import type { StartToAttemptTimes } from '../infra/start-to-attempt';
import { TemporalGateway } from '../infra/temporal';
import { DEFAULT_DISPATCH_BATCH, describeError, dispatchOutboxBatch, msUntilNextDue } from '../orchestration/webhook-dispatch';

export const OUTBOX_CHANNEL = 'outbox_events';

export interface WebhookDispatcherOptions {
  db: Db;
  databaseUrl: string;
  temporal: TemporalGateway;
  /**
   * A client on the NativeConnection of this process's webhook worker: deliveries are started
   * eagerly (their first workflow task comes back with the start). Without it, `temporal`'s
   * client starts them the ordinary way.
   */
  eagerClient?: Client;
  /** This process's start-to-attempt times, shared with its webhook activities (infra/start-to-attempt.ts). */
  startToAttempt?: StartToAttemptTimes;
  log: Logger;
  batchSize?: number;
  /** Poll interval when no notification arrives (a missed NOTIFY is found within this time). */
  fallbackPollMs?: number;
}

export interface WebhookDispatcher {
  /** Resolves when the loop and the listener have stopped. */
  stop(): Promise<void>;
}

const MAX_ERROR_BACKOFF_MS = 30_000;
const LISTEN_RETRY_MS = 2_000;

export function startWebhookDispatcher(options: WebhookDispatcherOptions): WebhookDispatcher {
  const { db, temporal, log } = options;
  const batchSize = options.batchSize ?? DEFAULT_DISPATCH_BATCH;
  const fallbackPollMs = options.fallbackPollMs ?? 2_000;
  const wake = new Wakeup();
  let stopped = false;

  const listener = new OutboxListener(options.databaseUrl, log, () => wake.signal());
  listener.start();

  const loop = (async () => {
    let backoffMs = 0;
    while (!stopped) {
      try {
        wake.clear(); // a notification arriving during the batch re-arms the wake-up below
        const client = options.eagerClient ?? (await temporal.client());
        const result = await dispatchOutboxBatch(db, client, { batchSize, eagerStart: options.eagerClient !== undefined, startToAttempt: options.startToAttempt });
        if (result.deliveries > 0) log.debug(result, 'dispatched outbox events');
        if (result.retrying > 0 || result.parked > 0)
          log.warn(result, 'some outbox events failed: each is retried on its own, or parked after repeated failures (GET /internal/outbox)');
        backoffMs = 0;
        if (result.events === batchSize || result.leftOver > 0) continue; // more may be waiting: no pause
      } catch (err) {
        backoffMs = Math.min(MAX_ERROR_BACKOFF_MS, backoffMs === 0 ? 500 : backoffMs * 2);
        log.warn({ err: describeError(err), retryInMs: backoffMs }, 'outbox dispatch failed as a whole (database or Temporal unreachable); the events stay in the outbox');
        await wake.wait(backoffMs, () => stopped, { ignoreSignals: true });
        continue;
      }
      // No NOTIFY comes when a dead dispatcher's claim or a retry falls due: wake then, not at the next poll.
      const untilDue = await msUntilNextDue(db).catch(() => null);
      await wake.wait(nextWakeMs(fallbackPollMs, untilDue), () => stopped);
    }
  })();

  return {
    async stop() {
      stopped = true;
      wake.signal();
      await loop;
      await listener.stop();
    },
  };
}

/** Margin after an event's due time, so the claim query's `now()` has passed it. */
const DUE_MARGIN_MS = 20;

/** How long the loop sleeps when idle: until the next event falls due (`untilDueMs`), at most `fallbackPollMs`. */
export function nextWakeMs(fallbackPollMs: number, untilDueMs: number | null): number {
  return untilDueMs === null ? fallbackPollMs : Math.min(fallbackPollMs, Math.max(0, untilDueMs) + DUE_MARGIN_MS);
}

/** A wake-up flag: signals that arrive while nobody waits are kept for the next wait. */
class Wakeup {
  private pending = false;
  private release: (() => void) | null = null;

  signal(): void {
    this.pending = true;
    this.release?.();
  }

  clear(): void {
    this.pending = false;
  }

  /** Waits for a signal (unless `ignoreSignals`), `ms`, or stop, whichever comes first. */
  wait(ms: number, isStopped: () => boolean, opts: { ignoreSignals?: boolean } = {}): Promise<void> {
    if (isStopped() || (this.pending && !opts.ignoreSignals)) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.release = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.release = opts.ignoreSignals ? () => isStopped() && done() : done;
    });
  }
}

/** A dedicated connection LISTENing on the outbox channel, reconnected after any failure. */
class OutboxListener {
  private client: PgClient | null = null;
  private stopped = false;
  private retry: NodeJS.Timeout | null = null;

  constructor(
    private readonly databaseUrl: string,
    private readonly log: Logger,
    private readonly onNotify: () => void,
  ) {}

  start(): void {
    void this.connect();
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new PgClient({ connectionString: this.databaseUrl });
    client.on('notification', () => this.onNotify());
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client, new Error('connection ended')));
    try {
      await client.connect();
      await client.query(`listen ${OUTBOX_CHANNEL}`);
      if (this.stopped) {
        await client.end().catch(() => undefined);
        return;
      }
      this.client = client;
      this.onNotify(); // events committed while we were not listening
    } catch (err) {
      this.lost(client, err as Error);
    }
  }

  private lost(client: PgClient, err: Error): void {
    if (this.stopped || (this.client !== null && this.client !== client)) return;
    this.client = null;
    client.removeAllListeners('end');
    client.end().catch(() => undefined);
    if (this.retry) return;
    this.log.warn({ err: err.message }, 'outbox listener lost; polling until it reconnects');
    this.retry = setTimeout(() => {
      this.retry = null;
      void this.connect();
    }, LISTEN_RETRY_MS);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    const client = this.client;
    this.client = null;
    if (client) {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
    }
  }
}
