'use strict';
// A throwaway stack on free loopback ports in a temporary directory: PostgreSQL, Temporal dev
// server (headless, in memory), MinIO, migrations and optionally one worker from dist/. Used by the
// API tests' global setup and by `npm run bench`, so both run against the same real parts.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const runnerLib = require('./process-runner.cjs');
const services = require('./services.cjs');
const toolsLib = require('./tools.cjs');
const secretsLib = require('./dev-secrets.cjs');
const { WORKER_NODE_FLAGS } = require('./worker-node-flags.cjs');

/**
 * workers: how many worker processes (named worker, worker-2, ...), each started once the one
 * before is ready; `worker: false` starts none. temporal: the connection variables (TEMPORAL_ADDRESS,
 * TEMPORAL_NAMESPACE, TLS...) of a running cluster to use instead of starting a dev server.
 * postgresSettings: more PostgreSQL settings (`name=value`).
 * The processes of the stack see the connection variables of `env` only, never the caller's own
 * TEMPORAL_ADDRESS or TLS settings. `env` holds all a process of the stack needs, over the
 * caller's environment less those: `processEnv()` is that whole environment.
 * @param {{ root: string, runDir: string, log: (t: string) => void, worker?: boolean, workers?: number, temporal?: Record<string,string>|null, postgresSettings?: string[], temporalDbFile?: string|null, extraEnv?: Record<string,string>, beforeWorker?: (ctx: { tmpDir: string, env: Record<string,string> }) => Promise<Record<string,string>|void> }} options
 * The pids and the dev server's metrics URL are for benches that measure what each part spent.
 * @returns {Promise<{ env: Record<string,string>, processEnv: () => Record<string,string>, workerPids: () => number[], postgresPid: number, temporalPid: number|null, temporalMetricsUrl: string|null, runner: import('./process-runner.cjs').ProcessRunner, tmpDir: string, stop: () => Promise<void> }>}
 */
async function startEphemeralStack({
  root,
  runDir,
  log,
  worker = true,
  workers = 1,
  temporal: cluster = null,
  postgresSettings = [],
  temporalDbFile = null,
  extraEnv = {},
  beforeWorker,
}) {
  const needed = ['dist/db/migrate-cli.js', 'dist/workers/main.js'];
  const missing = needed.filter((file) => !fs.existsSync(path.join(root, file)));
  if (missing.length) throw new Error(`${missing.join(', ')} missing: run \`npm run build\` first`);
  const tools = await toolsLib.ensureTools({ root, log });

  fs.mkdirSync(runDir, { recursive: true });
  const logFile = (name) => {
    const file = path.join(runDir, `${name}.log`);
    fs.writeFileSync(file, '');
    return file;
  };
  const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'industrial-ops-stack-'));
  fs.chmodSync(tmpDir, 0o755); // as root, PostgreSQL runs as the `postgres` user and must reach its data dir
  const runner = new runnerLib.ProcessRunner({ log, graceMs: 10_000 });
  runner.installSignalHandlers();
  const stop = async () => {
    try {
      await runner.stopAll();
    } finally {
      runner.uninstallSignalHandlers();
      fs.rmSync(tmpDir, { recursive: true, force: true });
    }
  };

  try {
    const secrets = secretsLib.randomSecrets();
    // Each on a port picked free and, when another process binds it first (the main and the side
    // jest runs start a stack each, at once), again on another (startOnFreePort).
    const [postgres, devServer, minio] = await Promise.all([
      services.startOnFreePort((port) =>
        services.startPostgres({
          runner,
          dataDir: path.join(tmpDir, 'postgres'),
          port,
          password: secrets.POSTGRES_PASSWORD,
          appPassword: secrets.POSTGRES_APP_PASSWORD,
          persistent: false,
          settings: postgresSettings,
          echo: false,
          logFile: logFile('postgres'),
        }),
      ),
      cluster
        ? null
        : services.startOnFreePort(async (port) =>
            services.startTemporal({
              runner,
              bin: tools.temporal,
              port,
              uiPort: null,
              // Known, so that a bench can read the server's counters (actions, persistence requests).
              metricsPort: await services.getFreePort(),
              // In memory unless a file is given: the in-memory SQLite has died under 80 000+ running workflows.
              dbFile: temporalDbFile,
              headless: true,
              echo: false,
              logFile: logFile('temporal'),
            }),
          ),
      services.startOnFreePort(async (port) =>
        services.startMinio({
          runner,
          bin: tools.minio,
          dataDir: path.join(tmpDir, 'minio'),
          port,
          consolePort: await services.getFreePort(),
          accessKey: secrets.S3_ACCESS_KEY,
          secretKey: secrets.S3_SECRET_KEY,
          echo: false,
          logFile: logFile('minio'),
        }),
      ),
    ]);
    const env = {
      APP_ENV: 'test',
      API_HOST: services.HOST,
      // The app's role (DML only); the migrations run as the owner (the superuser here).
      DATABASE_URL: postgres.appDatabaseUrl,
      DATABASE_MIGRATION_URL: postgres.databaseUrl,
      ...(cluster ?? { TEMPORAL_ADDRESS: devServer.address, TEMPORAL_NAMESPACE: 'default' }),
      S3_ENDPOINT: minio.endpoint,
      S3_ACCESS_KEY: secrets.S3_ACCESS_KEY,
      S3_SECRET_KEY: secrets.S3_SECRET_KEY,
      JWT_SECRET: secrets.JWT_SECRET,
      INTERNAL_JWT_SECRET: secrets.INTERNAL_JWT_SECRET,
      DATA_ENCRYPTION_KEY: secrets.DATA_ENCRYPTION_KEY,
      WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: 'true',
      // The worker's probe and metrics port: any free one (its URL is in the "worker ready" line).
      WORKER_HTTP_PORT: '0',
      ...extraEnv,
    };
    const processEnv = () => ({ ...services.withoutTemporalConnection(process.env), ...env });
    const childOptions = { cwd: root, echo: false };
    await runner.run('migrate', process.execPath, [path.join(root, 'dist/db/migrate-cli.js')], { ...childOptions, env: processEnv(), logFile: logFile('migrate') });
    if (beforeWorker) Object.assign(env, (await beforeWorker({ tmpDir, env, runner })) || {});
    const workerPids = [];
    for (let n = 1; worker && n <= workers; n += 1) {
      const name = n === 1 ? 'worker' : `worker-${n}`;
      const child = runner.start(name, process.execPath, [...WORKER_NODE_FLAGS, path.join(root, 'dist/workers/main.js')], {
        ...childOptions,
        // The owner's URL goes to the migrations only, never to the app's processes.
        env: services.withoutOwnerUrl(processEnv()),
        logFile: logFile(name),
      });
      const ready = await runnerLib.waitForLine(child, runnerLib.pinoMsg('worker ready'), 180_000, `"worker ready" of ${name}`);
      workerPids.push(child.pid);
      // For tests that read the worker's /readyz and /metrics.
      if (n === 1) env.TEST_WORKER_HTTP_URL = runnerLib.parsePinoLine(ready).probes;
    }
    return {
      env,
      processEnv,
      workerPids: () => [...workerPids],
      postgresPid: postgres.pid,
      temporalPid: devServer?.pid ?? null,
      temporalMetricsUrl: devServer?.metricsUrl ?? null,
      runner,
      tmpDir,
      stop,
    };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}

module.exports = { startEphemeralStack };
