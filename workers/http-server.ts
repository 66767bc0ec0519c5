/**
 * The worker's HTTP port, for orchestrators and Prometheus (config.workerHttp):
 * - GET /livez: the process answers;
 * - GET /readyz: both workers are polling their task queues (not once a stop began); 503 otherwise.
 *   Dependencies are not checked: one down for every replica would fail them all together;
 * - GET /metrics: this process's metrics (prom-client: dispatcher, Node.js runtime) followed by
 *   the Temporal SDK's (workers/telemetry.ts), behind METRICS_TOKEN when it is set.
 * Nothing else, and nothing secret: the answers name parts, never errors or data.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { bearerMatches } from '../infra/metrics';

export interface WorkerHttpOptions {
  host: string;
  port: number;
  /** Names of the parts that are not ready; empty when ready. */
  notReady(): Promise<string[]>;
  registry: Registry;
  sdkMetricsUrl: string;
  metricsToken: string | null;
}

export interface WorkerHttpServer {
  url: string;
  close(): Promise<void>;
}

const SDK_SCRAPE_TIMEOUT_MS = 2_000;

async function metricsText(options: WorkerHttpOptions): Promise<string> {
  const own = await options.registry.metrics();
  // The SDK's exporter answers on loopback; when it does not, this process's own metrics still do.
  const sdk = await fetch(options.sdkMetricsUrl, { signal: AbortSignal.timeout(SDK_SCRAPE_TIMEOUT_MS) })
    .then((res) => (res.ok ? res.text() : ''))
    .catch(() => '');
  return sdk ? `${own}\n${sdk}` : own;
}

function send(res: http.ServerResponse, status: number, body: string, type = 'application/json'): void {
  res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
  res.end(body);
}

export async function startWorkerHttpServer(options: WorkerHttpOptions): Promise<WorkerHttpServer> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const answer = async () => {
      if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, JSON.stringify({ status: 'method not allowed' }));
      if (path === '/livez') return send(res, 200, JSON.stringify({ status: 'ok' }));
      if (path === '/readyz') {
        const down = await options.notReady();
        return down.length === 0 ? send(res, 200, JSON.stringify({ status: 'ready' })) : send(res, 503, JSON.stringify({ status: 'not ready', down }));
      }
      if (path === '/metrics') {
        if (options.metricsToken !== null && !bearerMatches(req.headers.authorization, options.metricsToken)) {
          return send(res, 401, JSON.stringify({ status: 'metrics token required' }));
        }
        return send(res, 200, await metricsText(options), options.registry.contentType);
      }
      return send(res, 404, JSON.stringify({ status: 'not found' }));
    };
    answer().catch(() => send(res, 500, JSON.stringify({ status: 'error' })));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
