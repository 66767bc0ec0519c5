/**
 * `/api/v1/whatsapp/webhook`: the WhatsApp Cloud API's callback. Not authenticated by a user
 * token but by the provider's own means: the GET subscription challenge by the verify token of a
 * registered number, each POST by `X-Hub-Signature-256` (HMAC-SHA256 of the raw body with the
 * number's app secret). The tenant is the one of the receiving number (`phone_number_id`).
 * Before the body is read: a signature header of the right form, the client address's budget and
 * the per-process in-flight cap (middleware/inbound-guard.ts; the number is only in the body).
 *
 * Each inbound message is stored with its contact (matched by phone), in the open conversation of
 * the number's active agent with that contact, by receiveInboundMessage (services/inbound-messages.ts),
 * which then hands it to the conversation's workflow for an answer.
 */
import Joi from '../../domain/joi';
import { inboundMessages, InboundWhatsappMessage, isWhatsappPayload } from '../../domain/agents/whatsapp-inbound';
import { authenticatedNumbers, ReceivingNumber, requireKnownVerifyToken } from '../../services/whatsapp-webhook';
import { AppContext } from '../context';
import { AppError } from '../../domain/errors';
import { ApiRouter } from '../route';
import { inboundGuard } from '../middleware/inbound-guard';
import { InboundOutcome, receiveInboundMessage } from '../../services/inbound-messages';

const ACTOR = { type: 'service', id: 'whatsapp-cloud-api' } as const;

function receive(ctx: AppContext, number: ReceivingNumber, message: InboundWhatsappMessage): Promise<InboundOutcome> {
  return receiveInboundMessage(
    { ...ctx.deps, log: ctx.state.log },
    { actor: ACTOR, requestId: ctx.state.requestId },
    {
      channel: 'whatsapp',
      tenantId: number.tenant_id,
      receiver: { id: number.id, status: number.status },
      from: message.fromPhone,
      senderName: message.profileName,
      body: message.body,
      providerMessageId: message.providerMessageId,
      sentAt: message.sentAt,
    },
  );
}

export function whatsappWebhookRoutes(): ApiRouter {
  const api = new ApiRouter('/api/v1/whatsapp/webhook');
  const tags = ['whatsapp webhook'];

  api.route<unknown, { 'hub.mode': string; 'hub.verify_token': string; 'hub.challenge': string }>({
    method: 'get',
    path: '/',
    summary: 'WhatsApp Cloud API subscription challenge',
    description: 'Answers `hub.challenge` as text when `hub.verify_token` is the verify token of a registered number.',
    tags,
    auth: 'none',
    query: Joi.object({
      'hub.mode': Joi.string().valid('subscribe').required(),
      'hub.verify_token': Joi.string().max(256).required(),
      'hub.challenge': Joi.string().max(256).required(),
    }),
    responses: { 200: { description: 'The challenge, as text/plain' }, 403: { description: 'Unknown verify token' } },
    handler: async (ctx, { query }) => {
      await requireKnownVerifyToken(ctx.deps.db, query['hub.verify_token']);
      ctx.type = 'text/plain';
      ctx.body = query['hub.challenge'];
    },
  });

  api.route<unknown, unknown, Record<string, unknown>>({
    method: 'post',
    path: '/',
    summary: 'WhatsApp Cloud API webhook (inbound messages)',
    description: 'Authenticated by X-Hub-Signature-256. Messages are stored once per provider message id.',
    tags,
    auth: 'none',
    // The provider batches several messages and statuses in one call: more room than other
    // anonymous routes, still far below the authenticated megabyte.
    bodyLimit: 256 * 1024,
    providerPayload: true,
    guard: inboundGuard({ signatureHeader: 'x-hub-signature-256', accountOf: () => null }),
    // The Cloud API envelope; what is inside `entry` is read defensively (domain/agents/whatsapp-inbound.ts).
    body: Joi.object({ object: Joi.string().valid('whatsapp_business_account').required(), entry: Joi.array().items(Joi.any()).required() }).unknown(true),
    responses: {
      200: { description: 'Counts of stored, duplicate and unrouted messages', schema: Joi.object({ stored: Joi.number(), duplicates: Joi.number(), unrouted: Joi.number() }) },
      401: { description: 'Signature missing or wrong, or unknown receiving number' },
      422: {
        description:
          'VALIDATION_ERROR: not a WhatsApp Cloud API payload, or (`text.scan_budget`) for a tenant with `pii.auto_redact`, a message that could not be scanned for personal data within 30 s (never stored unredacted)',
      },
      429: {
        description:
          "RATE_LIMITED with Retry-After; `scope` says which share is full: `address` (requests from this address per minute), `capacity` (at once on this API process), `redaction` (with `pii.auto_redact`, this tenant's long messages being scanned for personal data). The provider delivers it again",
      },
      503: {
        description:
          'DEPENDENCY_UNAVAILABLE: PostgreSQL unreachable, or Temporal after the messages were stored (their answers not scheduled): the provider delivers again, each stored once',
      },
    },
    handler: async (ctx, { body }) => {
      if (!isWhatsappPayload(body)) throw new AppError('VALIDATION_ERROR', 'not a WhatsApp Cloud API payload');
      const numbers = await authenticatedNumbers({ db: ctx.deps.db, dataEncryptionKey: ctx.deps.config.secrets.dataEncryptionKey }, body, {
        rawBody: (ctx.request as { rawBody?: string }).rawBody ?? '',
        signature: ctx.get('x-hub-signature-256') || undefined,
      });
      const counts: Record<InboundOutcome, number> = { stored: 0, duplicate: 0, unrouted: 0 };
      for (const message of inboundMessages(body)) counts[await receive(ctx, numbers.get(message.phoneNumberId)!, message)] += 1;
      ctx.body = { stored: counts.stored, duplicates: counts.duplicate, unrouted: counts.unrouted };
    },
  });

  return api;
}
