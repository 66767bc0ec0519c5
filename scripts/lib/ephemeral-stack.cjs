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
 * @param {{ root: string, runDir: string, log: (t: string) => void, worker?: boolean, temporalDbFile?: string|null, extraEnv?: Record<string,string>, beforeWorker?: (ctx: { tmpDir: string, env: Record<string,string> }) => Promise<Record<string,string>|void> }} options
 * @returns {Promise<{ env: Record<string,string>, runner: import('./process-runner.cjs').ProcessRunner, tmpDir: string, stop: () => Promise<void> }>}
 */
async function startEphemeralStack({ root, runDir, log, worker = true, temporalDbFile = null, extraEnv = {}, beforeWorker }) {
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
    const [postgres, temporal, minio] = await Promise.all([
      services.startOnFreePort((port) =>
        services.startPostgres({
          runner,
          dataDir: path.join(tmpDir, 'postgres'),
          port,
          password: secrets.POSTGRES_PASSWORD,
          appPassword: secrets.POSTGRES_APP_PASSWORD,
          persistent: false,
          echo: false,
          logFile: logFile('postgres'),
        }),
      ),
      services.startOnFreePort((port) =>
        services.startTemporal({
          runner,
          bin: tools.temporal,
          port,
          uiPort: null,
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
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_NAMESPACE: 'default',
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
    const childOptions = { cwd: root, echo: false };
    await runner.run('migrate', process.execPath, [path.join(root, 'dist/db/migrate-cli.js')], { ...childOptions, env: { ...process.env, ...env }, logFile: logFile('migrate') });
    if (beforeWorker) Object.assign(env, (await beforeWorker({ tmpDir, env, runner })) || {});
    if (worker) {
      const child = runner.start('worker', process.execPath, [...WORKER_NODE_FLAGS, path.join(root, 'dist/workers/main.js')], {
        ...childOptions,
        // The owner's URL goes to the migrations only, never to the app's processes.
        env: services.withoutOwnerUrl({ ...process.env, ...env }),
        logFile: logFile('worker'),
      });
      const ready = await runnerLib.waitForLine(child, runnerLib.pinoMsg('worker ready'), 180_000, '"worker ready"');
      // For tests that read the worker's /readyz and /metrics.
      env.TEST_WORKER_HTTP_URL = runnerLib.parsePinoLine(ready).probes;
    }
    return { env, runner, tmpDir, stop };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}

module.exports = { startEphemeralStack };
