/**
 * A real SMTP server for tests (the `smtp-server` package): accepts any mail without auth or TLS
 * and writes each message to `<dir>/<n>.eml` (raw data) with `<dir>/<n>.json` (envelope), the
 * JSON last, so a reader that sees the JSON sees the whole message. test/support/mail.ts reads them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface SmtpSink {
  url: string;
  dir: string;
  close(): Promise<void>;
}

export interface SinkEnvelope {
  from: string | null;
  to: string[];
  received_at: string;
  eml: string;
}

export async function startSmtpSink(dir: string): Promise<SmtpSink> {
  fs.mkdirSync(dir, { recursive: true });
  let count = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', callback);
      stream.on('end', () => {
        count += 1;
        const eml = `${count}.eml`;
        fs.writeFileSync(path.join(dir, eml), Buffer.concat(chunks));
        const envelope: SinkEnvelope = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : null,
          to: session.envelope.rcptTo.map((r) => r.address),
          received_at: new Date().toISOString(),
          eml,
        };
        fs.writeFileSync(path.join(dir, `${count}.json`), JSON.stringify(envelope));
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    dir,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
