// Jest globalSetup of the `api` project: a real stack on free ports, in a temporary directory.
//   PostgreSQL (throwaway cluster) + Temporal dev server (headless, in memory) + MinIO
//   → migrations → ONE worker (node dist/workers/main.js) waiting for "worker ready".
// The environment (fresh random secrets, APP_ENV=test) goes into process.env, which Jest's test
// workers inherit, and into .run/test-stack.json. Logs: .run/{postgres,temporal,minio,migrate,worker}.log.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import runnerLib = require('../../scripts/lib/process-runner.cjs');
import services = require('../../scripts/lib/services.cjs');
import toolsLib = require('../../scripts/lib/tools.cjs');
import secretsLib = require('../../scripts/lib/dev-secrets.cjs');
import { startSmtpSink } from './smtp-sink';
import { rememberTestStack, stopTestStack } from './test-stack';

const ROOT = path.resolve(__dirname, '..', '..');
const RUN_DIR = path.join(ROOT, '.run');
const NEEDED_BUILD = ['dist/db/migrate-cli.js', 'dist/workers/main.js'];

export default async function globalSetup(): Promise<void> {
  const started = Date.now();
  const log = (text: string) => process.stderr.write(`[test-stack] ${text}\n`);
  const missing = NEEDED_BUILD.filter((file) => !fs.existsSync(path.join(ROOT, file)));
  if (missing.length) throw new Error(`${missing.join(', ')} missing: run \`npm run build\` first (npm test does it)`);
  const tools = await toolsLib.ensureTools({ root: ROOT, log });

  fs.mkdirSync(RUN_DIR, { recursive: true });
  const logFile = (name: string) => {
    const file = path.join(RUN_DIR, `${name}.log`);
    fs.writeFileSync(file, '');
    return file;
  };
  const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'industrial-ops-test-'));
  fs.chmodSync(tmpDir, 0o755); // as root, PostgreSQL runs as the `postgres` user and must reach its data dir
  const runner = new runnerLib.ProcessRunner({ log, graceMs: 10_000 });
  runner.installSignalHandlers(); // Ctrl-C during the run still stops every child
  rememberTestStack({ runner, tmpDir });

  try {
    const secrets = secretsLib.randomSecrets();
    const [pgPort, temporalPort, minioPort, minioConsolePort] = await services.getFreePorts(4);
    const [postgres, temporal, minio] = await Promise.all([
      services.startPostgres({
        runner,
        dataDir: path.join(tmpDir, 'postgres'),
        port: pgPort,
        password: secrets.POSTGRES_PASSWORD,
        persistent: false,
        echo: false,
        logFile: logFile('postgres'),
      }),
      services.startTemporal({
        runner,
        bin: tools.temporal,
        port: temporalPort,
        uiPort: null,
        dbFile: null,
        headless: true,
        echo: false,
        logFile: logFile('temporal'),
      }),
      services.startMinio({
        runner,
        bin: tools.minio,
        dataDir: path.join(tmpDir, 'minio'),
        port: minioPort,
        consolePort: minioConsolePort,
        accessKey: secrets.S3_ACCESS_KEY,
        secretKey: secrets.S3_SECRET_KEY,
        echo: false,
        logFile: logFile('minio'),
      }),
    ]);

    // A real SMTP server catching the worker's mail as files (test/support/mail.ts waitForMail).
    const smtp = await startSmtpSink(path.join(tmpDir, 'mail'));
    runner.register('smtp', smtp.close);

    const stackEnv: Record<string, string> = {
      APP_ENV: 'test',
      API_HOST: services.HOST,
      DATABASE_URL: postgres.databaseUrl,
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_NAMESPACE: 'default',
      S3_ENDPOINT: minio.endpoint,
      S3_ACCESS_KEY: secrets.S3_ACCESS_KEY,
      S3_SECRET_KEY: secrets.S3_SECRET_KEY,
      JWT_SECRET: secrets.JWT_SECRET,
      INTERNAL_JWT_SECRET: secrets.INTERNAL_JWT_SECRET,
      DATA_ENCRYPTION_KEY: secrets.DATA_ENCRYPTION_KEY,
      WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: 'true',
      SMTP_URL: smtp.url,
      MAIL_SINK_DIR: smtp.dir,
    };
    Object.assign(process.env, stackEnv);
    const childOptions = { env: { ...process.env }, cwd: ROOT, echo: false };

    await runner.run('migrate', process.execPath, [path.join(ROOT, 'dist/db/migrate-cli.js')], {
      ...childOptions,
      logFile: logFile('migrate'),
    });
    const worker = runner.start('worker', process.execPath, [path.join(ROOT, 'dist/workers/main.js')], {
      ...childOptions,
      logFile: logFile('worker'),
    });
    await runnerLib.waitForLine(worker, runnerLib.pinoMsg('worker ready'), 180_000, '"worker ready"');

    const description = {
      startedAt: new Date(started).toISOString(),
      tmpDir,
      env: stackEnv,
      pids: Object.fromEntries(runner.runningChildren().map((child) => [child.name, child.pid])),
      logs: RUN_DIR,
    };
    fs.writeFileSync(path.join(RUN_DIR, 'test-stack.json'), JSON.stringify(description, null, 2) + '\n', { mode: 0o600 });
    log(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s (logs in .run/)`);
  } catch (error) {
    log(`start-up failed; stopping what was started`);
    await stopTestStack().catch((stopError: Error) => log(stopError.message));
    throw error;
  }
}
