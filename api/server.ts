// First: tracing patches the modules the rest of the imports load.
import { tracing } from './instrumentation';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../infra/config';
import { createApp } from './app';
import { createDeps } from './deps';
import { createLogger, exitOnStartFailure } from '../infra/logger';
import { checkAppRoleAtStart } from '../infra/app-role';
import { apiUrl, createApiServer, requestListener } from './listen';
import { drainServer, trackInFlight } from './graceful-shutdown';
import { installCrashPolicy } from '../infra/crash-policy';
import { startLoopWatchdog } from '../infra/loop-watchdog';

async function main(): Promise<void> {
  const config = loadConfig();
  const deps = createDeps(config);
  const { app } = createApp(deps);
  // Start/stop lines always print: process supervisors wait for them whatever LOG_LEVEL says.
  const lifecycle = createLogger('info', { component: 'api' });
  // Before listening: a production API on a privileged database role never takes a request.
  await checkAppRoleAtStart(deps.db, config.appEnv, 'api', lifecycle);
  const requests = trackInFlight(requestListener(app.callback()));
  const server = createApiServer(requests.listener, config.api.tls);
  // A port in use is a start-up failure like any other (one JSON line), not an uncaught 'error' event.
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.api.port, config.api.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  // The bound port: API_PORT=0 takes any free one (tests that run several API processes).
  const { port } = server.address() as AddressInfo;
  lifecycle.info({ url: apiUrl({ api: { ...config.api, port } }) }, 'api listening');

  const { shutdown } = config.api;
  // SIGTERM stops with 0; a crash (infra/crash-policy.ts) drains the same way and exits non-zero.
  let exitCode = 0;
  let stopping = false;
  const stop = (code: number) => {
    exitCode = Math.max(exitCode, code);
    process.exitCode = exitCode;
    if (stopping) return;
    stopping = true;
    lifecycle.info({ delay_ms: shutdown.delayMs, grace_ms: shutdown.graceMs }, 'api draining');
    // A stop that hangs (a pool that never closes) still ends, with a failure the supervisor sees.
    setTimeout(() => process.exit(exitCode || 1), shutdown.delayMs + shutdown.graceMs + 10_000).unref();
    void drainServer(server, requests, deps.lifecycle, shutdown)
      .then(async (cutOff) => {
        await deps.close();
        await tracing?.shutdown();
        lifecycle.info({ cut_off: cutOff, exit_code: exitCode }, 'api stopped');
        process.exit(exitCode);
      })
      .catch((err: unknown) => {
        lifecycle.error({ err }, 'api stop failed');
        process.exit(exitCode || 1);
      });
  };
  process.once('SIGINT', () => stop(0));
  process.once('SIGTERM', () => stop(0));
  installCrashPolicy({ component: 'api', log: lifecycle, stop });
  startLoopWatchdog({ component: 'api', stallLimitMs: config.process.stallLimitMs });
}

main().catch((err) => exitOnStartFailure('api', err));
