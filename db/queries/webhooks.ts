/**
 * Webhook rows and their secrets. The API and the delivery activities share these, so the
 * encryption context and the rotation window are decided in one place.
 */
import type { Knex } from 'knex';
import { decryptSecret, encryptSecret } from '../../domain/credentials/encryption';
import type { CanonicalPayload } from '../../domain/webhooks/payload';
import type { WebhookFilters } from '../../domain/webhooks/matching';
import type { DeliveryPolicy, HttpAttemptResult } from '../../domain/webhooks/outcome';
import { boundColumns, CREDENTIAL_BINDINGS, unboundFields } from '../../domain/credentials/destination-binding';
import { Queryable } from '../knex';
import { isUuid, TenantScope, whereUuidIs } from '../tenant-scope';

export const WEBHOOK_STATUSES = ['active', 'paused', 'failing', 'disabled'] as const;
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number];
/** Statuses whose webhooks receive deliveries; `failing` keeps receiving (SPEC.md: not deactivated). */
export const RECEIVING_STATUSES: readonly WebhookStatus[] = ['active', 'failing'];

/** How long the secret replaced by a rotation keeps signing (and verifying at the receiver). */
export const PREVIOUS_SECRET_TTL_MS = 24 * 60 * 60 * 1000;

export interface WebhookRow {
  id: string;
  tenant_id: string;
  url: string;
  events: string[];
  filters: WebhookFilters;
  description: string | null;
  status: WebhookStatus;
  secret_encrypted: string;
  /** The URL the current secret was issued for (domain/credentials/destination-binding.ts). */
  secret_destination: Record<string, unknown> | null;
  previous_secret_encrypted: string | null;
  previous_secret_expires_at: Date | null;
  failing_since: Date | null;
  low_success_alerted_at: Date | null;
  disabled_reason: string | null;
  /** Opt-ins beyond SPEC.md's failure rules (domain/webhooks/outcome.ts DeliveryPolicy). */
  disable_on_gone: boolean;
  honour_retry_after: boolean;
  /** Receives the webhook's alerts; null when its user was deleted (the admins receive them then). */
  owner_user_id: string | null;
  /** When a check first saw the success rate below 50 % (cleared when it recovers). */
  low_success_since: Date | null;
  created_at: Date;
  updated_at: Date;
}

export function deliveryPolicyOf(webhook: Pick<WebhookRow, 'disable_on_gone' | 'honour_retry_after'>): DeliveryPolicy {
  return { disableOnGone: webhook.disable_on_gone === true, honourRetryAfter: webhook.honour_retry_after === true };
}

export function findWebhook(scope: TenantScope, id: string): Promise<WebhookRow | undefined> {
  return scope.table('webhooks').where('webhooks.id', id).first();
}

/** The encryption context binds a secret to its webhook: a ciphertext copied to another row is useless. */
const secretContext = (webhookId: string) => `webhook:${webhookId}`;

export function encryptWebhookSecret(webhookId: string, secret: string, key: Buffer): string {
  return encryptSecret(secret, key, secretContext(webhookId));
}

/** The columns of a webhook's current secret: encrypted, and bound to the URL it is issued for. */
export function webhookSecretColumns(webhook: { id: string; url: string }, secret: string, key: Buffer): Record<string, string> {
  return { secret_encrypted: encryptWebhookSecret(webhook.id, secret, key), ...boundColumns(CREDENTIAL_BINDINGS.webhookSecret, webhook) };
}

/**
 * What an attempt answers, without sending, when the webhook's secret was issued for another URL
 * than the one it now has (changed behind the API's back): its signatures never go elsewhere.
 */
export const SECRET_NOT_BOUND: HttpAttemptResult = { kind: 'refused_destination', reason: 'the signing secret was issued for another url; rotate it' };

/**
 * The secrets that sign now: the current one first, then the previous one while its 24 h last.
 * Null when the current secret was issued for another URL than the webhook's (SECRET_NOT_BOUND).
 */
export function signingSecrets(row: WebhookRow, key: Buffer, now: Date): string[] | null {
  if (unboundFields(CREDENTIAL_BINDINGS.webhookSecret, { ...row }).length > 0) return null;
  const secrets = [decryptSecret(row.secret_encrypted, key, secretContext(row.id))];
  if (row.previous_secret_encrypted && row.previous_secret_expires_at && row.previous_secret_expires_at > now) {
    secrets.push(decryptSecret(row.previous_secret_encrypted, key, secretContext(row.id)));
  }
  return secrets;
}

/**
 * Who hears that a webhook's success rate stays low (SPEC.md: "the owner of the integration"): its
 * owner while they are an active user of the tenant, otherwise the tenant's active admins (the
 * owner was deleted or disabled: the alert must still reach someone).
 */
export async function webhookOwnerEmails(db: Queryable, webhook: Pick<WebhookRow, 'tenant_id' | 'owner_user_id'>): Promise<string[]> {
  if (webhook.owner_user_id) {
    const owner = await db('users').where({ tenant_id: webhook.tenant_id, id: webhook.owner_user_id, status: 'active' }).first('email');
    if (owner) return [owner.email as string];
  }
  return tenantAdminEmails(db, webhook.tenant_id);
}

/**
 * Who hears that a webhook is failing (SPEC.md: "the administrator is notified"): the tenant's
 * active admins and the webhook's active owner, each once (an owner who is an admin too is told once).
 */
export async function webhookFailureEmails(db: Queryable, webhook: Pick<WebhookRow, 'tenant_id' | 'owner_user_id'>): Promise<string[]> {
  const rows: Array<{ email: string }> = await db('users')
    .where({ tenant_id: webhook.tenant_id, status: 'active' })
    .where((who) => {
      who.where('role', 'admin');
      if (webhook.owner_user_id) who.orWhere('id', webhook.owner_user_id);
    })
    .orderBy('created_at')
    .select('email');
  // One row per user, and an address is one user's (users_email_unique): nobody is listed twice.
  return rows.map((row) => row.email);
}

/** E-mail addresses of a tenant's active admins. */
export async function tenantAdminEmails(db: Queryable, tenantId: string): Promise<string[]> {
  const rows = await db('users').where({ tenant_id: tenantId, role: 'admin', status: 'active' }).orderBy('created_at').select('email');
  return rows.map((row) => row.email as string);
}

/**
 * Deliveries of a webhook whose last attempt since `since` failed with no attempt left and that
 * were not redelivered yet, oldest first, whose event is still kept (the recover route).
 */
export async function deliveriesFailedForGood(
  db: Queryable,
  tenantId: string,
  webhookId: string,
  since: Date,
  limit: number,
): Promise<Array<{ delivery_id: string; event_id: string }>> {
  const { rows } = await db.raw(
    `with last as (
       select distinct on (delivery_id) delivery_id, event_id, status, next_attempt_at, created_at
         from webhook_deliveries where tenant_id = ? and webhook_id = ? and created_at >= ?
        order by delivery_id, attempt desc)
     select last.delivery_id, last.event_id from last
      where last.status = 'failed' and last.next_attempt_at is null
        and not exists (select 1 from webhook_deliveries r where r.tenant_id = ? and r.redelivery_of = last.delivery_id)
        and exists (select 1 from outbox_events e where e.tenant_id = ? and e.id = last.event_id)
      order by last.created_at limit ?`,
    [tenantId, webhookId, since, tenantId, tenantId, limit],
  );
  return rows;
}

/** A webhook's delivery metrics, computed in SQL over the 7 UTC days ending today. */
export async function webhookDeliveryAnalytics(db: Queryable, tenantId: string, webhookId: string) {
  const windowStart = `((now() at time zone 'utc')::date - 6)::timestamp at time zone 'utc'`;
  const [totals, days, errors] = await Promise.all([
    db.raw(
      `select count(*)::int as total, (count(*) filter (where status = 'succeeded'))::int as succeeded,
              round(avg(latency_ms))::int as average_latency_ms
         from webhook_deliveries where tenant_id = ? and webhook_id = ? and created_at >= ${windowStart}`,
      [tenantId, webhookId],
    ),
    db.raw(
      `select to_char(day, 'YYYY-MM-DD') as date, count(d.id)::int as total,
              (count(d.id) filter (where d.status = 'succeeded'))::int as succeeded,
              (count(d.id) filter (where d.status = 'failed'))::int as failed
         from generate_series((now() at time zone 'utc')::date - 6, (now() at time zone 'utc')::date, interval '1 day') as day
         left join webhook_deliveries d
           on d.tenant_id = ? and d.webhook_id = ?
          and d.created_at >= day::timestamp at time zone 'utc' and d.created_at < (day + interval '1 day')::timestamp at time zone 'utc'
        group by day order by day`,
      [tenantId, webhookId],
    ),
    db.raw(
      `select coalesce(status_code::text, failure_cause) as code, count(*)::int as count
         from webhook_deliveries where tenant_id = ? and webhook_id = ? and status = 'failed' and created_at >= ${windowStart}
        group by 1 order by count desc, code limit 5`,
      [tenantId, webhookId],
    ),
  ]);
  const t = totals.rows[0] as { total: number; succeeded: number; average_latency_ms: number | null };
  return {
    window_days: 7,
    total_deliveries: t.total,
    succeeded: t.succeeded,
    failed: t.total - t.succeeded,
    success_rate_percent: t.total === 0 ? null : Math.round((t.succeeded / t.total) * 10_000) / 100,
    average_latency_ms: t.average_latency_ms,
    deliveries_per_day: days.rows,
    top_error_codes: errors.rows,
  };
}

/** Webhooks per status over every tenant (for metrics: failing and disabled ones are an operator's concern). */
export async function webhookStatusCounts(db: Queryable): Promise<Record<WebhookStatus, number>> {
  const { rows } = await db.raw<{ rows: Array<{ status: WebhookStatus; n: number }> }>('select status, count(*)::int as n from webhooks group by status');
  const counts: Record<WebhookStatus, number> = { active: 0, paused: 0, failing: 0, disabled: 0 };
  for (const { status, n } of rows) counts[status] = n;
  return counts;
}

/** The tenant's webhooks, oldest first, of one status or all (a list query: the caller pages it). */
export function webhooksQuery(scope: TenantScope, status?: WebhookStatus): Knex.QueryBuilder {
  const q = scope.table('webhooks').orderBy([{ column: 'created_at' }, { column: 'id' }]);
  if (status) q.where('status', status);
  return q;
}

export async function insertWebhook(scope: TenantScope, columns: Record<string, unknown>): Promise<WebhookRow> {
  const [row] = (await scope.insert('webhooks', columns)) as WebhookRow[];
  return row!;
}

export async function updateWebhookRow(scope: TenantScope, id: string, changes: Record<string, unknown>): Promise<WebhookRow> {
  const [row] = (await scope.table('webhooks').where('id', id).update(changes).returning('*')) as WebhookRow[];
  return row!;
}

/** The webhook goes; its delivery log stays until the delivery sweep (30 days, SPEC.md). */
export async function deleteWebhookRow(scope: TenantScope, id: string): Promise<void> {
  await scope.table('webhooks').where('id', id).delete();
}

/** Whether the tenant's delivery log still holds records of the webhook (it may have been deleted). */
export async function hasDeliveryLog(scope: TenantScope, webhookId: string): Promise<boolean> {
  return isUuid(webhookId) && Boolean(await scope.table('webhook_deliveries').where('webhook_id', webhookId).first('id'));
}

export async function isActiveUser(scope: TenantScope, userId: string): Promise<boolean> {
  return Boolean(await scope.table('users').where({ id: userId, status: 'active' }).first('id'));
}

/** The event a delivery of the webhook carried (undefined: no such delivery). */
export async function deliveryEventId(scope: TenantScope, webhookId: string, deliveryId: string): Promise<string | undefined> {
  if (!isUuid(deliveryId)) return undefined;
  const row = (await scope.table('webhook_deliveries').where({ webhook_id: webhookId, delivery_id: deliveryId }).first('event_id')) as { event_id: string } | undefined;
  return row?.event_id;
}

/** Whether the outbox still keeps an event (its retention may have removed it). */
export async function isEventKept(scope: TenantScope, eventId: string): Promise<boolean> {
  return Boolean(await scope.table('outbox_events').where('outbox_events.id', eventId).first('id'));
}

/** A delivery record with the canonical payload it sent (stored on the record). */
export interface DeliveryListRow {
  id: string;
  delivery_id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  status: 'succeeded' | 'failed';
  status_code: number | null;
  latency_ms: number | null;
  response_body: string | null;
  failure_cause: string | null;
  error: string | null;
  next_attempt_at: Date | null;
  redelivery_of: string | null;
  created_at: Date;
  tenant_id: string;
  /** Null only for a record written before payloads were stored whose outbox row was already gone. */
  payload: CanonicalPayload | null;
}

export interface DeliveryFilter {
  status?: string;
  event_type?: string;
  delivery_id?: string;
}

/** A webhook's delivery records, newest first, filtered (a list query: the caller pages it). */
export function deliveriesQuery(scope: TenantScope, webhookId: string, filter: DeliveryFilter): Knex.QueryBuilder {
  const q = scope
    .table('webhook_deliveries')
    .where('webhook_id', webhookId)
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ]);
  if (filter.status) q.where('status', filter.status);
  if (filter.event_type) q.where('event_type', filter.event_type);
  if (filter.delivery_id) whereUuidIs(q, 'delivery_id', filter.delivery_id);
  return q;
}

/** How a webhook's receiver answered its latest attempts (the delivery log's latency, attempts refused before sending left out). */
export interface RecentAnswers {
  /** Attempts counted, at most RECENT_ANSWERS_COUNTED. */
  answers: number;
  slowestMs: number;
}

export const RECENT_ANSWERS_COUNTED = 20;

/**
 * The latest attempts' answers of each webhook, in one statement (each webhook's newest records
 * through the per-webhook index); a webhook with no attempt yet is absent from the map.
 */
export async function recentAnswers(db: Queryable, webhooks: ReadonlyArray<{ tenantId: string; webhookId: string }>): Promise<Map<string, RecentAnswers>> {
  if (webhooks.length === 0) return new Map();
  const { rows } = await db.raw<{ rows: Array<{ webhook_id: string; answers: number; slowest_ms: number }> }>(
    `select w.webhook_id, count(*)::int as answers, max(d.latency_ms)::int as slowest_ms
       from unnest(?::uuid[], ?::uuid[]) as w(tenant_id, webhook_id)
       cross join lateral (
         select latency_ms from webhook_deliveries d
          where d.tenant_id = w.tenant_id and d.webhook_id = w.webhook_id and d.latency_ms is not null
          order by d.created_at desc limit ?
       ) d
      group by w.webhook_id`,
    [webhooks.map((w) => w.tenantId), webhooks.map((w) => w.webhookId), RECENT_ANSWERS_COUNTED],
  );
  return new Map(rows.map((r) => [r.webhook_id, { answers: r.answers, slowestMs: r.slowest_ms }]));
}
