/**
 * The channels' provider clients for one outbound message. Every ending the caller must act on is
 * a result; transient failures (network, timeouts, 408/429/5xx, SMTP 4xx) are thrown so the
 * activity's retry policy tries again.
 *   - WhatsApp Cloud API: `POST {base}/{phone_number_id}/messages`, Bearer access token.
 *   - E-mail: the account's own SMTP server (infra/smtp-send.ts).
 * A credentials rejection (HTTP 401/403, SMTP 535) is `credentials_rejected`; any other
 * permanent refusal (4xx, SMTP 5xx) is `rejected`.
 */
import { sendSmtpMail, OutgoingMail } from '../infra/smtp-send';
import type { SmtpSettings } from '../infra/smtp-verify';
import { checkSmtpDestination } from '../infra/outbound/smtp-destination';
import { withoutTrailingSlashes } from '../domain/urls';

export type ChannelSendResult = { kind: 'sent'; providerMessageId: string } | { kind: 'credentials_rejected' } | { kind: 'rejected'; reason: string };

export class TransientDeliveryError extends Error {
  constructor(reason: string) {
    super(`delivery failed, will retry: ${reason}`);
    this.name = 'TransientDeliveryError';
  }
}

const WHATSAPP_TIMEOUT_MS = 15_000;

export async function sendWhatsappText(input: {
  apiBaseUrl: string;
  phoneNumberId: string;
  accessToken: string;
  /** E.164 with the leading `+`. */
  to: string;
  body: string;
}): Promise<ChannelSendResult> {
  const url = `${withoutTrailingSlashes(input.apiBaseUrl)}/${encodeURIComponent(input.phoneNumberId)}/messages`;
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${input.accessToken}` },
      body: JSON.stringify({
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to: input.to.replace(/^\+/, ''),
        type: 'text',
        text: { preview_url: false, body: input.body },
      }),
      redirect: 'manual',
      signal: AbortSignal.timeout(WHATSAPP_TIMEOUT_MS),
    });
  } catch (err) {
    throw new TransientDeliveryError((err as Error).name);
  }
  // Only the status is kept: the provider's body may echo the recipient.
  if (res.status === 401 || res.status === 403) return { kind: 'credentials_rejected' };
  if (res.status === 408 || res.status === 429 || res.status >= 500) throw new TransientDeliveryError(`http_${res.status}`);
  if (res.status < 200 || res.status >= 300) return { kind: 'rejected', reason: `http_${res.status}` };
  const body = (await res.json().catch(() => null)) as { messages?: { id?: unknown }[] } | null;
  const id = body?.messages?.[0]?.id;
  if (typeof id !== 'string') return { kind: 'rejected', reason: 'no_message_id' };
  return { kind: 'sent', providerMessageId: id };
}

export async function sendEmail(settings: SmtpSettings, allowPrivate: boolean, mail: OutgoingMail): Promise<ChannelSendResult> {
  const destination = await checkSmtpDestination(settings.host, settings.port, allowPrivate);
  if (destination.kind === 'refused') return { kind: 'rejected', reason: 'refused_destination' };
  if (destination.kind === 'unresolved') throw new TransientDeliveryError('EDNS');
  const result = await sendSmtpMail({ ...settings, host: destination.address, servername: settings.host, requireTls: !allowPrivate }, mail);
  return result.kind === 'sent' ? { kind: 'sent', providerMessageId: result.messageId } : result;
}
