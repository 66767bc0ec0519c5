/**
 * The worker's Temporal runtime, installed once per process before any connection: the SDK's logs
 * (its own, the workflow and activity loggers, and the Rust core's, forwarded) written as the same
 * pino JSON lines as everything else, with the workflow and activity fields in snake case; and the
 * SDK's metrics (task slots, poll and schedule-to-start latencies, sticky cache, workflow and
 * activity outcomes) exported in Prometheus format on a loopback port that the worker's own
 * /metrics merges into its answer (workers/http-server.ts).
 */
import { createServer } from 'node:net';
import { DefaultLogger, LogLevel, makeTelemetryFilterString, Runtime } from '@temporalio/worker';
import type { Logger } from 'pino';

const SDK_LEVEL = new Map<string, LogLevel>([
  ['trace', 'TRACE'],
  ['debug', 'DEBUG'],
  ['info', 'INFO'],
  ['warn', 'WARN'],
]);
const PINO_LEVEL = new Map<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'>([
  ['TRACE', 'trace'],
  ['DEBUG', 'debug'],
  ['INFO', 'info'],
  ['WARN', 'warn'],
  ['ERROR', 'error'],
]);

const snakeCase = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The SDK's metadata (workflowId, runId, activityType, ...) as log fields; `error` as pino's `err`. */
export function logFieldsOf(meta: Record<string, unknown> | undefined): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(meta ?? {})) {
    const name = key === 'error' ? 'err' : snakeCase(key);
    if (name !== '__proto__') fields[name] = value;
  }
  return fields;
}

/** A Temporal Logger that writes through `log` (same format, same level). */
export function temporalLoggerFor(log: Logger): DefaultLogger {
  return new DefaultLogger(SDK_LEVEL.get(log.level) ?? 'ERROR', (entry) => {
    log[PINO_LEVEL.get(entry.level) ?? 'info'](logFieldsOf(entry.meta), entry.message);
  });
}

/** A free loopback port for the SDK's exporter, which cannot report the port it bound itself. */
async function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Installs the runtime; answers the URL where the SDK's metrics can be read. */
export async function installWorkerRuntime(log: Logger): Promise<{ sdkMetricsUrl: string }> {
  const port = await freeLoopbackPort();
  Runtime.install({
    logger: temporalLoggerFor(log),
    telemetryOptions: {
      logging: { filter: makeTelemetryFilterString({ core: 'WARN', other: 'ERROR' }), forward: {} },
      metrics: { prometheus: { bindAddress: `127.0.0.1:${port}`, countersTotalSuffix: true, useSecondsForDurations: true } },
    },
  });
  return { sdkMetricsUrl: `http://127.0.0.1:${port}/metrics` };
}
