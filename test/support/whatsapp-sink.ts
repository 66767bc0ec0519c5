/**
 * A loopback stand-in for the WhatsApp Cloud API's send endpoint (`POST /{phone_number_id}/messages`)
 * for tests. Answers like the provider (`{messages: [{id: "wamid..."}]}`), except:
 *   - a Bearer token starting with `rejected-` answers 401 (an expired or revoked token);
 *   - `failNext(n)` makes the next n requests answer 503 (a provider outage).
 * Every request is kept in memory and, with `dir`, written to `<dir>/<n>.json` so other processes
 * (the API tests, with the worker sending) can read them: waitForWhatsappSend below.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { untilValue } from './until';

export interface WhatsappSend {
  phone_number_id: string;
  authorization: string | null;
  body: any;
  status: number;
  received_at: string;
}

export interface WhatsappSink {
  url: string;
  dir: string | null;
  requests(): WhatsappSend[];
  failNext(count: number): void;
  close: () => Promise<void>;
}

export const REJECTED_TOKEN_PREFIX = 'rejected-';

export async function startWhatsappSink(dir: string | null = null): Promise<WhatsappSink> {
  if (dir) fs.mkdirSync(dir, { recursive: true });
  const seen: WhatsappSend[] = [];
  let failures = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const match = /^\/([^/]+)\/messages$/.exec(req.url ?? '');
      const authorization = req.headers.authorization ?? null;
      let status = 200;
      let answer: unknown = { error: { message: 'Unsupported post request', code: 100 } };
      if (req.method !== 'POST' || !match) status = 404;
      else if (failures > 0) {
        failures -= 1;
        status = 503;
        answer = { error: { message: 'Service temporarily unavailable', code: 2 } };
      } else if (!authorization?.startsWith('Bearer ') || authorization.slice(7).startsWith(REJECTED_TOKEN_PREFIX)) {
        status = 401;
        answer = { error: { message: 'Error validating access token', type: 'OAuthException', code: 190 } };
      }
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = Buffer.concat(chunks).toString('utf8');
      }
      if (status === 200)
        answer = { messaging_product: 'whatsapp', contacts: [{ input: (body as any)?.to, wa_id: (body as any)?.to }], messages: [{ id: `wamid.${randomUUID()}` }] };
      const entry: WhatsappSend = { phone_number_id: match?.[1] ?? '', authorization, body, status, received_at: new Date().toISOString() };
      seen.push(entry);
      if (dir) fs.writeFileSync(path.join(dir, `${seen.length}.json`), JSON.stringify(entry));
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    dir,
    requests: () => [...seen],
    failNext: (count) => {
      failures = count;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Sends the test stack's sink (WHATSAPP_SINK_DIR, global-setup.ts) received, in order. */
export function whatsappSends(): WhatsappSend[] {
  const dir = process.env.WHATSAPP_SINK_DIR;
  if (!dir) throw new Error('WHATSAPP_SINK_DIR is not set: the API test stack (global-setup.ts) starts the WhatsApp sink');
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort((a, b) => parseInt(a, 10) - parseInt(b, 10))
    .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as WhatsappSend);
}

export async function waitForWhatsappSend(predicate: (send: WhatsappSend) => boolean, timeoutMs = 20_000): Promise<WhatsappSend> {
  return untilValue(async () => whatsappSends().find(predicate), `a matching WhatsApp send (${whatsappSends().length} received so far)`, timeoutMs);
}
