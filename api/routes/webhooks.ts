/**
 * `/api/v1/integrations/webhooks`: CRUD of webhooks, secret rotation, the signed test call, the
 * delivery log with redeliver and recover, analytics, and the ai-config draft. Deliveries
 * themselves are started by the outbox dispatcher (workers/webhook-dispatcher.ts) and run as
 * `webhook-delivery/<tenant>/<delivery>` workflows.
 */
import { randomUUID } from 'node:crypto';
import Joi from '../../domain/joi';
import {
  deliveriesFailedForGood,
  encryptWebhookSecret,
  findWebhook,
  PREVIOUS_SECRET_TTL_MS,
  RECEIVING_STATUSES,
  signingSecrets,
  WebhookRow,
  WebhookStatus,
  webhookDeliveryAnalytics,
} from '../../db/queries/webhooks';
import { isUuid, tenantScope, TenantScope } from '../../db/tenant-scope';
import { aiConfigMessages, MAX_DESCRIPTION_LENGTH, suggestionFromModel, suggestWebhookConfig } from '../../domain/webhooks/ai-config';
import { llmProviderFrom } from '../../infra/llm';
import { isValidEventPattern, validateFilters, type WebhookFilters } from '../../domain/webhooks/matching';
import type { HttpAttemptResult } from '../../domain/webhooks/outcome';
import { buildPayload, canonicalJson, JsonObject } from '../../domain/webhooks/payload';
import { generateSecret, signDelivery } from '../../domain/webhooks/signing';
import { checkWebhookUrl, DestinationPolicy } from '../../infra/outbound/destination-guard';
import { postSigned } from '../../infra/outbound/safe-http';
import { DELIVERY_RETENTION_DAYS } from '../../domain/webhooks/health-rules';
import { startWebhookDeliveries } from '../../orchestration/webhooks';
import type { WebhookDeliveryInput } from '../../workflows/webhook-delivery';
import { AppContext, userOf } from '../context';
import { dependencyUnavailable, invalidState, notFound, validationError, errorSummary } from '../errors';
import { actorOf, runMutation } from '../mutation';
import { pageQuery, paginate, PageRequest, pageOf } from '../pagination';
import { assertWithinPlanLimit, countRows } from '../plan-limits';
import { ApiRouter } from '../route';
import { idRef } from '../validation';
import { findOr404 } from '../find-or-404';
import { isoTime } from '../../domain/time';

const MAX_RECOVER = 1_000;
const DAY_MS = 24 * 60 * 60 * 1000;

// ---- schemas ---------------------------------------------------------------------------------

const eventPattern = Joi.string()
  .max(100)
  .custom((value: string, helpers) => (isValidEventPattern(value) ? value : helpers.error('any.invalid')))
  .messages({ 'any.invalid': 'must be an event type like "task.created", a prefix like "maintenance.*", or "*"' });
const filters = Joi.object()
  .unknown(true)
  .custom((value, helpers) => {
    const issues = validateFilters(value);
    return issues.length === 0 ? value : helpers.message({ custom: issues.map((i) => `${i.path} ${i.message}`).join('; ') });
  });
const webhookFields = {
  url: Joi.string()
    .trim()
    .max(2_000)
    .uri({ scheme: ['https', 'http'] }),
  events: Joi.array().items(eventPattern).min(1).max(100),
  filters,
  description: Joi.string().trim().max(500).allow(null, ''),
  // `failing` is the engine's to set; a user pauses, disables or re-activates.
  status: Joi.string().valid('active', 'paused', 'disabled'),
  // Opt-ins beyond SPEC.md's failure rules (off by default: SPEC.md retries every failure on its schedule).
  disable_on_gone: Joi.boolean().description('410 Gone disables the webhook at once instead of being retried (default false)'),
  honour_retry_after: Joi.boolean().description('Retry-After on 429/503 moves the next retry within the schedule (default false)'),
  owner_id: idRef.description("User who receives the webhook's alerts; defaults to its creator"),
};
const createBody = Joi.object({ ...webhookFields, url: webhookFields.url.required(), events: webhookFields.events.required() });
const updateBody = Joi.object(webhookFields).min(1);
const webhookParams = Joi.object({ webhook_id: idRef.required() });
const deliveryParams = Joi.object({ webhook_id: idRef.required(), delivery_id: idRef.required() });

export const webhookSchema = Joi.object({
  id: Joi.string(),
  url: Joi.string(),
  events: Joi.array().items(Joi.string()),
  filters: Joi.object().unknown(true),
  description: Joi.string().allow(null),
  status: Joi.string().valid('active', 'paused', 'failing', 'disabled'),
  failing_since: Joi.string().isoDate().allow(null),
  disabled_reason: Joi.string().allow(null),
  disable_on_gone: Joi.boolean(),
  honour_retry_after: Joi.boolean(),
  owner_id: Joi.string().allow(null).description('Receives the alerts; null when that user was deleted (the admins receive them)'),
  previous_secret_expires_at: Joi.string().isoDate().allow(null).description('While set, the previous secret also signs'),
  created_at: Joi.string().isoDate(),
  updated_at: Joi.string().isoDate(),
});
const withSecret = webhookSchema.keys({ secret: Joi.string().description('Shown once: store it now') });
const deliverySchema = Joi.object({
  id: Joi.string().description('Id of this attempt record'),
  delivery_id: Joi.string().description('Id of the delivery (webhook-id header), the same for its attempts'),
  webhook_id: Joi.string(),
  event_id: Joi.string(),
  event_type: Joi.string(),
  payload: Joi.object().unknown(true).allow(null),
  attempt: Joi.number().integer().min(1).max(5),
  status: Joi.string().valid('succeeded', 'failed'),
  status_code: Joi.number().integer().allow(null),
  latency_ms: Joi.number().integer().allow(null),
  response_body: Joi.string().allow(null, ''),
  failure_cause: Joi.string().allow(null),
  error: Joi.string().allow(null),
  next_attempt_at: Joi.string().isoDate().allow(null),
  redelivery_of: Joi.string().allow(null),
  created_at: Joi.string().isoDate(),
});

interface CreateWebhookBody {
  url: string;
  events: string[];
  filters?: WebhookFilters;
  description?: string | null;
  status?: WebhookStatus;
  disable_on_gone?: boolean;
  honour_retry_after?: boolean;
  owner_id?: string;
}

// ---- mapping ---------------------------------------------------------------------------------

export function toWebhook(row: WebhookRow, now = new Date()) {
  const rotating = row.previous_secret_expires_at && row.previous_secret_expires_at > now;
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    filters: row.filters,
    description: row.description,
    status: row.status,
    failing_since: isoTime(row.failing_since),
    disabled_reason: row.disabled_reason,
    disable_on_gone: row.disable_on_gone,
    honour_retry_after: row.honour_retry_after,
    owner_id: row.owner_user_id,
    previous_secret_expires_at: rotating ? isoTime(row.previous_secret_expires_at) : null,
    created_at: isoTime(row.created_at),
    updated_at: isoTime(row.updated_at),
  };
}

interface DeliveryListRow {
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
  event_data: JsonObject | null;
  event_occurred_at: Date | null;
}

/** The payload is rebuilt from the event: the canonical form is deterministic, so it is what was sent. */
function toDelivery(row: DeliveryListRow) {
  const payload =
    row.event_data && row.event_occurred_at
      ? buildPayload({ eventId: row.event_id, type: row.event_type, tenantId: row.tenant_id, occurredAt: new Date(row.event_occurred_at), data: row.event_data })
      : null;
  return {
    id: row.id,
    delivery_id: row.delivery_id,
    webhook_id: row.webhook_id,
    event_id: row.event_id,
    event_type: row.event_type,
    payload,
    attempt: row.attempt,
    status: row.status,
    status_code: row.status_code,
    latency_ms: row.latency_ms,
    response_body: row.response_body,
    failure_cause: row.failure_cause,
    error: row.error,
    next_attempt_at: isoTime(row.next_attempt_at),
    redelivery_of: row.redelivery_of,
    created_at: isoTime(row.created_at),
  };
}

// ---- helpers ---------------------------------------------------------------------------------

/** A path id that is not a UUID names no webhook: 404, like another tenant's webhook. */
function requireWebhook(scope: TenantScope, id: string): Promise<WebhookRow> {
  return findOr404('webhook', id, () => findWebhook(scope, id));
}

/** The URL rules of the deployment (https; http to loopback only with the development setting). */
function assertUrlAllowed(ctx: AppContext, url: string): void {
  const check = checkWebhookUrl(url, activeDestinationPolicy(ctx));
  if (check.kind === 'refused') {
    throw validationError(`invalid body: body.url ${check.reason}`, [{ field: 'body.url', message: check.reason, type: 'url.refused' }]);
  }
}

function activeDestinationPolicy(ctx: AppContext): DestinationPolicy {
  return { allowPrivate: ctx.deps.config.webhooks.allowPrivateDestinations };
}

/** The test call: `sample_payload` as canonical JSON, signed like a delivery, through the same guarded POST. */
async function sendTestPayload(ctx: AppContext, webhook: WebhookRow, sample: Record<string, unknown>): Promise<HttpAttemptResult> {
  const body = canonicalJson(sample);
  const now = new Date();
  const headers = signDelivery({
    secrets: signingSecrets(webhook, ctx.deps.config.secrets.dataEncryptionKey, now),
    deliveryId: `test_${randomUUID()}`,
    timestamp: Math.floor(now.getTime() / 1000),
    body,
  });
  return postSigned({ url: webhook.url, headers: { ...headers }, body, ...activeDestinationPolicy(ctx) });
}

function toTestResult(result: HttpAttemptResult) {
  switch (result.kind) {
    case 'response':
      return { status_code: result.status, response_body: result.body, latency_ms: result.latencyMs, success: result.status >= 200 && result.status <= 299 };
    case 'timeout':
      return { status_code: null, response_body: '', latency_ms: result.latencyMs, success: false, error: 'timeout: no complete answer within 10 s' };
    case 'connection_error':
      return { status_code: null, response_body: '', latency_ms: result.latencyMs, success: false, error: `connection_error: ${result.message}` };
    case 'refused_destination':
      return { status_code: null, response_body: '', latency_ms: 0, success: false, error: `refused_destination: ${result.reason}` };
  }
}

/** An owner must be an active user of the tenant: someone the alerts can reach. */
async function assertOwner(scope: TenantScope, userId: string): Promise<void> {
  const user = await scope.table('users').where({ id: userId, status: 'active' }).first('id');
  if (!user) {
    const message = 'must be an active user of this tenant';
    throw validationError(`invalid body: body.owner_id ${message}`, [{ field: 'body.owner_id', message, type: 'any.invalid' }]);
  }
}

function requireReceiving(webhook: WebhookRow): void {
  if (!RECEIVING_STATUSES.includes(webhook.status)) {
    throw invalidState(`the webhook is ${webhook.status}; set its status to active first`);
  }
}

async function startDeliveries(ctx: AppContext, inputs: WebhookDeliveryInput[]): Promise<void> {
  try {
    await startWebhookDeliveries(await ctx.deps.temporal.client(), inputs);
  } catch (err) {
    throw dependencyUnavailable('temporal', `could not start the deliveries: ${errorSummary(err)}`);
  }
}

// ---- routes ----------------------------------------------------------------------------------

export function webhookRoutes(): ApiRouter {
  const api = new ApiRouter('/api/v1/integrations/webhooks');

  api.route<unknown, PageRequest & { status?: WebhookStatus }>({
    method: 'get',
    path: '/',
    summary: 'List webhooks',
    tags: ['webhooks'],
    auth: 'user',
    permission: 'view_webhooks',
    query: Joi.object({ ...pageQuery, status: Joi.string().valid('active', 'paused', 'failing', 'disabled') }),
    responses: { 200: { description: 'A page of webhooks', schema: pageOf(webhookSchema) } },
    handler: async (ctx, { query }) => {
      const q = tenantScope(ctx.deps.db, userOf(ctx).tenantId)
        .table('webhooks')
        .orderBy([{ column: 'created_at' }, { column: 'id' }]);
      if (query.status) q.where('status', query.status);
      ctx.body = await paginate(q, query, (row: WebhookRow) => toWebhook(row));
    },
  });

  api.route<unknown, unknown, CreateWebhookBody>({
    method: 'post',
    path: '/',
    summary: 'Create a webhook; the answer holds its signing secret, shown this once',
    tags: ['webhooks'],
    auth: 'user',
    permission: 'manage_webhooks',
    body: createBody,
    responses: {
      201: { description: 'Created webhook with its secret', schema: withSecret },
      403: { description: 'Plan limit reached' },
      422: { description: 'Invalid URL, event pattern or filter' },
    },
    handler: async (ctx, { body }) => {
      const { tenantId } = userOf(ctx);
      assertUrlAllowed(ctx, body.url);
      const id = randomUUID();
      const secret = generateSecret();
      const created = await runMutation(ctx, tenantId, actorOf(ctx), async (unit) => {
        await assertWithinPlanLimit(unit.tx, tenantId, 'webhooks', countRows('webhooks', tenantId));
        if (body.owner_id !== undefined) await assertOwner(unit.scope, body.owner_id);
        const [row] = await unit.scope.insert('webhooks', {
          id,
          url: body.url,
          events: body.events,
          filters: JSON.stringify(body.filters ?? {}),
          description: body.description || null,
          status: body.status ?? 'active',
          disable_on_gone: body.disable_on_gone ?? false,
          honour_retry_after: body.honour_retry_after ?? false,
          owner_user_id: body.owner_id ?? userOf(ctx).userId,
          secret_encrypted: encryptWebhookSecret(id, secret, ctx.deps.config.secrets.dataEncryptionKey),
        });
        unit.audit({ action: 'webhook.created', resourceType: 'webhook', resourceId: id, details: { events: body.events, status: row.status } });
        return row as WebhookRow;
      });
      ctx.status = 201;
      ctx.body = { ...toWebhook(created), secret };
    },
  });

  // Static paths before /:webhook_id.
  api.route<unknown, unknown, { description: string }>({
    method: 'post',
    path: '/ai-config',
    summary: 'Suggest a webhook configuration for a use case described in words (a draft; nothing is created)',
    description:
      'Answers `{engine, model, draft: true, suggestion}`. Without a configured language model the built-in engine matches the description ' +
      'against the event catalogue deterministically (`engine: "built-in"`); with LLM_BASE_URL the model chooses (`engine: "openai-compatible"`), ' +
      'and an answer that is not a valid configuration falls back to the built-in one (with `notice`). `suggestion` (events, filters, payload format, ' +
      'auth headers) becomes a webhook only when sent to POST / or PUT /{id}.',
    tags: ['webhooks'],
    auth: 'user',
    permission: 'manage_webhooks',
    body: Joi.object({ description: Joi.string().trim().min(1).max(MAX_DESCRIPTION_LENGTH).required() }),
    responses: { 200: { description: 'Suggested configuration' } },
    handler: async (ctx, { body }) => {
      const builtIn = { engine: 'built-in', model: 'built-in', draft: true, suggestion: suggestWebhookConfig(body.description) };
      const provider = llmProviderFrom(ctx.deps.config.llm);
      if (!provider) {
        ctx.body = builtIn;
        return;
      }
      try {
        const answer = await provider.complete({ temperature: 0, messages: aiConfigMessages(body.description) });
        const suggestion = suggestionFromModel(answer.text);
        if (!suggestion) throw new Error('the language model did not answer a valid configuration');
        ctx.body = { engine: answer.engine, model: answer.model, draft: true, suggestion };
      } catch (err) {
        ctx.state.log.warn({ err: (err as Error).message }, 'language model failed; answering with the built-in suggestion');
        ctx.body = { ...builtIn, notice: "The configured language model failed or answered an invalid configuration; this suggestion is the built-in engine's." };
      }
    },
  });

  api.route<{ webhook_id: string }>({
    method: 'get',
    path: '/:webhook_id',
    summary: 'Get a webhook',
    tags: ['webhooks'],
    auth: 'user',
    permission: 'view_webhooks',
    params: webhookParams,
    responses: { 200: { description: 'Webhook', schema: webhookSchema }, 404: { description: 'Not found' } },
    handler: async (ctx, { params }) => {
      ctx.body = toWebhook(await requireWebhook(tenantScope(ctx.deps.db, userOf(ctx).tenantId), params.webhook_id));
    },
  });

  api.route<{ webhook_id: string }, unknown, Partial<CreateWebhookBody>>({
    method: 'put',
    path: '/:webhook_id',
    summary: 'Update the fields sent; omitted fields keep their values',
    description: 'Setting `status` to `active` also ends a failing episode or a disabled state.',
    tags: ['webhooks'],
    auth: 'user',
    permission: 'manage_webhooks',
    params: webhookParams,
    body: updateBody,
    responses: { 200: { description: 'Updated webhook', schema: webhookSchema }, 404: { description: 'Not found' }, 422: { description: 'Invalid field' } },
    handler: async (ctx, { params, body }) => {
      const { tenantId } = userOf(ctx);
      if (body.url !== undefined) assertUrlAllowed(ctx, body.url);
      const updated = await runMutation(ctx, tenantId, actorOf(ctx), async (unit) => {
        const current = await requireWebhook(unit.scope, params.webhook_id);
        const changes: Record<string, unknown> = { updated_at: new Date() };
        if (body.url !== undefined) changes.url = body.url;
        if (body.events !== undefined) changes.events = body.events;
        if (body.filters !== undefined) changes.filters = JSON.stringify(body.filters);
        if (body.description !== undefined) changes.description = body.description || null;
        if (body.disable_on_gone !== undefined) changes.disable_on_gone = body.disable_on_gone;
        if (body.honour_retry_after !== undefined) changes.honour_retry_after = body.honour_retry_after;
        if (body.owner_id !== undefined) {
          await assertOwner(unit.scope, body.owner_id);
          changes.owner_user_id = body.owner_id;
        }
        if (body.status !== undefined && body.status !== current.status) {
          changes.status = body.status;
          changes.failing_since = null;
          changes.disabled_reason = body.status === 'disabled' ? 'user' : null;
        }
        const [row] = await unit.scope.table('webhooks').where('id', current.id).update(changes).returning('*');
        unit.audit({ action: 'webhook.updated', resourceType: 'webhook', resourceId: current.id, details: { fields: Object.keys(body), status: row.status } });
        return row as WebhookRow;
      });
      ctx.body = toWebhook(updated);
    },
  });

  api.route<{ webhook_id: string }>({
    method: 'delete',
    path: '/:webhook_id',
    summary: 'Delete a webhook and its delivery log; deliveries in progress stop at their next attempt',
    tags: ['webhooks'],
    auth: 'user',
    permission: 'manage_webhooks',
    params: webhookParams,
    responses: { 204: { description: 'Deleted' }, 404: { description: 'Not found' } },
    handler: async (ctx, { params }) => {
      const { tenantId } = userOf(ctx);
      await runMutation(ctx, tenantId, actorOf(ctx), async (unit) => {
        const webhook = await requireWebhook(unit.scope, params.webhook_id);
        await unit.scope.table('webhook_deliveries').where('webhook_id', webhook.id).delete();
        await unit.scope.table('webhooks').where('id', webhook.id).delete();
        unit.audit({ action: 'webhook.deleted', resourceType: 'webhook', resourceId: webhook.id });
      });
      ctx.status = 204;
    },
  });

  api.route<{ webhook_id: string }>({
    method: 'post',
    path: '/:webhook_id/rotate-secret',
    summary: 'Replace the signing secret; the previous one keeps signing beside it for 24 hours',
    description: 'The new secret is shown this once. Until `previous_secret_expires_at`, deliveries carry both signatures, the new one first.',
    tags: ['webhooks'],
    auth: 'user',
    permission: 'manage_webhooks',
    params: webhookParams,
    responses: { 200: { description: 'Webhook with its new secret', schema: withSecret }, 404: { description: 'Not found' } },
    handler: async (ctx, { params }) => {
      const { tenantId } = userOf(ctx);
      const secret = generateSecret();
      const rotated = await runMutation(ctx, tenantId, actorOf(ctx), async (unit) => {
        const current = await requireWebhook(unit.scope, params.webhook_id);
        const [row] = await unit.scope
          .table('webhooks')
          .where('id', current.id)
          .update({
            secret_encrypted: encryptWebhookSecret(current.id, secret, ctx.deps.config.secrets.dataEncryptionKey),
            // Same webhook, same encryption context: the stored ciphertext moves as it is.
            previous_secret_encrypted: current.secret_encrypted,
            previous_secret_expires_at: new Date(Date.now() + PREVIOUS_SECRET_TTL_MS),
            updated_at: new Date(),
          })
          .returning('*');
        unit.audit({ action: 'webhook.secret_rotated', resourceType: 'webhook', resourceId: current.id });
        return row as WebhookRow;
      });
      ctx.body = { ...toWebhook(rotated), secret };
    },
  });

  api.route<{ webhook_id: string }, unknown, { sample_payload: Record<string, unknown> }>({
    method: 'post',
    path: '/:webhook_id/test',
    summary: 'Send sample_payload to the webhook, signed like a delivery, and answer what the destination said',
    description:
      'The body sent is `sample_payload` itself (compact JSON, keys sorted), signed with the current secret(s); the delivery id is `test_<uuid>`. ' +
      'No audit record, no delivery record, no workflow. `status_code` is null when no HTTP answer came (see `error`).',
    tags: ['webhooks'],
    auth: 'user',
    permission: 'manage_webhooks',
    params: webhookParams,
    body: Joi.object({ sample_payload: Joi.object().unknown(true).required() }),
    responses: {
      200: {
        description: 'Test result',
        schema: Joi.object({
          status_code: Joi.number().integer().allow(null),
          response_body: Joi.string().allow(''),
          latency_ms: Joi.number().integer(),
          success: Joi.boolean(),
          error: Joi.string(),
        }),
      },
      404: { description: 'Not found' },
    },
    handler: async (ctx, { params, body }) => {
      const webhook = await requireWebhook(tenantScope(ctx.deps.db, userOf(ctx).tenantId), params.webhook_id);
      ctx.body = toTestResult(await sendTestPayload(ctx, webhook, body.sample_payload));
    },
  });

  api.route<{ webhook_id: string }, PageRequest & { status?: string; event_type?: string; delivery_id?: string }>({
    method: 'get',
    path: '/:webhook_id/deliveries',
    summary: 'Delivery records of a webhook (one per attempt), newest first; kept 30 days',
    tags: ['webhooks'],
    auth: 'user',
    permission: 'view_webhooks',
    params: webhookParams,
    query: Joi.object({
      ...pageQuery,
      status: Joi.string().valid('succeeded', 'failed'),
      event_type: Joi.string().max(100),
      delivery_id: idRef,
    }),
    responses: { 200: { description: 'A page of delivery records', schema: pageOf(deliverySchema) }, 404: { description: 'Not found' } },
    handler: async (ctx, { params, query }) => {
      const scope = tenantScope(ctx.deps.db, userOf(ctx).tenantId);
      const webhook = await requireWebhook(scope, params.webhook_id);
      const q = scope
        .table('webhook_deliveries')
        .leftJoin('outbox_events', function joinEvent() {
          this.on('outbox_events.id', '=', 'webhook_deliveries.event_id').andOn('outbox_events.tenant_id', '=', 'webhook_deliveries.tenant_id');
        })
        .where('webhook_deliveries.webhook_id', webhook.id)
        .select('webhook_deliveries.*', 'outbox_events.data as event_data', 'outbox_events.occurred_at as event_occurred_at')
        .orderBy([
          { column: 'webhook_deliveries.created_at', order: 'desc' },
          { column: 'webhook_deliveries.id', order: 'desc' },
        ]);
      if (query.status) q.where('webhook_deliveries.status', query.status);
      if (query.event_type) q.where('webhook_deliveries.event_type', query.event_type);
      if (query.delivery_id) {
        if (isUuid(query.delivery_id)) q.where('webhook_deliveries.delivery_id', query.delivery_id);
        else q.whereRaw('false');
      }
      ctx.body = await paginate(q, query, toDelivery);
    },
  });

  api.route<{ webhook_id: string; delivery_id: string }>({
    method: 'post',
    path: '/:webhook_id/deliveries/:delivery_id/redeliver',
    summary: 'Send the event of a delivery again, as a new delivery with its own attempts',
    description: 'The new delivery has a new id (webhook-id header); the payload, and its `id` (the event id), are the same.',
    tags: ['webhooks'],
    auth: 'user',
    permission: 'manage_webhooks',
    params: deliveryParams,
    responses: {
      202: { description: 'Redelivery started' },
      404: { description: 'Webhook or delivery not found' },
      409: { description: 'Webhook paused or disabled, or the event is no longer kept' },
    },
    handler: async (ctx, { params }) => {
      const { tenantId } = userOf(ctx);
      const started = await runMutation(ctx, tenantId, actorOf(ctx), async (unit) => {
        const webhook = await requireWebhook(unit.scope, params.webhook_id);
        const original = isUuid(params.delivery_id)
          ? await unit.scope.table('webhook_deliveries').where({ webhook_id: webhook.id, delivery_id: params.delivery_id }).first('event_id')
          : undefined;
        if (!original) throw notFound('delivery');
        requireReceiving(webhook);
        if (!(await unit.scope.table('outbox_events').where('outbox_events.id', original.event_id).first('id'))) {
          throw invalidState('the event of this delivery is no longer kept');
        }
        const input: WebhookDeliveryInput = { tenantId, webhookId: webhook.id, eventId: original.event_id, deliveryId: randomUUID(), redeliveryOf: params.delivery_id };
        unit.audit({
          action: 'webhook.redelivered',
          resourceType: 'webhook',
          resourceId: webhook.id,
          details: { delivery_id: input.deliveryId, redelivery_of: params.delivery_id },
        });
        // Started before the unit commits: if Temporal refuses, nothing is recorded as redelivered.
        await startDeliveries(ctx, [input]);
        return input;
      });
      ctx.status = 202;
      ctx.body = { delivery_id: started.deliveryId, redelivery_of: params.delivery_id, event_id: started.eventId };
    },
  });

  api.route<{ webhook_id: string }, { since: Date }>({
    method: 'post',
    path: '/:webhook_id/recover',
    summary: 'Redeliver every delivery that failed for good since a time',
    description:
      'A delivery counts when its last attempt since `since` failed with no attempt left (attempts exhausted) and it was not redelivered yet. ' +
      `Each gets a new delivery; at most ${MAX_RECOVER} per call (\`truncated\` tells when more remain: call again).`,
    tags: ['webhooks'],
    auth: 'user',
    permission: 'manage_webhooks',
    params: webhookParams,
    query: Joi.object({ since: Joi.date().iso().max('now').required() }),
    responses: { 202: { description: 'Redeliveries started' }, 404: { description: 'Not found' }, 409: { description: 'Webhook paused or disabled' } },
    handler: async (ctx, { params, query }) => {
      const { tenantId } = userOf(ctx);
      const since = new Date(Math.max(query.since.getTime(), Date.now() - DELIVERY_RETENTION_DAYS * DAY_MS));
      const inputs = await runMutation(ctx, tenantId, actorOf(ctx), async (unit) => {
        const webhook = await requireWebhook(unit.scope, params.webhook_id);
        requireReceiving(webhook);
        const rows = await deliveriesFailedForGood(unit.tx, tenantId, webhook.id, since, MAX_RECOVER + 1);
        const found = rows
          .slice(0, MAX_RECOVER)
          .map((row): WebhookDeliveryInput => ({ tenantId, webhookId: webhook.id, eventId: row.event_id, deliveryId: randomUUID(), redeliveryOf: row.delivery_id }));
        unit.audit({ action: 'webhook.recovered', resourceType: 'webhook', resourceId: webhook.id, details: { since: since.toISOString(), deliveries: found.length } });
        await startDeliveries(ctx, found);
        return { found, truncated: rows.length > MAX_RECOVER };
      });
      ctx.status = 202;
      ctx.body = {
        since: since.toISOString(),
        recovered: inputs.found.length,
        truncated: inputs.truncated,
        deliveries: inputs.found.map((i) => ({ delivery_id: i.deliveryId, redelivery_of: i.redeliveryOf, event_id: i.eventId })),
      };
    },
  });

  api.route<{ webhook_id: string }>({
    method: 'get',
    path: '/:webhook_id/analytics',
    summary: 'Delivery metrics of the last 7 days (UTC calendar days, today included)',
    description:
      'Counts are delivery records (attempts). `success_rate_percent` is null without attempts; `average_latency_ms` covers attempts that got an answer or timed out; ' +
      '`top_error_codes` are HTTP statuses, or the failure cause (timeout, connection_error, redirect, refused_destination) when there was none.',
    tags: ['webhooks'],
    auth: 'user',
    permission: 'view_webhooks',
    params: webhookParams,
    responses: { 200: { description: 'Aggregate metrics' }, 404: { description: 'Not found' } },
    handler: async (ctx, { params }) => {
      const { tenantId } = userOf(ctx);
      const webhook = await requireWebhook(tenantScope(ctx.deps.db, tenantId), params.webhook_id);
      ctx.body = await webhookDeliveryAnalytics(ctx.deps.db, tenantId, webhook.id);
    },
  });

  return api;
}
