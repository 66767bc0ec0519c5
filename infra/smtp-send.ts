/**
 * Sending one message through a tenant's own SMTP server (nodemailer). Refusals are results:
 * the server rejecting the credentials (535, EAUTH) or the message for good (other 5xx); anything
 * else (connection, timeout, 4xx) is thrown, so the caller's retry policy handles it.
 */
import { ApplicationFailure } from '@temporalio/common';
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

export type SmtpSendResult = { kind: 'sent'; messageId: string } | { kind: 'credentials_rejected' } | { kind: 'rejected'; reason: string };

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
    const failure = classifySmtpError(err);
    if (failure.kind === 'transient') throw new SmtpTransientError(failure.reason);
    return failure.kind === 'rejected' ? { kind: 'rejected', reason: failure.reason } : { kind: 'credentials_rejected' };
  } finally {
    transporter.close();
  }
}

/**
 * What an activity may say about a failed send (issue 23): the SMTP code or the error code, never
 * the server's text, which echoes recipients ("550 <someone@example.com>: no such user") and
 * would otherwise land in the workflow's failure, in history, and in our rows. A permanent
 * refusal (5xx other than 535, which an operator fixes by correcting the credentials) is not
 * retried.
 */
export function scrubbedMailFailure(err: unknown): ApplicationFailure {
  const failure = classifySmtpError(err);
  if (failure.kind === 'rejected') return ApplicationFailure.nonRetryable(`SMTP delivery refused: ${failure.reason}`, 'SmtpRejected');
  return ApplicationFailure.retryable(`SMTP delivery failed: ${failure.reason}`, 'SmtpTransient');
}

/**
 * What a nodemailer error says, by its codes only: the server's text may echo the user name or
 * the recipient. 535 / EAUTH: the credentials; another 5xx: a permanent refusal; the rest
 * (connection, time-out, 4xx): transient.
 */
function classifySmtpError(err: unknown): { kind: 'credentials_rejected' | 'rejected' | 'transient'; reason: string } {
  const { code, responseCode } = (err ?? {}) as { code?: unknown; responseCode?: unknown };
  const reason = typeof responseCode === 'number' ? `smtp_${responseCode}` : typeof code === 'string' && /^[A-Z_]{1,32}$/.test(code) ? code : 'ECONNECTION';
  if (responseCode === 535 || code === 'EAUTH') return { kind: 'credentials_rejected', reason };
  return { kind: typeof responseCode === 'number' && responseCode >= 500 ? 'rejected' : 'transient', reason };
}
