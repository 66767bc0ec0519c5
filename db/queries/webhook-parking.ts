/**
 * Parked webhook deliveries (table webhook_parked_deliveries; the rules: domain/webhooks/parking.ts):
 * parked by the attempt activity of a delivery whose endpoint's circuit is open, released by the
 * releaser, removed when the delivery attempts or ends. Every query here is bounded by the
 * endpoint's window or the tenant's count, never by the size of a backlog, except the count of one
 * webhook's parked deliveries that GET of the webhook shows and the operator's listing.
 */
import type { Knex } from 'knex';
import { breakerOf, type BreakerRow } from './webhook-breakers';
import type { BreakerStateName } from '../../domain/webhooks/circuit-breaker';
import type { ParkedEndpoint } from '../../domain/webhooks/parking';
import type { Db, Queryable } from '../knex';
import type { TenantScope } from '../tenant-scope';

export interface ParkRequest {
  tenantId: string;
  webhookId: string;
  deliveryId: string;
  eventId: string;
  attempt: number;
  /** When the event was stored, to the millisecond: only used when the event row is gone (the release order reads the row's own time). */
  eventAt: Date;
}

export type Parking = { kind: 'parked'; ticket: string } | { kind: 'full' };

/**
 * Parks a delivery, unless its tenant already has `maxPerTenant` parked; a delivery parked again
 * (released, then deferred) keeps its place and gets a new ticket. A new parking takes its place
 * in the tenant's count and inserts its row in one statement: the count's row is locked only for
 * that statement, never across round trips (a tenant's parkings come by the dozen at once, and a
 * lock held across them would hold the worker's pooled connections too).
 */
export async function parkDelivery(db: Db, request: ParkRequest, maxPerTenant: number): Promise<Parking> {
  const [again] = await db('webhook_parked_deliveries')
    .where({ tenant_id: request.tenantId, delivery_id: request.deliveryId })
    .update({ ticket: db.raw('gen_random_uuid()'), released_at: null, attempt: request.attempt })
    .returning('ticket');
  if (again) return { kind: 'parked', ticket: again.ticket as string };
  const { rows } = await db.raw<{ rows: Array<{ ticket: string }> }>(
    `with place as (
       insert into webhook_parking_counts as c (tenant_id, parked) values (?, 1)
       on conflict (tenant_id) do update set parked = c.parked + 1 where c.parked < ?
       returning tenant_id
     )
     insert into webhook_parked_deliveries (delivery_id, tenant_id, webhook_id, event_id, attempt, event_at, ticket)
     select ?, place.tenant_id, ?, ?, ?,
            -- The event's own time to the microsecond: a JavaScript Date keeps milliseconds, and
            -- events a millisecond apart would then be released in delivery id order, not theirs.
            coalesce((select e.created_at from outbox_events e where e.tenant_id = place.tenant_id and e.id = ?::uuid), ?),
            gen_random_uuid() from place
     returning ticket`,
    [request.tenantId, maxPerTenant, request.deliveryId, request.webhookId, request.eventId, request.attempt, request.eventId, request.eventAt],
  );
  return rows[0] ? { kind: 'parked', ticket: rows[0].ticket } : { kind: 'full' };
}

/** The delivery is no longer parked (it attempted, or ended, or its workflow is gone). */
export async function forgetParked(db: Queryable, tenantId: string, deliveryId: string): Promise<void> {
  await db('webhook_parked_deliveries').where({ tenant_id: tenantId, delivery_id: deliveryId }).delete();
}

export interface ParkedSummary {
  count: number;
  oldestParkedAt: Date | null;
  /** The tenant's parked deliveries, all its webhooks together (the bound applies to these). */
  tenantCount: number;
}

/** One webhook's parked deliveries and its tenant's, for GET of the webhook. */
export async function parkedSummary(scope: TenantScope, webhookId: string): Promise<ParkedSummary> {
  const [own, tenant] = await Promise.all([
    scope.table('webhook_parked_deliveries').where({ webhook_id: webhookId }).first(scope.db.raw('count(*)::int as count'), scope.db.raw('min(parked_at) as oldest')),
    scope.table('webhook_parking_counts').first('parked'),
  ]);
  return { count: own?.count ?? 0, oldestParkedAt: own?.oldest ?? null, tenantCount: tenant?.parked ?? 0 };
}

export interface ParkedWebhookRow {
  tenant_id: string;
  webhook_id: string;
  /** null: the webhook was deleted (its parked deliveries are on their way out). */
  url: string | null;
  status: string | null;
  /** null: the circuit never failed (closed). */
  breaker_state: BreakerStateName | null;
  parked: number;
  oldest_parked_at: Date;
  /** The tenant's parked deliveries, all its webhooks together. */
  tenant_parked: number;
}

/**
 * The operator's view (cli/ `webhooks parked`): per webhook with parked deliveries, their count
 * and the oldest, with the tenant's total; oldest first, for one tenant or all. It counts every
 * parked row it lists (at most WEBHOOK_PARKED_PER_TENANT per tenant): an operator's read, not a
 * loop's. A query for `paginate`.
 */
export function parkedWebhooksQuery(db: Queryable, tenantId?: string): Knex.QueryBuilder {
  const perWebhook = db('webhook_parked_deliveries as p')
    .modify((q) => void (tenantId ? q.where('p.tenant_id', tenantId) : q))
    .groupBy('p.tenant_id', 'p.webhook_id')
    .select('p.tenant_id', 'p.webhook_id', db.raw('count(*)::int as parked'), db.raw('min(p.parked_at) as oldest_parked_at'));
  return db
    .from(perWebhook.as('pw'))
    .leftJoin('webhooks as w', (on) => void on.on('w.tenant_id', 'pw.tenant_id').andOn('w.id', 'pw.webhook_id'))
    .leftJoin('webhook_circuit_breakers as b', (on) => void on.on('b.tenant_id', 'pw.tenant_id').andOn('b.webhook_id', 'pw.webhook_id'))
    .leftJoin('webhook_parking_counts as c', 'c.tenant_id', 'pw.tenant_id')
    .select('pw.*', 'w.url', 'w.status', 'b.state as breaker_state', db.raw('coalesce(c.parked, 0)::int as tenant_parked'))
    .orderBy([{ column: 'pw.oldest_parked_at' }, { column: 'pw.webhook_id' }]);
}

export interface ParkingTotals {
  parked: number;
  oldestSeconds: number;
  tenantsAtLimit: number;
}

/** Over every tenant, for metrics: O(tenants) plus one index lookup. */
export async function parkingTotals(db: Queryable, maxPerTenant: number): Promise<ParkingTotals> {
  const { rows } = await db.raw<{ rows: ParkingTotals[] }>(
    `select coalesce(sum(parked), 0)::int as "parked",
            count(*) filter (where parked >= ?)::int as "tenantsAtLimit",
            coalesce(extract(epoch from now() - (select min(parked_at) from webhook_parked_deliveries)), 0)::float8 as "oldestSeconds"
       from webhook_parking_counts`,
    [maxPerTenant],
  );
  return rows[0];
}

export interface ParkedEndpointRow extends ParkedEndpoint {
  tenantId: string;
  webhookId: string;
}

/** Every endpoint with parked deliveries: a skip scan of the queue index, one step per endpoint. */
const EVERY_PARKED_ENDPOINT = `with recursive endpoints as (
       (select tenant_id, webhook_id from webhook_parked_deliveries order by tenant_id, webhook_id limit 1)
       union all
       select n.tenant_id, n.webhook_id from endpoints e
        cross join lateral (select p.tenant_id, p.webhook_id from webhook_parked_deliveries p
                             where (p.tenant_id, p.webhook_id) > (e.tenant_id, e.webhook_id)
                             order by p.tenant_id, p.webhook_id limit 1) n
     )`;
/** One endpoint, when it has parked deliveries. */
const ONE_PARKED_ENDPOINT = `with endpoints as (
       select tenant_id, webhook_id from webhook_parked_deliveries where tenant_id = ? and webhook_id = ? limit 1
     )`;

/**
 * Every endpoint with parked deliveries (or `only` that one), with its webhook's status, its
 * circuit and its counts, each count read up to `countUpTo` rows. A release older than `staleMs`
 * that its delivery did not act on counts as waiting again.
 */
export async function parkedEndpoints(tx: Knex.Transaction, staleMs: number, countUpTo: number, only?: { tenantId: string; webhookId: string }): Promise<ParkedEndpointRow[]> {
  const stale = `now() - make_interval(secs => ${Number(staleMs) / 1000})`;
  const { rows } = await tx.raw(
    `${only ? ONE_PARKED_ENDPOINT : EVERY_PARKED_ENDPOINT}
     select e.tenant_id, e.webhook_id, coalesce(w.status in ('active', 'failing'), false) as receiving,
            b.state, b.since, b.consecutive_failures, b.probe_delivery_id, b.probe_expires_at,
            (select count(*) from (select 1 from webhook_parked_deliveries p
               where p.tenant_id = e.tenant_id and p.webhook_id = e.webhook_id and (p.released_at is null or p.released_at < ${stale}) limit ?) x)::int as waiting,
            (select count(*) from (select 1 from webhook_parked_deliveries p
               where p.tenant_id = e.tenant_id and p.webhook_id = e.webhook_id and p.released_at >= ${stale} limit ?) y)::int as released
       from endpoints e
       left join webhooks w on w.tenant_id = e.tenant_id and w.id = e.webhook_id
       left join webhook_circuit_breakers b on b.tenant_id = e.tenant_id and b.webhook_id = e.webhook_id`,
    [...(only ? [only.tenantId, only.webhookId] : []), countUpTo, countUpTo],
  );
  return (rows as Array<Record<string, unknown>>).map((row) => ({
    tenantId: row.tenant_id as string,
    webhookId: row.webhook_id as string,
    receiving: row.receiving === true,
    breaker: row.state ? breakerOf(row as unknown as BreakerRow) : null,
    waiting: row.waiting as number,
    released: row.released as number,
  }));
}

export interface Release {
  tenantId: string;
  webhookId: string;
  deliveryId: string;
  ticket: string;
}

/** Marks the oldest waiting deliveries of each endpoint released (`quota` each), in event order; answers them in that order. */
export async function claimReleases(tx: Knex.Transaction, quotas: ReadonlyArray<{ tenantId: string; webhookId: string; quota: number }>, staleMs: number): Promise<Release[]> {
  if (quotas.length === 0) return [];
  const stale = `now() - make_interval(secs => ${Number(staleMs) / 1000})`;
  const { rows } = await tx.raw(
    `with chosen as (
       select c.delivery_id, c.event_at from unnest(?::uuid[], ?::uuid[], ?::int[]) as q(tenant_id, webhook_id, quota)
        cross join lateral (
          select p.delivery_id, p.event_at from webhook_parked_deliveries p
           where p.tenant_id = q.tenant_id and p.webhook_id = q.webhook_id and (p.released_at is null or p.released_at < ${stale})
           order by p.event_at, p.delivery_id limit q.quota
           for update of p skip locked) c
     ), released as (
       update webhook_parked_deliveries p set released_at = now()
         from chosen where p.delivery_id = chosen.delivery_id
       returning p.tenant_id, p.webhook_id, p.delivery_id, p.ticket, p.event_at
     )
     -- Sorted here, to the microsecond: a JavaScript Date of event_at keeps milliseconds only.
     select tenant_id, webhook_id, delivery_id, ticket from released order by event_at, delivery_id`,
    [quotas.map((q) => q.tenantId), quotas.map((q) => q.webhookId), quotas.map((q) => q.quota)],
  );
  return (rows as Array<{ tenant_id: string; webhook_id: string; delivery_id: string; ticket: string }>).map((row) => ({
    tenantId: row.tenant_id,
    webhookId: row.webhook_id,
    deliveryId: row.delivery_id,
    ticket: row.ticket,
  }));
}
