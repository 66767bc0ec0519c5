// First: tracing patches the modules the rest of the imports load.
import { tracing } from './instrumentation';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../infra/config';
import { createApp } from './app';
import { createDeps } from './deps';
import { createLogger, exitOnStartFailure } from '../infra/logger';
import { warnIfPrivilegedRole } from '../db/roles';
import { apiUrl, createApiServer, requestListener } from './listen';

async function main(): Promise<void> {
  const config = loadConfig();
  const deps = createDeps(config);
  const { app } = createApp(deps);
  const server = createApiServer(requestListener(app.callback()), config.api.tls);
  await new Promise<void>((resolve) => server.listen(config.api.port, config.api.host, resolve));
  // Start/stop lines always print: process supervisors wait for them whatever LOG_LEVEL says.
  const lifecycle = createLogger('info', { component: 'api' });
  // The bound port: API_PORT=0 takes any free one (tests that run several API processes).
  const { port } = server.address() as AddressInfo;
  lifecycle.info({ url: apiUrl({ api: { ...config.api, port } }) }, 'api listening');
  void warnIfPrivilegedRole(deps.db, lifecycle);

  const stop = () => {
    lifecycle.info('api stopping');
    server.close(
      () =>
        void deps
          .close()
          .then(() => tracing?.shutdown())
          .then(() => process.exit(0)),
    );
    // Idle keep-alive sockets would hold close() open.
    server.closeIdleConnections();
    setTimeout(() => process.exit(0), 10_000).unref();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err) => exitOnStartFailure('api', err));
