/**
 * Mail caught by the test stack's SMTP sink (global-setup.ts exports MAIL_SINK_DIR): poll until a
 * message matches. The raw message is parsed just enough to read its headers and text.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { SinkEnvelope } from './smtp-sink';
import type { TestApi, TestTenant } from './api';
import { untilValue } from './until';

export interface CaughtMail {
  from: string | null;
  to: string[];
  /** Decoded (RFC 2047 encoded words). */
  subject: string;
  /** The body, decoded when quoted-printable or base64. */
  text: string;
  /** The raw message (headers and body). */
  raw: string;
  received_at: string;
}

/** `=?UTF-8?Q?...?=` / `=?UTF-8?B?...?=` words of a header, as nodemailer writes them. */
function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_, _charset: string, enc: string, text: string) =>
      enc.toUpperCase() === 'B' ? Buffer.from(text, 'base64').toString('utf8') : decodeQuotedPrintable(text.replace(/_/g, ' ')),
    );
}

function decodeQuotedPrintable(text: string): string {
  const escaped = text
    .replace(/=\r?\n/g, '')
    .replace(/%/g, '%25')
    .replace(/=([0-9A-Fa-f]{2})/g, '%$1');
  return decodeURIComponent(escaped);
}

function bodyOf(raw: string): string {
  const split = raw.search(/\r?\n\r?\n/);
  const headers = raw.slice(0, split);
  const body = raw.slice(split).replace(/^\r?\n\r?\n/, '');
  const encoding = /^Content-Transfer-Encoding: *(\S+)/im.exec(headers)?.[1].toLowerCase();
  if (encoding === 'quoted-printable') return decodeQuotedPrintable(body);
  if (encoding === 'base64') return Buffer.from(body, 'base64').toString('utf8');
  return body;
}

function readAll(dir: string): CaughtMail[] {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => {
      const envelope = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as SinkEnvelope;
      const raw = fs.readFileSync(path.join(dir, envelope.eml), 'utf8');
      const subject = decodeWords(/^Subject: (.*(?:\r?\n[ \t].*)*)/im.exec(raw)?.[1].replace(/\r?\n[ \t]/g, ' ') ?? '');
      return { from: envelope.from, to: envelope.to, subject, text: bodyOf(raw), raw, received_at: envelope.received_at };
    });
}

function sinkDir(): string {
  const dir = process.env.MAIL_SINK_DIR;
  if (!dir) throw new Error('MAIL_SINK_DIR is not set: the API test stack (global-setup.ts) starts the SMTP sink');
  return dir;
}

export async function waitForMail(predicate: (mail: CaughtMail) => boolean, timeoutMs = 15_000): Promise<CaughtMail> {
  const dir = sinkDir();
  return untilValue(async () => readAll(dir).find(predicate), `a matching mail (${readAll(dir).length} caught so far)`, timeoutMs);
}

/** Every mail caught so far that matches (to show what was not sent). */
export function caughtMail(predicate: (mail: CaughtMail) => boolean): CaughtMail[] {
  return readAll(sinkDir()).filter(predicate);
}

/** An e-mail account of the tenant whose replies go to the test stack's SMTP sink: the created account's body. */
export async function sinkEmailAccount(api: TestApi, tenant: TestTenant): Promise<{ id: string; inbound_secret: string }> {
  const sink = new URL(process.env.SMTP_URL!);
  const account = await api.request('/api/v1/email/accounts', {
    method: 'POST',
    token: tenant.token,
    json: { name: 'Support', email_address: 'support@plant.example.com', smtp_host: sink.hostname, smtp_port: Number(sink.port) },
  });
  expect(account.status).toBe(201);
  return account.body;
}

/**
 * The Authentication-Results header a receiving MTA adds for a sender it authenticated for the
 * From domain of `from` (DMARC pass with aligned SPF and DKIM): the e-mail agent answers only
 * such mail (docs/decisions/inbound-mail-aligned-authentication.md).
 */
export function authenticatedSender(from: string): Record<string, string> {
  const address = from.includes('<') ? from.slice(from.lastIndexOf('<') + 1, from.lastIndexOf('>')) : from;
  const domain = address.slice(address.lastIndexOf('@') + 1).toLowerCase();
  return { 'Authentication-Results': `mx.plant.example; spf=pass smtp.mailfrom=${domain}; dkim=pass header.d=${domain}; dmarc=pass header.from=${domain}` };
}
