/**
 * A real HTTP receiver on loopback for webhook tests: records every request (raw body bytes as
 * received, headers, arrival time) and answers from a per-path script of responses (the last
 * scripted response repeats; 200 when none is scripted).
 */
import { createServer, IncomingMessage, Server } from 'node:http';
import { requestListener } from '../../api/listen';
import { AddressInfo } from 'node:net';

export interface ScriptedResponse {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Answer after this many milliseconds (a slow receiver). */
  delayMs?: number;
}

export interface ReceivedRequest {
  path: string;
  method: string;
  headers: Record<string, string>;
  body: string;
  receivedAt: number;
}

export interface WebhookReceiver {
  readonly port: number;
  /** `http://127.0.0.1:<port><path>` */
  url(path: string): string;
  readonly requests: ReceivedRequest[];
  on(path: string): ReceivedRequest[];
  script(path: string, responses: ScriptedResponse[]): void;
  waitFor(predicate: () => boolean, timeoutMs?: number, what?: string): Promise<void>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const requests: ReceivedRequest[] = [];
  const scripts = new Map<string, { responses: ScriptedResponse[]; served: number }>();

  const server: Server = createServer(
    requestListener(async (req: IncomingMessage, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const path = req.url ?? '/';
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]));
      requests.push({ path, method: req.method ?? '', headers, body: Buffer.concat(chunks).toString('utf8'), receivedAt: Date.now() });
      const script = scripts.get(path);
      const response = script ? script.responses[Math.min(script.served++, script.responses.length - 1)] : { status: 200, body: 'ok' };
      if (response.delayMs) await new Promise((resolve) => setTimeout(resolve, response.delayMs));
      if (res.destroyed) return;
      res.writeHead(response.status, { 'content-type': 'text/plain', ...response.headers });
      res.end(response.body ?? '');
    }),
  );
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    port,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    requests,
    on: (path) => requests.filter((r) => r.path === path),
    script: (path, responses) => {
      scripts.set(path, { responses, served: 0 });
    },
    async waitFor(predicate, timeoutMs = 20_000, what = 'condition') {
      const deadline = Date.now() + timeoutMs;
      while (!predicate()) {
        if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (${requests.length} requests received)`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
