/**
 * `POST /api/v1/email/inbound/{account_id}`: inbound e-mail for an email account, as the raw MIME
 * message (`Content-Type: message/rfc822`) the receiving MTA or provider got. Not authenticated by
 * a user token but by the sender's own means, like the WhatsApp webhook: `X-Inbound-Signature:
 * sha256=<hex>`, the HMAC-SHA256 of the raw bytes under the account's inbound secret
 * (services/email-inbound-secret.ts). Unknown account, no secret or a bad signature: 401, nothing stored.
 * Anyone can call it, so before a byte of the body is read the signature's form, the client
 * address's budget and the in-flight caps (per account, per process) are checked
 * (middleware/inbound-guard.ts), and the signature is computed while the body streams in.
 *
 * The body may come gzip or deflate encoded (api/request-body.ts: the 10 MiB bound holds after
 * decoding, a compression bomb is refused); the signature covers the decoded bytes.
 * The message is parsed with mailparser in a bounded worker thread (infra/inbound-mail.ts: parts,
 * header bytes, decoded bytes, time, heap, the tenant's share); a message beyond a bound is a 4xx
 * naming it. The contact is the From address, the body the text part
 * (or the text of the HTML part), the redelivery key the Message-ID (a SHA-256 of the raw bytes
 * when there is none), its time when it arrived here. receiveInboundMessage (services/inbound-messages.ts) stores and routes it.
 * Automatic, bulk and list mail, and mail whose sender the receiving MTA did not authenticate for
 * its From domain (its Authentication-Results: a DMARC pass or an aligned SPF or DKIM pass), is
 * stored with the reason the agent will not answer it (domain/agents/auto-reply-policy.ts).
 */
import Joi from '../../domain/joi';
import { sha256SignatureCheck } from '../../domain/agents/provider-signature';
import { inboundGuard } from '../middleware/inbound-guard';
import { receivingAccount } from '../../services/email-inbound';
import { AppContext } from '../context';
import { AppError, DomainErrorCode, unauthenticated } from '../../domain/errors';
import { ApiRouter } from '../route';
import { receiveInboundMessage } from '../../services/inbound-messages';
import { idRef } from '../validation';
import { headersOfLines, noReplyReason } from '../../domain/agents/auto-reply-policy';
import { MailRefused, MailRefusal, ParsedMail, ProcessBusyError } from '../../infra/inbound-mail';
import { TenantCapacityError } from '../../infra/tenant-limiter';
import { addToWorkContext } from '../../infra/work-context';
import { readRequestBody } from '../request-body';

/** Raw messages up to 10 MiB (attachments are not kept, but they arrive with the text). */
export const MAX_INBOUND_EMAIL_BYTES = 10 * 1024 * 1024;
const ACTOR = { type: 'service', id: 'inbound-email' } as const;

/** The raw body (decoded), its signature checked as it streams in (401 when it does not verify). */
async function readSignedBody(ctx: AppContext, signature: string, secret: string): Promise<Buffer> {
  const check = sha256SignatureCheck(signature, secret);
  const raw = await readRequestBody(ctx, MAX_INBOUND_EMAIL_BYTES, (chunk) => check.update(chunk));
  if (!check.matches()) throw unauthenticated('X-Inbound-Signature does not verify');
  return raw;
}

/** Each bound of a parse as the sender is told it: a size is 413, a structure 422, a defect 400. */
const REFUSED: Record<MailRefusal, { code: DomainErrorCode; status: number }> = {
  too_many_parts: { code: 'MESSAGE_TOO_MANY_PARTS', status: 422 },
  headers_too_large: { code: 'MESSAGE_HEADERS_TOO_LARGE', status: 413 },
  decoded_too_large: { code: 'MESSAGE_DECODED_TOO_LARGE', status: 413 },
  too_complex: { code: 'MESSAGE_TOO_COMPLEX', status: 422 },
  malformed: { code: 'MESSAGE_MALFORMED', status: 400 },
};

async function parseMessage(ctx: AppContext, tenantId: string, raw: Buffer): Promise<ParsedMail> {
  try {
    return await ctx.deps.mailParser.parse(tenantId, raw);
  } catch (err) {
    if (err instanceof MailRefused) throw new AppError(REFUSED[err.refusal].code, err.message, { reason: err.refusal }, REFUSED[err.refusal].status);
    // The receiving tenant's share of the parsing threads is taken: its mail server retries later.
    if (err instanceof TenantCapacityError) throw new AppError('RATE_LIMITED', 'too much inbound mail of this tenant is being parsed at once', { retry_after: 1, scope: 'tenant' });
    if (err instanceof ProcessBusyError) throw new AppError('RATE_LIMITED', 'too much inbound mail is being parsed on this API process', { retry_after: 1, scope: 'capacity' });
    throw err;
  }
}

export function emailInboundRoutes(): ApiRouter {
  const api = new ApiRouter('/api/v1/email/inbound');

  api.route<{ account_id: string }>({
    method: 'post',
    path: '/:account_id',
    summary: 'Inbound e-mail (raw MIME) for an email account',
    description:
      'Body: the raw message, Content-Type message/rfc822. Authenticated by X-Inbound-Signature: sha256=<hex HMAC-SHA256 of the body under the account inbound secret>. Stored once per Message-ID. Not answered (the message shows `no_reply_reason`): Auto-Submitted other than "no", X-Auto-Response-Suppress, Precedence bulk/list/junk, List-Id or List-Unsubscribe, mailer-daemon/postmaster/no-reply senders or an empty Return-Path, spf=fail, dkim=fail (without a passing signature) or dmarc=fail in Authentication-Results, a sender the receiving MTA did not authenticate for the From domain (`sender_unauthenticated`: answered only with dmarc=pass, or spf=pass or dkim=pass of a domain aligned with the From domain, in the topmost Authentication-Results header), and a contact past 10 automatic replies in an hour.',
    tags: ['email inbound'],
    auth: 'none',
    params: Joi.object({ account_id: idRef.required() }),
    guard: inboundGuard({ signatureHeader: 'x-inbound-signature', accountOf: (ctx) => ctx.params.account_id! }),
    rawBody: { contentType: 'message/rfc822', description: 'The raw MIME message, at most 10 MiB' },
    responses: {
      200: {
        description: 'Counts of stored, duplicate and unrouted messages (one message: one of them is 1)',
        schema: Joi.object({ stored: Joi.number(), duplicates: Joi.number(), unrouted: Joi.number() }),
      },
      400: { description: 'Not a message with a From address, MESSAGE_MALFORMED, or a Content-Encoding that does not decode' },
      401: { description: 'Signature missing or wrong, or unknown account' },
      413: {
        description:
          'Larger than 10 MiB (after a Content-Encoding is decoded; COMPRESSION_RATIO_TOO_HIGH past 100x), MESSAGE_HEADERS_TOO_LARGE (a part header over 100 KiB) or MESSAGE_DECODED_TOO_LARGE (parts decoding to over 16 MiB)',
      },
      415: { description: 'Not message/rfc822, or a Content-Encoding other than gzip or deflate' },
      422: {
        description:
          'MESSAGE_TOO_MANY_PARTS (over 500 MIME parts), MESSAGE_TOO_COMPLEX (not parsed within 10 s and 96 MiB of heap), or VALIDATION_ERROR (`text.scan_budget`): for a tenant with `pii.auto_redact`, a text that could not be scanned for personal data within 30 s (never stored unredacted)',
      },
      429: {
        description:
          "RATE_LIMITED with Retry-After; `scope` says which share is full: `address` (requests from this address per minute), `account` (at once for this account), `capacity` (at once on this API process, or its parse threads), `tenant` (this tenant's mail being parsed), `redaction` (with `pii.auto_redact`, this tenant's long texts being scanned for personal data). Deliver it again later",
      },
      503: {
        description: 'DEPENDENCY_UNAVAILABLE: PostgreSQL unreachable, or Temporal after the message was stored (its answer not scheduled): deliver it again, it is stored once',
      },
    },
    handler: async (ctx, { params }) => {
      if (!ctx.is('message/rfc822')) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'send the raw message as message/rfc822');
      // Refused before a byte of the body is read, so anonymous senders cannot make the API buffer 10 MiB at will.
      const signature = ctx.get('x-inbound-signature');
      const { account, secret } = await receivingAccount({ db: ctx.deps.db, dataEncryptionKey: ctx.deps.config.secrets.dataEncryptionKey }, params.account_id, signature);
      addToWorkContext({ tenant_id: account.tenant_id });
      const raw = await readSignedBody(ctx, signature, secret);
      // The message's memory moves to the parsing thread: `raw` is not read after this.
      const mail = await parseMessage(ctx, account.tenant_id, raw);
      const sender = mail.from;
      if (!sender?.address) throw new AppError('BAD_REQUEST', 'the message has no From address');
      const body = mail.text.trim() || '[empty message]';
      const outcome = await receiveInboundMessage(
        { ...ctx.deps, log: ctx.state.log },
        { actor: ACTOR, requestId: ctx.state.requestId },
        {
          channel: 'email',
          tenantId: account.tenant_id,
          receiver: { id: account.id, status: account.status },
          from: sender.address.toLowerCase(),
          senderName: sender.name || null,
          body,
          subject: mail.subject,
          providerMessageId: mail.messageId ?? `sha256:${mail.sha256}`,
          // Stored and shown, never answered: automatic, bulk or unauthenticated mail (no loops, no backscatter).
          noReplyReason: noReplyReason(headersOfLines(mail.headerLines), sender.address),
          // Received now: the Date header is the sender's claim.
          sentAt: new Date(),
        },
      );
      ctx.body = { stored: outcome === 'stored' ? 1 : 0, duplicates: outcome === 'duplicate' ? 1 : 0, unrouted: outcome === 'unrouted' ? 1 : 0 };
    },
  });

  return api;
}
