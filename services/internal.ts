/**
 * The internal API's work for service tokens, without HTTP: each function takes the token's
 * tenant grant, so a token never reaches a tenant it was not given. Events and notifications
 * commit in a unit of work with their audit row. api/routes/internal.ts is the HTTP face.
 */
import { insertNotification } from '../db/notifications';
import { revokeServiceToken } from '../db/service-tokens';
import { appendEvent, outboxBacklog, type OutboxBacklog } from '../db/outbox';
import { activeUserEmails, grantedOutbox, outboxListQuery, OutboxRow, OutboxStatus, parkedEventTenant, requeueParked, TenantGrant } from '../db/queries/internal';
import { findTenant } from '../db/tenants';
import type { Db } from '../db/knex';
import { paginate, type Page, type PageRequest } from '../db/pagination';
import { isUuid } from '../db/tenant-scope';
import { runUnit, type UnitContext } from '../db/unit-of-work';
import { forbidden, notFound, tenantSuspended, validationError } from '../domain/errors';
import type { TemporalGateway } from '../infra/temporal';
import { startNotificationDelivery } from '../orchestration/notifications';

export type { OutboxRow, OutboxStatus, TenantGrant };

export interface EventOrder {
  type: string;
  data: Record<string, unknown>;
  occurred_at?: Date;
  event_id?: string;
}

export interface NotificationOrder {
  category: string;
  recipients: string[];
  subject: string;
  body: string;
  idempotency_key?: string;
}

/**
 * The tenant exists, the grant covers it (403 before 404, so a token learns nothing of other
 * tenants) and it is not suspended (403 TENANT_SUSPENDED: nothing is done for it meanwhile).
 */
export async function requireGrantedTenant(db: Db, grant: TenantGrant, tenantId: string): Promise<void> {
  if (grant !== '*' && !grant.includes(tenantId)) throw forbidden('the service token may not act for this tenant');
  const tenant = isUuid(tenantId) ? await findTenant(db, tenantId) : undefined;
  if (!tenant) throw notFound('tenant');
  if (tenant.suspended_at) throw tenantSuspended();
}

/** Internal notifications go to the tenant's own staff: a service token is not a mail relay. */
async function requireStaffRecipients(db: Db, tenantId: string, recipients: string[]): Promise<void> {
  const staff = await activeUserEmails(db, tenantId, recipients);
  const outside = recipients.filter((r) => !staff.has(r.toLowerCase()));
  if (outside.length > 0) {
    const message = 'must be active users of the tenant';
    throw validationError(`invalid body: body.recipients ${message}`, [{ field: 'body.recipients', message, type: 'any.invalid' }]);
  }
}

/** Stores an event of the context's tenant in the outbox, once per event_id. */
export async function ingestEvent(db: Db, grant: TenantGrant, context: UnitContext, order: EventOrder): Promise<{ id: string; duplicate: boolean }> {
  await requireGrantedTenant(db, grant, context.tenantId);
  return runUnit(db, context, async (unit) => {
    const stored = await appendEvent(unit.tx, {
      tenantId: context.tenantId,
      type: order.type,
      data: order.data,
      occurredAt: order.occurred_at,
      idempotencyKey: order.event_id,
      source: 'internal',
    });
    unit.audit({ action: 'event.ingested', resourceType: 'event', resourceId: stored.id, details: { type: order.type, duplicate: stored.duplicate } });
    return stored;
  });
}

/** Records a notification to the tenant's staff (once per idempotency key), then starts its delivery workflow. */
export async function queueNotification(
  deps: { db: Db; temporal: TemporalGateway },
  grant: TenantGrant,
  context: UnitContext,
  order: NotificationOrder,
): Promise<{ id: string; duplicate: boolean }> {
  const { tenantId } = context;
  await requireGrantedTenant(deps.db, grant, tenantId);
  await requireStaffRecipients(deps.db, tenantId, order.recipients);
  const queued = await runUnit(deps.db, context, async (unit) => {
    const row = await insertNotification(unit.tx, {
      tenantId,
      category: order.category,
      recipients: order.recipients,
      subject: order.subject,
      body: order.body,
      idempotencyKey: order.idempotency_key,
    });
    unit.audit({ action: 'notification.queued', resourceType: 'notification', resourceId: row.id, details: { category: order.category, duplicate: row.duplicate } });
    return row;
  });
  await startNotificationDelivery(deps.temporal, tenantId, queued.id);
  return queued;
}

/** The granted tenants' outbox backlog, and one page of its events in the status. */
export async function outboxOverview(db: Db, grant: TenantGrant, status: OutboxStatus, page: PageRequest): Promise<OutboxBacklog & Page<OutboxRow>> {
  const backlog = await outboxBacklog(db, grantedOutbox(db, grant));
  return { ...backlog, ...(await paginate<OutboxRow>(outboxListQuery(db, grant, status), page)) };
}

/**
 * Returns a parked event of the granted tenants to the dispatcher (404 otherwise), audited
 * `outbox.event_requeued` in the event's tenant as `origin`'s action (a service token's holder, an
 * operator). A suspended tenant's event is requeued too: it is held with the rest of its outbox.
 */
export async function requeueParkedEvent(db: Db, grant: TenantGrant, id: string, origin: Omit<UnitContext, 'tenantId'>): Promise<OutboxRow> {
  const tenantId = isUuid(id) ? await parkedEventTenant(db, grant, id) : undefined;
  if (!tenantId) throw notFound('parked event');
  const row = await runUnit(db, { ...origin, tenantId }, async (unit) => {
    const requeued = await requeueParked(unit.tx, grant, id);
    if (!requeued) throw notFound('parked event');
    unit.audit({ action: 'outbox.event_requeued', resourceType: 'event', resourceId: requeued.id, details: { type: requeued.type } });
    return requeued;
  });
  return row;
}

/**
 * Revokes a service token by its id. An operator's token (every tenant) may revoke any; any other
 * token only itself (a partner that knows its token leaked). Revoking again answers the first record.
 */
export async function revokeServiceTokenById(
  db: Db,
  caller: { serviceId: string; tokenId: string; tenants: TenantGrant },
  tokenId: string,
): Promise<{ jti: string; revoked_at: Date; revoked_by: string }> {
  if (caller.tenants !== '*' && caller.tokenId !== tokenId) throw forbidden('only a service token for every tenant may revoke another token');
  return revokeServiceToken(db, tokenId, caller.serviceId);
}
