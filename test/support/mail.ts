/**
 * Mail caught by the test stack's SMTP sink (global-setup.ts exports MAIL_SINK_DIR): poll until a
 * message matches. The raw message is parsed just enough to read its headers and text.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { SinkEnvelope } from './smtp-sink';

export interface CaughtMail {
  from: string | null;
  to: string[];
  subject: string;
  /** The raw message (headers and body). */
  raw: string;
  received_at: string;
}

function readAll(dir: string): CaughtMail[] {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => {
      const envelope = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as SinkEnvelope;
      const raw = fs.readFileSync(path.join(dir, envelope.eml), 'utf8');
      const subject = /^Subject: (.*(?:\r?\n[ \t].*)*)/im.exec(raw)?.[1].replace(/\r?\n[ \t]/g, ' ') ?? '';
      return { from: envelope.from, to: envelope.to, subject, raw, received_at: envelope.received_at };
    });
}

export async function waitForMail(predicate: (mail: CaughtMail) => boolean, timeoutMs = 15_000): Promise<CaughtMail> {
  const dir = process.env.MAIL_SINK_DIR;
  if (!dir) throw new Error('MAIL_SINK_DIR is not set: the API test stack (global-setup.ts) starts the SMTP sink');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = readAll(dir).find(predicate);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no matching mail within ${timeoutMs} ms (${readAll(dir).length} caught)`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
