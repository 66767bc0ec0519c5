/**
 * A real SMTP server for tests (the `smtp-server` package): accepts any mail without auth or TLS
 * and writes each message to `<dir>/<n>.eml` (raw data) with `<dir>/<n>.json` (envelope), the
 * JSON last, so a reader that sees the JSON sees the whole message. test/support/mail.ts reads them.
 * Recipients on REFUSED_DOMAIN are refused (550), as a real server refuses an unknown user.
 */
import fs from 'node:fs';
import path from 'node:path';
import { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface SmtpSink {
  url: string;
  dir: string;
  close: () => Promise<void>;
}

export interface SinkEnvelope {
  from: string | null;
  to: string[];
  received_at: string;
  eml: string;
}

/** Recipients on this domain are refused with a 550 whose text echoes the address. */
export const REFUSED_DOMAIN = 'refused.example.com';

export async function startSmtpSink(dir: string): Promise<SmtpSink> {
  fs.mkdirSync(dir, { recursive: true });
  let count = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    // Like a real server, the refusal names the address: what activities must never pass on.
    onRcptTo(address, _session, callback) {
      if (address.address.toLowerCase().endsWith(`@${REFUSED_DOMAIN}`)) {
        callback(Object.assign(new Error(`<${address.address}>: Recipient address rejected: User unknown`), { responseCode: 550 }));
        return;
      }
      callback();
    },
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
