import Joi from '../../domain/joi';
import { AppContext } from '../context';
import { checkDependencies } from '../../infra/dependency-health';
import { AppError, forbidden } from '../../domain/errors';
import { actorOf, unitContextOf } from '../mutation';
import { toOutboxItem } from '../resources/outbox-event';
import { ApiRouter } from '../route';
import { PageRequest } from '../../db/pagination';
import { pageQuery } from '../pagination';
import {
  EventOrder,
  ingestEvent,
  NotificationOrder,
  outboxOverview,
  OutboxStatus,
  queueNotification,
  requeueParkedEvent,
  revokeServiceTokenById,
  TenantGrant,
} from '../../services/internal';

function servicePrincipal(ctx: AppContext) {
  const p = ctx.state.principal;
  if (p?.kind !== 'service') throw forbidden('a service token is required');
  return p;
}

/** The tenants the request's service token may act for (403 without a service token). */
const grantOf = (ctx: AppContext): TenantGrant => servicePrincipal(ctx).tenants;

const EVENT_TYPE = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;

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

  api.route<unknown, unknown, { tenant_id: string } & EventOrder>({
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
      const { tenant_id, ...order } = body;
      const result = await ingestEvent(ctx.deps.db, grantOf(ctx), unitContextOf(ctx, tenant_id), order);
      ctx.status = 202;
      ctx.body = { id: result.id, duplicate: result.duplicate };
    },
  });

  api.route<unknown, unknown, { tenant_id: string } & NotificationOrder>({
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
      const { tenant_id, ...order } = body;
      const queued = await queueNotification(ctx.deps, grantOf(ctx), unitContextOf(ctx, tenant_id), order);
      ctx.status = 202;
      ctx.body = { id: queued.id, status: 'queued', duplicate: queued.duplicate };
    },
  });

  api.route<unknown, PageRequest & { status: OutboxStatus }>({
    method: 'get',
    path: '/outbox',
    scope: 'outbox:read',
    summary: 'Outbox backlog, and the events waiting for a retry or parked after repeated dispatch failures, with their errors',
    tags: ['internal'],
    auth: 'internal',
    query: Joi.object({ status: Joi.string().valid('parked', 'retrying').default('parked'), ...pageQuery }),
    responses: { 200: { description: 'Counts of the tenants the token may act for, and one page of events in the asked status' } },
    handler: async (ctx, { query }) => {
      const overview = await outboxOverview(ctx.deps.db, grantOf(ctx), query.status, query);
      ctx.body = { ...overview, items: overview.items.map(toOutboxItem) };
    },
  });

  api.route<{ id: string }>({
    method: 'post',
    path: '/outbox/:id/requeue',
    scope: 'outbox:write',
    summary: 'Return a parked event to the outbox: the dispatcher tries it again at once, with a fresh attempt count (audited in its tenant)',
    tags: ['internal'],
    auth: 'internal',
    responses: { 200: { description: 'Requeued' }, 404: { description: 'No parked event with this id for the tenants the token may act for' } },
    handler: async (ctx, { params }) => {
      const row = await requeueParkedEvent(ctx.deps.db, grantOf(ctx), params.id, { actor: actorOf(ctx), requestId: ctx.state.requestId });
      ctx.body = toOutboxItem(row);
    },
  });

  api.route<{ token_id: string }>({
    method: 'post',
    path: '/service-tokens/:token_id/revoke',
    scope: 'tokens:revoke',
    summary: 'Revoke a service token by its id (the `jti` claim): refused on every API process within seconds',
    description:
      'A token for every tenant may revoke any service token; any other token only itself. Revoking a revoked token answers its first revocation. Service tokens expire at most 90 days after they were issued.',
    tags: ['internal'],
    auth: 'internal',
    responses: {
      200: { description: 'Revoked', schema: Joi.object({ jti: Joi.string().uuid(), revoked_at: Joi.string().isoDate() }) },
      403: { description: 'The token lacks the scope, or may not revoke another token' },
    },
    handler: async (ctx, { params }) => {
      const caller = servicePrincipal(ctx);
      const revoked = await revokeServiceTokenById(ctx.deps.db, caller, params.token_id);
      ctx.deps.sessions.forget([revoked.jti]);
      ctx.state.log.info({ token_id: revoked.jti, revoked_by: caller.serviceId }, 'service token revoked');
      ctx.body = { jti: revoked.jti, revoked_at: revoked.revoked_at.toISOString() };
    },
  });

  return api;
}
