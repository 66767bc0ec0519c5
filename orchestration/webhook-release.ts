/**
 * The releaser's unit of work: which parked webhook deliveries go now (domain/webhooks/parking.ts)
 * and the signals that wake their workflows. One releaser at a time across the worker processes
 * (a transaction-scoped advisory lock; the others skip that pass), the choice and the marking in one
 * short transaction, the signals after it with no transaction open.
 *
 * What a pass costs does not grow with a backlog: one step per endpoint with parked deliveries, its
 * counts read up to the window, and at most MAX_RELEASES_PER_PASS signals.
 */
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import type { Knex } from 'knex';
import type { Db } from '../db/knex';
import { claimReleases, forgetParked, parkedEndpoints, type ParkedEndpointRow, type Release } from '../db/queries/webhook-parking';
import { DEFAULT_BREAKER } from '../domain/webhooks/circuit-breaker';
import { MAX_IN_FLIGHT_PER_WEBHOOK, releasable, type ReleaseSettings } from '../domain/webhooks/parking';
import type { OutboundConfig } from '../infra/config';
import { workflowIds } from '../infra/workflow-ids';
import { deliveryReleasedSignal } from '../workflows/webhook-delivery';
import { mapSettled } from './concurrency';
import { fairShares } from './webhook-dispatch';

/** Signals of one pass (each wakes one delivery): what one pass may ask of Temporal. */
export const MAX_RELEASES_PER_PASS = 500;
/**
 * A released delivery that has not attempted within this is released again (its signal was lost,
 * or its worker died): longer than a released attempt waits for a lease or its tenant's share.
 */
export const RELEASE_STALE_MS = 120_000;
const SIGNAL_CONCURRENCY = 32;
const SIGNAL_DEADLINE_MS = 10_000;
/** Any constant: the key of the advisory lock that makes one releaser run at a time. */
const RELEASER_LOCK = 0x77686b72;

export interface ReleaserSettings extends ReleaseSettings {
  /** Released and not yet attempted deliveries per tenant: its share of a worker's attempts. */
  tenantWindow: number;
}

/** The releaser's settings from the configuration: the worker's loop and the operator's release use the same. */
export function releaserSettings(outbound: OutboundConfig): ReleaserSettings {
  return {
    // Parked deliveries go out at their endpoint's pace (16 in flight) within their tenant's share of attempts.
    endpointWindow: MAX_IN_FLIGHT_PER_WEBHOOK,
    tenantWindow: outbound.webhookAttemptsPerTenant,
    breaker: { ...DEFAULT_BREAKER, failureThreshold: outbound.breakerFailureThreshold, openMs: outbound.breakerOpenMs },
  };
}

/** One endpoint: the pass looks at its parked deliveries only. */
export interface ReleaseEndpoint {
  tenantId: string;
  webhookId: string;
}

/** An operator's pass over one endpoint, with what must happen under the releaser's lock before it chooses (closing the circuit). */
export interface OperatorRelease extends ReleaseEndpoint {
  first?: (tx: Knex.Transaction) => Promise<void>;
}

export interface ReleasePass {
  /** False when another process held the releaser's lock: nothing was done. */
  ran: boolean;
  released: Release[];
  /** Releases whose workflow no longer runs: their rows were removed. */
  gone: number;
  /** Signals that failed otherwise: released again once stale. */
  failed: number;
}

/**
 * How many each endpoint releases: its own allowance, within its tenant's window (shared fairly
 * between the tenant's endpoints), within the pass's total (shared fairly between the tenants).
 */
export function planReleases(
  endpoints: readonly ParkedEndpointRow[],
  now: Date,
  settings: ReleaserSettings,
  maxPerPass = MAX_RELEASES_PER_PASS,
): Array<{ tenantId: string; webhookId: string; quota: number }> {
  const byTenant = new Map<string, ParkedEndpointRow[]>();
  for (const endpoint of endpoints) {
    const own = byTenant.get(endpoint.tenantId);
    if (own) own.push(endpoint);
    else byTenant.set(endpoint.tenantId, [endpoint]);
  }
  const perTenant = [...byTenant].map(([tenantId, own]) => {
    // Deliveries of a webhook that no longer receives only end, but their attempts take slots of
    // the tenant's share like any (a thousand at once would be refused and retried for a minute).
    const inFlight = own.reduce((sum, e) => sum + e.released, 0);
    const quotas = fairShares(
      own.map((endpoint) => ({ endpoint, n: releasable(endpoint, now, settings) })),
      Math.max(0, settings.tenantWindow - inFlight),
    );
    return { tenantId, quotas, n: quotas.reduce((sum, q) => sum + q.quota, 0) };
  });
  return fairShares(perTenant, maxPerPass).flatMap((tenant) =>
    // The tenant's share of the pass, handed to its endpoints in order.
    fairShares(
      tenant.quotas.map((q) => ({ ...q, n: q.quota })),
      tenant.quota,
    ).map((q) => ({ tenantId: tenant.tenantId, webhookId: q.endpoint.webhookId, quota: q.quota })),
  );
}

/**
 * One pass: choose and mark the releases, then signal each delivery's workflow with its ticket.
 * The worker's loop passes over every endpoint and skips a pass another process runs; the
 * operator's release (`only` one endpoint) waits for a running pass to end (a short transaction),
 * so its pass always runs.
 */
export async function releaseParkedDeliveries(db: Db, client: Client, settings: ReleaserSettings, only?: OperatorRelease): Promise<ReleasePass> {
  const claimed = await db.transaction(async (tx) => {
    if (only) {
      await tx.raw('select pg_advisory_xact_lock(?)', [RELEASER_LOCK]);
      // Under the releaser's lock, so no other pass can take these deliveries between the two.
      await only.first?.(tx);
    } else {
      const { rows } = await tx.raw<{ rows: Array<{ locked: boolean }> }>('select pg_try_advisory_xact_lock(?) as locked', [RELEASER_LOCK]);
      if (!rows[0]?.locked) return null;
    }
    const endpoints = await parkedEndpoints(tx, RELEASE_STALE_MS, Math.max(settings.endpointWindow, MAX_RELEASES_PER_PASS), only);
    // This process's clock, like the circuit's times (written by the workers) and its admissions.
    return claimReleases(tx, planReleases(endpoints, new Date(), settings), RELEASE_STALE_MS);
  });
  if (claimed === null) return { ran: false, released: [], gone: 0, failed: 0 };

  const signalled = await mapSettled(claimed, SIGNAL_CONCURRENCY, (release) =>
    client.withDeadline(Date.now() + SIGNAL_DEADLINE_MS, () =>
      client.workflow.getHandle(workflowIds.webhookDelivery(release.tenantId, release.deliveryId)).signal(deliveryReleasedSignal, release.ticket),
    ),
  );
  let gone = 0;
  let failed = 0;
  for (const [index, outcome] of signalled.entries()) {
    if (outcome.status === 'fulfilled') continue;
    if (outcome.reason instanceof WorkflowNotFoundError) {
      gone += 1;
      await forgetParked(db, claimed[index].tenantId, claimed[index].deliveryId);
    } else failed += 1;
  }
  return { ran: true, released: claimed, gone, failed };
}
