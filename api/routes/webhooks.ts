/**
 * `/api/v1/integrations/webhooks`: CRUD of webhooks, secret rotation, the signed test call, the
 * delivery log with redeliver and recover, analytics, and the ai-config draft. Deliveries
 * themselves are started by the outbox dispatcher (workers/webhook-dispatcher.ts) and run as
 * `webhook-delivery/<tenant>/<delivery>` workflows.
 */
import Joi from '../../domain/joi';
import { temporalUnavailableResponse } from '../../orchestration/temporal-call';
import { DeliveryListRow, WebhookRow, WebhookStatus } from '../../db/queries/webhooks';
import { MAX_DESCRIPTION_LENGTH } from '../../domain/webhooks/ai-config';
import { isValidEventPattern, validateFilters } from '../../domain/webhooks/matching';
import type { HttpAttemptResult } from '../../domain/webhooks/outcome';
import { JsonObject } from '../../domain/webhooks/payload';
import type { BreakerState } from '../../domain/webhooks/circuit-breaker';
import { BREAKER_STATES, findBreaker } from '../../db/queries/webhook-breakers';
import { parkedSummary, type ParkedSummary } from '../../db/queries/webhook-parking';
import {
  createWebhook,
  deleteWebhook,
  draftWebhookConfig,
  listDeliveries,
  listWebhooks,
  MAX_RECOVER,
  recoverDeliveries,
  redeliver,
  requireWebhook,
  rotateWebhookSecret,
  testWebhook,
  updateWebhook,
  webhookAnalytics,
  WebhookFields,
} from '../../services/webhooks';
import { tenantScopeOf, userOf } from '../context';
import { unitContextOf } from '../mutation';
import { inUserUnit, resourceRoutes } from '../resource-routes';
import { mapPage, PageRequest } from '../../db/pagination';
import { pageQuery, pageOf } from '../pagination';
import { ApiRouter } from '../route';
import { idRef } from '../validation';
import { isoTime } from '../../domain/time';

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
  owner_id: idRef.description("User who receives the webhook's alerts (the failing alert goes to the tenant's admins too); defaults to its creator"),
};
const createBody = Joi.object({ ...webhookFields, url: webhookFields.url.required(), events: webhookFields.events.required() });
const updateBody = Joi.object({
  ...webhookFields,
  rotate_secret: Joi.boolean().description('Replace the signing secret (answered once); required with a new url'),
}).min(1);
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
  owner_id: Joi.string().allow(null).description('Receives the alerts, with the admins for the failing one; null when that user was deleted (the admins receive them)'),
  previous_secret_expires_at: Joi.string().isoDate().allow(null).description('While set, the previous secret also signs'),
  created_at: Joi.string().isoDate(),
  updated_at: Joi.string().isoDate(),
});
/** GET of one webhook: with its endpoint's circuit breaker (domain/webhooks/circuit-breaker.ts). */
const webhookWithBreakerSchema = webhookSchema.keys({
  circuit_breaker: Joi.object({
    state: Joi.string()
      .valid(...BREAKER_STATES)
      .description('closed: attempts are sent; open: after consecutive timeouts or 5xx, nothing is sent (attempts are deferred, not lost); half_open: one probe is sent'),
    since: Joi.string().isoDate().description('When the circuit entered this state (closed and never opened: when the webhook was created)'),
    consecutive_failures: Joi.number().integer().min(0).description('Timeouts and 5xx answers in a row, up to the last success'),
  }),
  parked_deliveries: Joi.object({
    count: Joi.number().integer().min(0).description("This webhook's deliveries parked while its circuit is open: not attempted yet, sent in event order once a probe succeeds"),
    oldest_parked_at: Joi.string().isoDate().allow(null).description('When the longest-waiting of them was parked; null when none is'),
    tenant_count: Joi.number().integer().min(0).description("The tenant's parked deliveries, all its webhooks together"),
    tenant_limit: Joi.number()
      .integer()
      .min(1)
      .description(
        'At most this many are parked for the tenant; past it a delivery is not parked but recorded failed (failure_cause parked_backlog_full), to send again with recover',
      ),
  }),
});
const withSecret = webhookSchema.keys({ secret: Joi.string().description('Shown once: store it now') });
const deliverySchema = Joi.object({
  id: Joi.string().description('Id of this attempt record'),
  delivery_id: Joi.string().description('Id of the delivery (webhook-id header), the same for its attempts'),
  webhook_id: Joi.string(),
  event_id: Joi.string(),
  event_type: Joi.string(),
  payload: Joi.object().unknown(true).allow(null).description('The canonical payload sent, kept on the record for its 30 days (also once the outbox row or the webhook is gone)'),
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

function toParkedDeliveries(parked: ParkedSummary, tenantLimit: number) {
  return { count: parked.count, oldest_parked_at: isoTime(parked.oldestParkedAt), tenant_count: parked.tenantCount, tenant_limit: tenantLimit };
}

function toCircuitBreaker(breaker: BreakerState | null, webhook: WebhookRow) {
  return {
    state: breaker?.state ?? 'closed',
    since: isoTime(breaker?.since ?? webhook.created_at),
    consecutive_failures: breaker?.consecutiveFailures ?? 0,
  };
}

/** The payload is the one stored on the record: what was sent, whatever became of the outbox row since. */
function toDelivery(row: DeliveryListRow) {
  return {
    id: row.id,
    delivery_id: row.delivery_id,
    webhook_id: row.webhook_id,
    event_id: row.event_id,
    event_type: row.event_type,
    payload: row.payload,
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

/** Where a request's reads happen: its tenant's scope. */

function toTestResult(result: HttpAttemptResult) {
  switch (result.kind) {
    case 'response':
      return { status_code: result.status, response_body: result.body, latency_ms: result.latencyMs, success: result.status >= 200 && result.status <= 299 };
    case 'timeout':
      return {
        status_code: null,
        response_body: '',
        latency_ms: result.latencyMs,
        success: false,
        error: result.phase === 'connect' ? 'timeout: no connection within 3 s' : 'timeout: no complete answer within 10 s',
      };
    case 'connection_error':
      return { status_code: null, response_body: '', latency_ms: result.latencyMs, success: false, error: `connection_error: ${result.message}` };
    case 'refused_destination':
      return { status_code: null, response_body: '', latency_ms: 0, success: false, error: `refused_destination: ${result.reason}` };
  }
}

/** The label of a test call's result in `webhook_tests_total`: a bounded set, never the destination's words. */
function testResultLabel(result: HttpAttemptResult): string {
  if (result.kind !== 'response') return result.kind;
  return result.status >= 200 && result.status <= 299 ? 'success' : 'http_error';
}

// ---- routes ----------------------------------------------------------------------------------

export function webhookRoutes(): ApiRouter {
  const api = new ApiRouter('/api/v1/integrations/webhooks');
  const webhook = resourceRoutes(api, {
    path: '/:webhook_id',
    tags: ['webhooks'],
    view: 'view_webhooks',
    manage: 'manage_webhooks',
    schema: webhookSchema,
    find: requireWebhook,
    present: (row) => toWebhook(row),
  });

  webhook.list<{ status?: WebhookStatus }>({
    summary: 'List webhooks',
    found: 'A page of webhooks',
    query: { status: Joi.string().valid('active', 'paused', 'failing', 'disabled') },
    load: (scope, query) => listWebhooks(scope, query.status, query),
  });

  api.route<unknown, unknown, WebhookFields>({
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
      const { userId } = userOf(ctx);
      const created = await inUserUnit(ctx, (unit) => createWebhook(unit, ctx.deps, userId, body));
      ctx.status = 201;
      ctx.body = { ...toWebhook(created.row), secret: created.secret };
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
      ctx.body = await draftWebhookConfig(ctx.deps, ctx.state.log, userOf(ctx).tenantId, body.description);
    },
  });

  webhook.get(
    {
      summary: 'Get a webhook, with the state of its circuit breaker and its parked deliveries',
      description:
        '`circuit_breaker` says whether deliveries are being sent to the endpoint: after consecutive timeouts or 5xx answers the circuit opens and ' +
        'attempts wait (they are not counted as failed attempts of the retry schedule) until one probe succeeds. `parked_deliveries` counts those ' +
        'waiting deliveries, and the oldest, against the tenant-wide limit.',
      found: 'Webhook',
      schema: webhookWithBreakerSchema,
    },
    async (row, scope, ctx) => {
      const [breaker, parked] = await Promise.all([findBreaker(scope, row.id), parkedSummary(scope, row.id)]);
      return {
        ...toWebhook(row),
        circuit_breaker: toCircuitBreaker(breaker, row),
        parked_deliveries: toParkedDeliveries(parked, ctx.deps.config.outbound.webhookParkedPerTenant),
      };
    },
  );
  // Not webhook.update: the answer carries the new secret when one was issued.
  api.route<{ webhook_id: string }, unknown, Partial<WebhookFields>>({
    method: 'put',
    path: '/:webhook_id',
    summary: 'Update the fields sent; omitted fields keep their values',
    description:
      'Setting `status` to `active` also ends a failing episode or a disabled state. `rotate_secret: true` replaces the signing secret ' +
      '(answered once, in `secret`); a new `url` requires it (422 CREDENTIAL_REQUIRED, field body.rotate_secret), and then the previous secret ' +
      "stops signing at once: signatures under the old receiver's secret never go to another URL.",
    tags: ['webhooks'],
    auth: 'user',
    permission: 'manage_webhooks',
    params: Joi.object({ webhook_id: idRef.required() }),
    body: updateBody,
    responses: {
      200: { description: 'Updated webhook; with `secret` when it was rotated', schema: withSecret },
      404: { description: 'Not found' },
      422: { description: 'Invalid field, or CREDENTIAL_REQUIRED (a new url without rotate_secret)' },
    },
    handler: async (ctx, { params, body }) => {
      const { row, secret } = await inUserUnit(ctx, (unit) => updateWebhook(unit, ctx.deps, params.webhook_id, body));
      ctx.body = { ...toWebhook(row), ...(secret ? { secret } : {}) };
    },
  });
  webhook.remove({ summary: 'Delete a webhook; deliveries in progress stop at their next attempt, its delivery log stays readable for its 30 days' }, (ctx, id) =>
    inUserUnit(ctx, (unit) => deleteWebhook(unit, id)),
  );

  webhook.route({
    method: 'post',
    sub: 'rotate-secret',
    summary: 'Replace the signing secret; the previous one keeps signing beside it for 24 hours',
    description: 'The new secret is shown this once. Until `previous_secret_expires_at`, deliveries carry both signatures, the new one first.',
    access: 'manage',
    responses: { 200: { description: 'Webhook with its new secret', schema: withSecret } },
    handler: async (ctx, { params }) => {
      const rotated = await inUserUnit(ctx, (unit) => rotateWebhookSecret(unit, ctx.deps, params.webhook_id));
      ctx.body = { ...toWebhook(rotated.row), secret: rotated.secret };
    },
  });

  webhook.route<Record<string, string>, unknown, { sample_payload: Record<string, unknown> }>({
    method: 'post',
    sub: 'test',
    summary: 'Send sample_payload to the webhook, signed like a delivery, and answer what the destination said',
    description:
      'The body sent is `sample_payload` itself (its JSON), signed with the current secret(s) like every delivery, under the delivery id ' +
      '`test_<uuid>` (the `webhook-id` and `X-Webhook-Id` headers) and with the header `X-Webhook-Test: true`. Nothing is recorded: no delivery ' +
      'record, no audit record, no workflow. The destination check and the deadlines of deliveries apply; a tenant has at most 4 test calls in flight ' +
      'per API process (4 more wait up to 2 s, then 429). `status_code` is null when no HTTP answer came (see `error`).',
    access: 'manage',
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
      429: { description: 'Rate limit of the tenant plan exceeded, or the tenant has its maximum of test calls in flight' },
    },
    handler: async (ctx, { params, body }) => {
      const { testId, result } = await testWebhook(tenantScopeOf(ctx), ctx.deps, params.webhook_id, body.sample_payload as JsonObject);
      const answer = toTestResult(result);
      const outcome = testResultLabel(result);
      ctx.deps.metrics.webhookTests.inc({ result: outcome });
      ctx.state.log.info({ webhook_id: params.webhook_id, test_id: testId, result: outcome, status_code: answer.status_code, latency_ms: answer.latency_ms }, 'webhook test call');
      ctx.body = answer;
    },
  });

  webhook.route<Record<string, string>, PageRequest & { status?: string; event_type?: string; delivery_id?: string }>({
    method: 'get',
    sub: 'deliveries',
    summary: 'Delivery records of a webhook (one per attempt, with the payload sent), newest first; kept 30 days, also after the webhook was deleted',
    access: 'view',
    query: Joi.object({
      ...pageQuery,
      status: Joi.string().valid('succeeded', 'failed'),
      event_type: Joi.string().max(100),
      delivery_id: idRef,
    }),
    responses: { 200: { description: 'A page of delivery records', schema: pageOf(deliverySchema) } },
    handler: async (ctx, { params, query }) => {
      ctx.body = mapPage(await listDeliveries(tenantScopeOf(ctx), params.webhook_id, query, query), toDelivery);
    },
  });

  webhook.route({
    method: 'post',
    sub: 'deliveries/:delivery_id/redeliver',
    summary: 'Send the event of a delivery again, as a new delivery with its own attempts',
    description: 'The new delivery has a new id (webhook-id header); the payload, and its `id` (the event id), are the same.',
    access: 'manage',
    params: deliveryParams,
    responses: {
      202: { description: 'Redelivery started' },
      404: { description: 'Webhook or delivery not found' },
      409: { description: 'Webhook paused or disabled, or the event is no longer kept' },
      503: temporalUnavailableResponse('deliveries that did start run; none is audited'),
    },
    handler: async (ctx, { params }) => {
      const started = await redeliver(ctx.deps, unitContextOf(ctx, userOf(ctx).tenantId), params.webhook_id, params.delivery_id);
      ctx.status = 202;
      ctx.body = { delivery_id: started.deliveryId, redelivery_of: params.delivery_id, event_id: started.eventId };
    },
  });

  webhook.route<Record<string, string>, { since: Date }>({
    method: 'post',
    sub: 'recover',
    summary: 'Redeliver every delivery that failed for good since a time',
    description:
      'A delivery counts when its last attempt since `since` failed with no attempt left (attempts exhausted) and it was not redelivered yet. ' +
      `Each gets a new delivery; at most ${MAX_RECOVER} per call (\`truncated\` tells when more remain: call again).`,
    access: 'manage',
    query: Joi.object({ since: Joi.date().iso().max('now').required() }),
    responses: {
      202: { description: 'Redeliveries started' },
      409: { description: 'Webhook paused or disabled' },
      503: temporalUnavailableResponse('deliveries that did start run; none is audited'),
    },
    handler: async (ctx, { params, query }) => {
      const recovery = await recoverDeliveries(ctx.deps, unitContextOf(ctx, userOf(ctx).tenantId), params.webhook_id, query.since);
      ctx.status = 202;
      ctx.body = {
        since: recovery.since.toISOString(),
        recovered: recovery.found.length,
        truncated: recovery.truncated,
        deliveries: recovery.found.map((i) => ({ delivery_id: i.deliveryId, redelivery_of: i.redeliveryOf, event_id: i.eventId })),
      };
    },
  });

  webhook.route({
    method: 'get',
    sub: 'analytics',
    summary: 'Delivery metrics of the last 7 days (UTC calendar days, today included)',
    description:
      'Counts are delivery records (attempts). `success_rate_percent` is null without attempts; `average_latency_ms` covers attempts that got an answer or timed out; ' +
      '`top_error_codes` are HTTP statuses, or the failure cause (timeout, connection_error, redirect, refused_destination) when there was none.',
    access: 'view',
    responses: { 200: { description: 'Aggregate metrics' } },
    handler: async (ctx, { params }) => {
      ctx.body = await webhookAnalytics(ctx.deps.db, tenantScopeOf(ctx), params.webhook_id);
    },
  });

  return api;
}
