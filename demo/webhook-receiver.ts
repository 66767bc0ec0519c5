/**
 * The demo's webhook receiver (issue 24), on loopback under `npm run up`: it verifies each
 * delivery's two signatures (ours, `X-Signature` over "<timestamp>.<body>", and the Standard
 * Webhooks `webhook-signature`, with the `standardwebhooks` library as a receiver would) against
 * the secret the seed left in DEMO_STATE_FILE, prints one line per delivery, and answers 503 to
 * the first attempt of one delivery in four (the first one included), so retries and their timers
 * show in the Temporal UI (the retry comes 30 s later and is accepted).
 *
 * Environment: DEMO_STATE_FILE, DEMO_WEBHOOK_PORT (0: any free port; the URL is printed first).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { verifyXSignature } from '../domain/webhooks/signing';
import { createLogger } from '../infra/logger';
import { readDemoState } from './state';

const log = createLogger('info', { component: 'demo-webhook-receiver' });

/** One delivery in four fails its first attempt: the 1st, 5th, 9th... distinct delivery this receiver sees. */
export const refusesFirstAttempt = (ordinal: number): boolean => ordinal % 4 === 0;

function header(req: http.IncomingMessage, name: string): string {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : (value ?? '');
}

async function main(): Promise<void> {
  const stateFile = process.env.DEMO_STATE_FILE;
  if (!stateFile) throw new Error('DEMO_STATE_FILE is required');
  const seen = new Map<string, number>(); // delivery id -> its ordinal
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const deliveryId = header(req, 'webhook-id');
      // Read at each delivery: the seed writes the secret after this process started.
      const secret = readDemoState(stateFile)?.webhookSecret;
      let ours = 'no secret yet';
      let standard = 'no secret yet';
      if (secret) {
        const x = verifyXSignature({ secret, body, signature: header(req, 'x-signature'), timestamp: header(req, 'x-signature-timestamp'), now: Math.floor(Date.now() / 1000) });
        ours = x.ok ? 'ok' : x.reason;
        try {
          new Webhook(secret).verify(body, {
            'webhook-id': deliveryId,
            'webhook-timestamp': header(req, 'webhook-timestamp'),
            'webhook-signature': header(req, 'webhook-signature'),
          });
          standard = 'ok';
        } catch (err) {
          standard = (err as Error).message;
        }
      }
      const firstAttempt = !seen.has(deliveryId);
      if (firstAttempt) seen.set(deliveryId, seen.size);
      const status = ours !== 'ok' || standard !== 'ok' ? 401 : firstAttempt && refusesFirstAttempt(seen.get(deliveryId)!) ? 503 : 200;
      let type = '?';
      try {
        type = String(JSON.parse(body).type);
      } catch {
        // not JSON: printed as '?'
      }
      log.info(
        {
          type,
          delivery_id: deliveryId,
          signature: ours,
          standard_webhooks: standard,
          answered: status,
          ...(status === 503 ? { note: 'refused on purpose: watch the retry in the Temporal UI' } : {}),
        },
        'webhook delivery',
      );
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(status === 200 ? '{"received":true}' : '{"received":false}');
    });
  });
  await new Promise<void>((resolve) => server.listen(Number(process.env.DEMO_WEBHOOK_PORT ?? 0), '127.0.0.1', resolve));
  log.info({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/demo-webhooks` }, 'demo webhook receiver listening');
  const stop = () => server.close(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
