/**
 * Sending one message through a tenant's own SMTP server (nodemailer). Refusals are results:
 * the server rejecting the credentials (535, EAUTH) or the message for good (other 5xx); anything
 * else (connection, timeout, 4xx) is thrown, so the caller's retry policy handles it.
 */
import { smtpTransport, type SmtpSettings } from './smtp-verify';

export interface OutgoingMail {
  from: string;
  to: string;
  subject: string;
  text: string;
  /** Our own Message-ID (`<id@domain>`): the same on every attempt, so receivers can deduplicate. */
  messageId: string;
  inReplyTo?: string;
  references?: string[];
}

export type SmtpSendResult =
  | { kind: 'sent'; messageId: string }
  | { kind: 'credentials_rejected' }
  | { kind: 'rejected'; reason: string };

const TIMEOUT_MS = 20_000;

export class SmtpTransientError extends Error {
  constructor(reason: string) {
    super(`SMTP delivery failed: ${reason}`);
    this.name = 'SmtpTransientError';
  }
}

export async function sendSmtpMail(settings: SmtpSettings, mail: OutgoingMail): Promise<SmtpSendResult> {
  const transporter = smtpTransport(settings, TIMEOUT_MS);
  try {
    const info = await transporter.sendMail({ ...mail, references: mail.references });
    return { kind: 'sent', messageId: info.messageId ?? mail.messageId };
  } catch (err) {
    // Only codes: the server's text may echo the user name or the recipient.
    const { code, responseCode } = err as { code?: unknown; responseCode?: unknown };
    if (responseCode === 535 || code === 'EAUTH') return { kind: 'credentials_rejected' };
    if (typeof responseCode === 'number' && responseCode >= 500) return { kind: 'rejected', reason: `smtp_${responseCode}` };
    throw new SmtpTransientError(typeof responseCode === 'number' ? `smtp_${responseCode}` : typeof code === 'string' ? code : 'ECONNECTION');
  } finally {
    transporter.close();
  }
}
