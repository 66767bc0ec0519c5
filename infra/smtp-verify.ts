/**
 * A real SMTP handshake against a mailbox's server (connect, EHLO, STARTTLS when offered or
 * required, AUTH), without sending mail: nodemailer's `transporter.verify()`.
 */
import nodemailer from 'nodemailer';
import { withSendSpans } from './smtp-tracing';

export interface SmtpSettings {
  host: string;
  port: number;
  /** TLS from the first byte (port 465 style); otherwise STARTTLS when the server offers it. */
  secure: boolean;
  username: string | null;
  password: string | null;
  /** TLS server name when `host` is an address the caller already resolved and checked. */
  servername?: string;
  /**
   * Refuse to authenticate or send without TLS (STARTTLS when not `secure`): a mailbox password
   * never crosses the network in clear text. Off only in development, for loopback test servers.
   */
  requireTls?: boolean;
}

export type SmtpVerification = { ok: true } | { ok: false; reason: string };

const TIMEOUT_MS = 10_000;

/** A transport to a tenant's own SMTP server, every phase bounded by `timeoutMs`; nodemailer's logger off (it would log credentials). */
export function smtpTransport(settings: SmtpSettings, timeoutMs: number) {
  return withSendSpans(
    nodemailer.createTransport({
      host: settings.host,
      port: settings.port,
      secure: settings.secure,
      requireTLS: settings.requireTls === true && !settings.secure,
      auth: settings.username ? { user: settings.username, pass: settings.password ?? '' } : undefined,
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
      logger: false,
      ...(settings.servername ? { tls: { servername: settings.servername } } : {}),
    }),
  );
}

export async function verifySmtp(settings: SmtpSettings): Promise<SmtpVerification> {
  const transporter = smtpTransport(settings, TIMEOUT_MS);
  try {
    await transporter.verify();
    return { ok: true };
  } catch (err) {
    // Only nodemailer's error code: the server's text may echo the user name.
    const code = (err as { code?: unknown }).code;
    return { ok: false, reason: typeof code === 'string' ? code : 'ECONNECTION' };
  } finally {
    transporter.close();
  }
}
