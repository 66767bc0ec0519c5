import Joi from '../../domain/joi';
import { isUuid } from '../../db/tenant-scope';
import { appendEvent, outboxBacklog } from '../../db/outbox';
import { insertNotification } from '../../db/notifications';
import { AppContext } from '../context';
import { checkDependencies } from '../../infra/dependency-health';
import { AppError, forbidden, notFound, validationError } from '../../domain/errors';
import { runMutation, actorOf } from '../mutation';
import { startNotificationDelivery } from '../../orchestration/notifications';
import { ApiRouter } from '../route';
import { PageRequest, paginate } from '../../db/pagination';
import { pageQuery } from '../pagination';
import { Knex } from 'knex';

const OUTBOX_ITEM_COLUMNS = ['id', 'tenant_id', 'type', 'attempts', 'last_error', 'next_attempt_at', 'parked_at', 'created_at'];

interface OutboxRow {
  id: string;
  tenant_id: string;
  type: string;
  attempts: number;
  last_error: string | null;
  next_attempt_at: Date | null;
  parked_at: Date | null;
  created_at: Date;
}

/** An event the dispatcher could not hand over: ids, type and error only, never the event's data. */
function toOutboxItem(row: OutboxRow) {
  return {
    id: row.id,
    tenant_id: row.tenant_id,
    type: row.type,
    attempts: row.attempts,
    last_error: row.last_error,
    next_attempt_at: row.next_attempt_at?.toISOString() ?? null,
    parked_at: row.parked_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
  };
}

function servicePrincipal(ctx: AppContext) {
  const p = ctx.state.principal;
  if (p?.kind !== 'service') throw forbidden('a service token is required');
  return p;
}

/** Only the rows of the tenants the service token may act for. */
function grantedTenantsOnly(ctx: AppContext, q: Knex.QueryBuilder): Knex.QueryBuilder {
  const { tenants } = servicePrincipal(ctx);
  return tenants === '*' ? q : q.whereIn('tenant_id', tenants);
}

const EVENT_TYPE = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;
/** The tenant exists and the service token may act for it (its `tenants` grant). */
async function requireTenant(ctx: AppContext, tenantId: string): Promise<void> {
  const { tenants } = servicePrincipal(ctx);
  if (tenants !== '*' && !tenants.includes(tenantId)) throw forbidden('the service token may not act for this tenant');
  if (!isUuid(tenantId) || !(await ctx.deps.db('tenants').where({ id: tenantId }).first('id'))) throw notFound('tenant');
}

/** Internal notifications go to the tenant's own staff: a service token is not a mail relay. */
async function requireStaffRecipients(ctx: AppContext, tenantId: string, recipients: string[]): Promise<void> {
  const staff = new Set(
    (
      await ctx.deps
        .db('users')
        .where({ tenant_id: tenantId, status: 'active' })
        .whereRaw('lower(email) = any(?)', [recipients.map((r) => r.toLowerCase())])
        .pluck('email')
    ).map((e: string) => e.toLowerCase()),
  );
  const outside = recipients.filter((r) => !staff.has(r.toLowerCase()));
  if (outside.length > 0) {
    const message = 'must be active users of the tenant';
    throw validationError(`invalid body: body.recipients ${message}`, [{ field: 'body.recipients', message, type: 'any.invalid' }]);
  }
}

export function internalRoutes(): ApiRouter {
  const api = new ApiRouter('/internal');

  api.route({
    method: 'get',
    path: '/health',
    scope: 'health:read',
    summary: 'Health of the service and of PostgreSQL, Temporal and the object store',
    tags: ['internal'],
    auth: 'internal',
    responses: { 200: { description: 'All parts up' }, 503: { description: 'A part is down; the body names it' } },
    handler: async (ctx) => {
      const { components, down } = await checkDependencies(ctx.deps);
      if (down.length > 0) {
        throw new AppError('DEPENDENCY_UNAVAILABLE', `unavailable: ${down.join(', ')}`, { status: 'degraded', down, components });
      }
      ctx.body = { status: 'ok', components };
    },
  });

  api.route<unknown, unknown, { tenant_id: string; type: string; data: Record<string, unknown>; occurred_at?: Date; event_id?: string }>({
    method: 'post',
    path: '/events',
    scope: 'events:write',
    summary: 'Ingest an internal event into the outbox (idempotent by event_id)',
    tags: ['internal'],
    auth: 'internal',
    body: Joi.object({
      tenant_id: Joi.string().required(),
      type: Joi.string().pattern(EVENT_TYPE).max(100).required().messages({ 'string.pattern.base': 'must be dotted, e.g. asset.alert.raised' }),
      data: Joi.object().unknown(true).required(),
      occurred_at: Joi.date().iso(),
      event_id: Joi.string().max(200),
    }),
    responses: { 202: { description: 'Stored; `duplicate` tells whether event_id was seen before' }, 404: { description: 'Unknown tenant' } },
    handler: async (ctx, { body }) => {
      await requireTenant(ctx, body.tenant_id);
      const result = await runMutation(ctx, body.tenant_id, actorOf(ctx), async (unit) => {
        const stored = await appendEvent(unit.tx, {
          tenantId: body.tenant_id,
          type: body.type,
          data: body.data,
          occurredAt: body.occurred_at,
          idempotencyKey: body.event_id,
          source: 'internal',
        });
        unit.audit({ action: 'event.ingested', resourceType: 'event', resourceId: stored.id, details: { type: body.type, duplicate: stored.duplicate } });
        return stored;
      });
      ctx.status = 202;
      ctx.body = { id: result.id, duplicate: result.duplicate };
    },
  });

  api.route<unknown, unknown, { tenant_id: string; category: string; recipients: string[]; subject: string; body: string; idempotency_key?: string }>({
    method: 'post',
    path: '/notifications',
    scope: 'notifications:send',
    summary: 'Queue a notification; a workflow delivers it (email through SMTP when configured, always recorded)',
    tags: ['internal'],
    auth: 'internal',
    body: Joi.object({
      tenant_id: Joi.string().required(),
      category: Joi.string().max(100).required(),
      recipients: Joi.array().items(Joi.string().email()).min(1).max(100).required(),
      subject: Joi.string().max(300).required(),
      body: Joi.string().max(100_000).required(),
      idempotency_key: Joi.string().max(200),
    }),
    responses: {
      202: { description: 'Queued' },
      403: { description: 'The token lacks the scope or may not act for the tenant' },
      404: { description: 'Unknown tenant' },
      422: { description: 'A recipient is not an active user of the tenant' },
    },
    handler: async (ctx, { body }) => {
      await requireTenant(ctx, body.tenant_id);
      await requireStaffRecipients(ctx, body.tenant_id, body.recipients);
      const queued = await runMutation(ctx, body.tenant_id, actorOf(ctx), async (unit) => {
        const row = await insertNotification(unit.tx, {
          tenantId: body.tenant_id,
          category: body.category,
          recipients: body.recipients,
          subject: body.subject,
          body: body.body,
          idempotencyKey: body.idempotency_key,
        });
        unit.audit({ action: 'notification.queued', resourceType: 'notification', resourceId: row.id, details: { category: body.category, duplicate: row.duplicate } });
        return row;
      });
      await startNotificationDelivery(ctx.deps.temporal, body.tenant_id, queued.id);
      ctx.status = 202;
      ctx.body = { id: queued.id, status: 'queued', duplicate: queued.duplicate };
    },
  });

  api.route<unknown, PageRequest & { status: 'parked' | 'retrying' }>({
    method: 'get',
    path: '/outbox',
    scope: 'outbox:read',
    summary: 'Outbox backlog, and the events waiting for a retry or parked after repeated dispatch failures, with their errors',
    tags: ['internal'],
    auth: 'internal',
    query: Joi.object({ status: Joi.string().valid('parked', 'retrying').default('parked'), ...pageQuery }),
    responses: { 200: { description: 'Counts of the tenants the token may act for, and one page of events in the asked status' } },
    handler: async (ctx, { query }) => {
      const { db } = ctx.deps;
      const backlog = await outboxBacklog(db, grantedTenantsOnly(ctx, db('outbox_events')));
      const list = grantedTenantsOnly(ctx, db('outbox_events'))
        .modify(
          (q) =>
            void (query.status === 'parked'
              ? q.whereNotNull('parked_at').orderBy('parked_at', 'desc')
              : q.whereNull('dispatched_at').where('attempts', '>', 0).orderBy('next_attempt_at')),
        )
        .orderBy('id')
        .select(OUTBOX_ITEM_COLUMNS);
      const page = await paginate(list, query, toOutboxItem);
      ctx.body = { ...backlog, ...page };
    },
  });

  api.route<{ id: string }>({
    method: 'post',
    path: '/outbox/:id/requeue',
    scope: 'outbox:write',
    summary: 'Return a parked event to the outbox: the dispatcher tries it again at once, with a fresh attempt count',
    tags: ['internal'],
    auth: 'internal',
    responses: { 200: { description: 'Requeued' }, 404: { description: 'No parked event with this id for the tenants the token may act for' } },
    handler: async (ctx, { params }) => {
      const [row] = await grantedTenantsOnly(ctx, ctx.deps.db('outbox_events'))
        .where({ id: params.id })
        .whereNotNull('parked_at')
        .update({ parked_at: null, dispatched_at: null, attempts: 0, next_attempt_at: null })
        .returning(OUTBOX_ITEM_COLUMNS);
      if (!row) throw notFound('parked event');
      ctx.body = toOutboxItem(row);
    },
  });

  return api;
}
