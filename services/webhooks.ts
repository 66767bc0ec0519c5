/**
 * Outbound webhooks, without HTTP: CRUD, secret rotation, the signed test call, the delivery log,
 * redeliver and recover, analytics and the ai-config draft. Reads take the tenant's scope,
 * changes a unit of work (db/unit-of-work.ts); the deployment's settings and Temporal come in a
 * small deps object. api/routes/webhooks.ts is the HTTP face.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Db } from '../db/knex';
import {
  deleteWebhookRow,
  deliveriesFailedForGood,
  deliveriesQuery,
  deliveryEventId,
  DeliveryFilter,
  DeliveryListRow,
  findWebhook,
  hasDeliveryLog,
  insertWebhook,
  isActiveUser,
  isEventKept,
  PREVIOUS_SECRET_TTL_MS,
  RECEIVING_STATUSES,
  SECRET_NOT_BOUND,
  signingSecrets,
  updateWebhookRow,
  webhookSecretColumns,
  webhookDeliveryAnalytics,
  webhooksQuery,
  WebhookRow,
  WebhookStatus,
} from '../db/queries/webhooks';
import { tenantScope, type TenantScope } from '../db/tenant-scope';
import { runUnit, type Unit, type UnitContext } from '../db/unit-of-work';
import { aiConfigMessages, suggestionFromModel, suggestWebhookConfig, type WebhookConfigSuggestion } from '../domain/webhooks/ai-config';
import { DELIVERY_RETENTION_DAYS } from '../domain/webhooks/health-rules';
import type { WebhookFilters } from '../domain/webhooks/matching';
import type { HttpAttemptResult } from '../domain/webhooks/outcome';
import type { JsonObject } from '../domain/webhooks/payload';
import { generateSecret, signDelivery } from '../domain/webhooks/signing';
import { CREDENTIAL_BINDINGS, requireCredentialToMove, unboundFields } from '../domain/credentials/destination-binding';
import type { Config } from '../infra/config';
import { llmProviderFrom } from '../infra/llm';
import { checkWebhookUrl, type DestinationPolicy } from '../infra/outbound/destination-guard';
import { postSigned } from '../infra/outbound/safe-http';
import { TenantCapacityError, tenantLimiter, type TenantLimits } from '../infra/tenant-limiter';
import type { TemporalGateway } from '../infra/temporal';
import { startWebhookDeliveries } from '../orchestration/webhooks';
import { callTemporal } from '../orchestration/temporal-call';
import type { WebhookDeliveryInput } from '../workflows/webhook-delivery';
import { AppError, invalidState, notFound, validationError } from '../domain/errors';
import { findOr404 } from '../db/find-or-404';
import { paginate, type Page, type PageRequest } from '../db/pagination';
import { assertWithinPlanLimit, countRows } from '../db/plan-limits';

/** Most deliveries one recover call starts. */
export const MAX_RECOVER = 1_000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** What webhooks need of the deployment: its URL rule, the secrets' key, the language model and Temporal. */
export interface WebhookDeps {
  config: Pick<Config, 'webhooks' | 'secrets' | 'llm'>;
  temporal: TemporalGateway;
}

export interface WebhookFields {
  url: string;
  /** Update only: replace the signing secret (required with a new URL). */
  rotate_secret?: boolean;
  events: string[];
  filters?: WebhookFilters;
  description?: string | null;
  status?: WebhookStatus;
  disable_on_gone?: boolean;
  honour_retry_after?: boolean;
  owner_id?: string;
}

/** A webhook with the secret that signs for it: shown once, on create and rotation. */
export interface WebhookWithSecret {
  row: WebhookRow;
  secret: string;
}

const secretBinding = CREDENTIAL_BINDINGS.webhookSecret;

/**
 * The columns of a new signing secret for `webhook` (as it will be once changed), bound to its URL.
 * The replaced one keeps signing for 24 hours unless the URL moves: it is the old receiver's
 * secret, and signatures under it must not go to another receiver (which could replay them).
 */
function newSecretColumns(deps: WebhookDeps, current: WebhookRow, url: string, secret: string): Record<string, unknown> {
  const keepPrevious = url === current.url && unboundFields(secretBinding, { ...current }).length === 0;
  return {
    ...webhookSecretColumns({ id: current.id, url }, secret, deps.config.secrets.dataEncryptionKey),
    // Same webhook, same encryption context: the stored ciphertext moves as it is.
    previous_secret_encrypted: keepPrevious ? current.secret_encrypted : null,
    previous_secret_expires_at: keepPrevious ? new Date(Date.now() + PREVIOUS_SECRET_TTL_MS) : null,
  };
}

// ---- rules -----------------------------------------------------------------------------------

/** A path id that is not a UUID names no webhook: 404, like another tenant's webhook. */
export function requireWebhook(scope: TenantScope, id: string): Promise<WebhookRow> {
  return findOr404('webhook', id, () => findWebhook(scope, id));
}

const destinationPolicy = (deps: WebhookDeps): DestinationPolicy => ({ allowPrivate: deps.config.webhooks.allowPrivateDestinations });

/** The URL rules of the deployment (https; http to loopback only with the development setting). */
function assertUrlAllowed(deps: WebhookDeps, url: string): void {
  const check = checkWebhookUrl(url, destinationPolicy(deps));
  if (check.kind === 'refused') {
    throw validationError(`invalid body: body.url ${check.reason}`, [{ field: 'body.url', message: check.reason, type: 'url.refused' }]);
  }
}

/** An owner must be an active user of the tenant: someone the alerts can reach. */
async function assertOwner(scope: TenantScope, userId: string): Promise<void> {
  if (!(await isActiveUser(scope, userId))) {
    const message = 'must be an active user of this tenant';
    throw validationError(`invalid body: body.owner_id ${message}`, [{ field: 'body.owner_id', message, type: 'any.invalid' }]);
  }
}

function requireReceiving(webhook: WebhookRow): void {
  if (!RECEIVING_STATUSES.includes(webhook.status)) {
    throw invalidState(`the webhook is ${webhook.status}; set its status to active first`);
  }
}

/**
 * Started with the call deadline and no transaction open (1 000 starts must not hold a pooled
 * connection): Temporal down or late → 503, and the audit row is written only once they started.
 * Starts are idempotent by delivery id.
 */
async function startDeliveries(deps: WebhookDeps, inputs: WebhookDeliveryInput[]): Promise<void> {
  await callTemporal(deps.temporal, 'could not start the deliveries', (client) => startWebhookDeliveries(client, inputs));
}

// ---- reads -----------------------------------------------------------------------------------

export function listWebhooks(scope: TenantScope, status: WebhookStatus | undefined, page: PageRequest): Promise<Page<WebhookRow>> {
  return paginate(webhooksQuery(scope, status), page);
}

/**
 * A webhook's delivery log. A deleted webhook's log stays readable until the delivery sweep has
 * removed its last record (30 days); a webhook with neither is 404.
 */
export async function listDeliveries(scope: TenantScope, webhookId: string, filter: DeliveryFilter, page: PageRequest): Promise<Page<DeliveryListRow>> {
  if (!(await hasDeliveryLog(scope, webhookId))) await requireWebhook(scope, webhookId);
  return paginate(deliveriesQuery(scope, webhookId, filter), page);
}

export async function webhookAnalytics(db: Db, scope: TenantScope, webhookId: string) {
  const webhook = await requireWebhook(scope, webhookId);
  return webhookDeliveryAnalytics(db, scope.tenantId, webhook.id);
}

/** The header that marks a test call (its `webhook-id` starts with `test_` too, inside the Standard Webhooks signature). */
const TEST_HEADER = 'X-Webhook-Test';
/**
 * One tenant's share of this API process's test calls: a test holds an outbound connection for up
 * to the webhook deadline (10 s), so a tenant looping on it holds at most 4 (plus 4 waiting 2 s).
 */
const TEST_CALL_LIMITS: TenantLimits = { maxInFlight: 4, maxWaiting: 4, maxWaitMs: 2_000 };

/** What a test call answered, and the id it was sent under (for the operator's log line). */
export interface WebhookTestOutcome {
  testId: string;
  result: HttpAttemptResult;
}

/**
 * The test call (SPEC.md): `sample` itself is the body (its JSON as given), signed like a
 * delivery under the id `test_<uuid>` with `X-Webhook-Test: true`, POSTed through the same
 * guarded client as deliveries (destination check, deadlines) within the tenant's share of test
 * calls. Nothing is written: no audit record, no delivery record; the route logs and counts it.
 */
export async function testWebhook(scope: TenantScope, deps: WebhookDeps, webhookId: string, sample: JsonObject): Promise<WebhookTestOutcome> {
  const webhook = await requireWebhook(scope, webhookId);
  const testId = `test_${randomUUID()}`;
  const now = new Date();
  const secrets = signingSecrets(webhook, deps.config.secrets.dataEncryptionKey, now);
  if (!secrets) return { testId, result: SECRET_NOT_BOUND };
  const body = JSON.stringify(sample);
  const headers = signDelivery({ secrets, deliveryId: testId, timestamp: Math.floor(now.getTime() / 1000), body });
  const send = () => postSigned({ url: webhook.url, headers: { ...headers, [TEST_HEADER]: 'true' }, body, ...destinationPolicy(deps) });
  try {
    return { testId, result: await tenantLimiter('webhook_tests', TEST_CALL_LIMITS).run(scope.tenantId, send) };
  } catch (err) {
    if (err instanceof TenantCapacityError) {
      throw new AppError('RATE_LIMITED', 'the tenant has its maximum of webhook test calls in flight; retry in a few seconds', { retry_after: 2 });
    }
    throw err;
  }
}

export interface AiConfigDraft {
  engine: string;
  model: string;
  draft: true;
  suggestion: WebhookConfigSuggestion;
  notice?: string;
}

/** A configuration for a use case in words: the model's when one is configured and answers a valid one, the built-in engine's otherwise. */
export async function draftWebhookConfig(deps: WebhookDeps, log: Pick<Logger, 'warn'>, tenantId: string, description: string): Promise<AiConfigDraft> {
  const builtIn: AiConfigDraft = { engine: 'built-in', model: 'built-in', draft: true, suggestion: suggestWebhookConfig(description) };
  const provider = llmProviderFrom(deps.config.llm);
  if (!provider) return builtIn;
  try {
    const answer = await provider.complete({ tenantId, temperature: 0, messages: aiConfigMessages(description) });
    const suggestion = suggestionFromModel(answer.text);
    if (!suggestion) throw new Error('the language model did not answer a valid configuration');
    return { engine: answer.engine, model: answer.model, draft: true, suggestion };
  } catch (err) {
    log.warn({ err: (err as Error).message }, 'language model failed; answering with the built-in suggestion');
    return { ...builtIn, notice: "The configured language model failed or answered an invalid configuration; this suggestion is the built-in engine's." };
  }
}

// ---- changes ---------------------------------------------------------------------------------

/** Creates a webhook owned by `fields.owner_id` or else `creatorId`, within the plan's limit. */
export async function createWebhook(unit: Unit, deps: WebhookDeps, creatorId: string, fields: WebhookFields): Promise<WebhookWithSecret> {
  assertUrlAllowed(deps, fields.url);
  const id = randomUUID();
  const secret = generateSecret();
  const { tenantId } = unit.scope;
  await assertWithinPlanLimit(unit.tx, tenantId, 'webhooks', countRows('webhooks', tenantId));
  if (fields.owner_id !== undefined) await assertOwner(unit.scope, fields.owner_id);
  const row = await insertWebhook(unit.scope, {
    id,
    url: fields.url,
    events: fields.events,
    filters: JSON.stringify(fields.filters ?? {}),
    description: fields.description || null,
    status: fields.status ?? 'active',
    disable_on_gone: fields.disable_on_gone ?? false,
    honour_retry_after: fields.honour_retry_after ?? false,
    owner_user_id: fields.owner_id ?? creatorId,
    ...webhookSecretColumns({ id, url: fields.url }, secret, deps.config.secrets.dataEncryptionKey),
  });
  unit.audit({ action: 'webhook.created', resourceType: 'webhook', resourceId: id, details: { events: fields.events, status: row.status } });
  return { row, secret };
}

/**
 * The fields sent change; a new status ends a failing episode or a disabled state. A new URL needs
 * `rotate_secret: true` (422 CREDENTIAL_REQUIRED otherwise); a rotated secret is answered once.
 */
export async function updateWebhook(unit: Unit, deps: WebhookDeps, id: string, fields: Partial<WebhookFields>): Promise<{ row: WebhookRow; secret?: string }> {
  if (fields.url !== undefined) assertUrlAllowed(deps, fields.url);
  const current = await requireWebhook(unit.scope, id);
  requireCredentialToMove(secretBinding, { ...current }, { ...fields }, { stored: true, credentialGiven: fields.rotate_secret === true });
  const changes: Record<string, unknown> = { updated_at: new Date() };
  const secret = fields.rotate_secret ? generateSecret() : undefined;
  if (secret) Object.assign(changes, newSecretColumns(deps, current, fields.url ?? current.url, secret));
  if (fields.url !== undefined) changes.url = fields.url;
  if (fields.events !== undefined) changes.events = fields.events;
  if (fields.filters !== undefined) changes.filters = JSON.stringify(fields.filters);
  if (fields.description !== undefined) changes.description = fields.description || null;
  if (fields.disable_on_gone !== undefined) changes.disable_on_gone = fields.disable_on_gone;
  if (fields.honour_retry_after !== undefined) changes.honour_retry_after = fields.honour_retry_after;
  if (fields.owner_id !== undefined) {
    await assertOwner(unit.scope, fields.owner_id);
    changes.owner_user_id = fields.owner_id;
  }
  if (fields.status !== undefined && fields.status !== current.status) {
    changes.status = fields.status;
    changes.failing_since = null;
    changes.disabled_reason = fields.status === 'disabled' ? 'user' : null;
  }
  const row = await updateWebhookRow(unit.scope, current.id, changes);
  unit.audit({ action: 'webhook.updated', resourceType: 'webhook', resourceId: current.id, details: { fields: Object.keys(fields), status: row.status } });
  return { row, secret };
}

/** The webhook; deliveries in progress stop at their next attempt, its delivery log stays its 30 days. */
export async function deleteWebhook(unit: Unit, id: string): Promise<void> {
  const webhook = await requireWebhook(unit.scope, id);
  await deleteWebhookRow(unit.scope, webhook.id);
  unit.audit({ action: 'webhook.deleted', resourceType: 'webhook', resourceId: webhook.id });
}

/** A new signing secret; the previous one keeps signing beside it for 24 hours. */
export async function rotateWebhookSecret(unit: Unit, deps: WebhookDeps, id: string): Promise<WebhookWithSecret> {
  const secret = generateSecret();
  const current = await requireWebhook(unit.scope, id);
  const row = await updateWebhookRow(unit.scope, current.id, { ...newSecretColumns(deps, current, current.url, secret), updated_at: new Date() });
  unit.audit({ action: 'webhook.secret_rotated', resourceType: 'webhook', resourceId: current.id });
  return { row, secret };
}

/** The event of a delivery sent again as a new delivery (new id, same payload): started first, then audited. */
export async function redeliver(deps: WebhookDeps & { db: Db }, context: UnitContext, webhookId: string, deliveryId: string): Promise<WebhookDeliveryInput> {
  const scope = tenantScope(deps.db, context.tenantId);
  const webhook = await requireWebhook(scope, webhookId);
  const eventId = await deliveryEventId(scope, webhook.id, deliveryId);
  if (!eventId) throw notFound('delivery');
  requireReceiving(webhook);
  if (!(await isEventKept(scope, eventId))) throw invalidState('the event of this delivery is no longer kept');
  const input: WebhookDeliveryInput = { tenantId: context.tenantId, webhookId: webhook.id, eventId, deliveryId: randomUUID(), redeliveryOf: deliveryId };
  await startDeliveries(deps, [input]);
  await runUnit(deps.db, context, async (unit) => {
    unit.audit({
      action: 'webhook.redelivered',
      resourceType: 'webhook',
      resourceId: webhook.id,
      details: { delivery_id: input.deliveryId, redelivery_of: deliveryId },
    });
  });
  return input;
}

export interface Recovery {
  /** `since`, moved up to the oldest delivery record still kept. */
  since: Date;
  found: WebhookDeliveryInput[];
  truncated: boolean;
}

/** Every delivery that failed for good since a time, redelivered (at most MAX_RECOVER a call): started first, then audited. */
export async function recoverDeliveries(deps: WebhookDeps & { db: Db }, context: UnitContext, webhookId: string, requestedSince: Date): Promise<Recovery> {
  const since = new Date(Math.max(requestedSince.getTime(), Date.now() - DELIVERY_RETENTION_DAYS * DAY_MS));
  const { tenantId } = context;
  const webhook = await requireWebhook(tenantScope(deps.db, tenantId), webhookId);
  requireReceiving(webhook);
  const rows = await deliveriesFailedForGood(deps.db, tenantId, webhook.id, since, MAX_RECOVER + 1);
  const found = rows
    .slice(0, MAX_RECOVER)
    .map((row): WebhookDeliveryInput => ({ tenantId, webhookId: webhook.id, eventId: row.event_id, deliveryId: randomUUID(), redeliveryOf: row.delivery_id }));
  await startDeliveries(deps, found);
  await runUnit(deps.db, context, async (unit) => {
    unit.audit({ action: 'webhook.recovered', resourceType: 'webhook', resourceId: webhook.id, details: { since: since.toISOString(), deliveries: found.length } });
  });
  return { since, found, truncated: rows.length > MAX_RECOVER };
}
