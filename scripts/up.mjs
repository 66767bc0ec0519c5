#!/usr/bin/env node
// `npm run up`: the whole local stack from a fresh clone, in one command.
//   deps (npm ci if needed) → tools (.tools/) → build → secrets (.data/secrets.env)
//   → PostgreSQL, Temporal dev server, MinIO (each skipped when the environment provides one)
//   → migrate → seed the demo tenant → worker → API → print the URLs, the demo login and a curl.
// On Node 24: fetched once into .tools/node where the machine's Node is older (scripts/lib/node-runtime.cjs).
// Data lives in .data/ and is reused by the next run. Ctrl-C stops every child, newest first.
// `npm run up -- --skip-build` starts dist/ as it is (e.g. while a teammate's file does not compile).
// Only Node built-ins (and our own scripts/lib) are loaded before `npm ci` has run.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { assertNodeVersion, ensureDependencies, runNpm, seconds } = require('./lib/bootstrap.cjs');
const { ensureTools } = require('./lib/tools.cjs');
const { runOnNode24 } = require('./lib/node-runtime.cjs');
const { loadDevSecrets } = require('./lib/dev-secrets.cjs');
const { ProcessRunner, waitForLine, pinoMsg, parsePinoLine } = require('./lib/process-runner.cjs');
const services = require('./lib/services.cjs');
const { superviseProcess } = require('./lib/supervisor.cjs');
const { WORKER_NODE_FLAGS } = require('./lib/worker-node-flags.cjs');

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DATA = path.join(ROOT, '.data');
const STACK_ENV_FILE = path.join(DATA, 'stack.env'); // read by operator CLIs (infra/env-file.ts)
const HOST = services.HOST;
const SKIP_BUILD = process.argv.includes('--skip-build'); // `npm run up -- --skip-build`
// The demo plant, its simulated gateway and webhook receiver: `npm run up -- --no-demo` or DEMO=off skips them.
const DEMO = !process.argv.includes('--no-demo') && process.env.DEMO !== 'off';
const DEMO_STATE_FILE = path.join(DATA, 'demo.json');
const started = Date.now();
const log = (text) => process.stdout.write(text + '\n');
const bold = (text) => (process.stdout.isTTY ? `\x1b[1m${text}\x1b[0m` : text);
const step = (text) => log(bold(`▸ ${text}`));

function portFromEnv(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`${name}=${raw} is not a port number`);
  return port;
}

/** Which components we start, and which the environment replaces. */
function plan() {
  const env = process.env;
  return {
    apiPort: portFromEnv('API_PORT', 3000),
    workerHttpPort: portFromEnv('WORKER_HTTP_PORT', 3001),
    demoWebhookPort: DEMO ? portFromEnv('DEMO_WEBHOOK_PORT', 3002) : null,
    postgres: env.DATABASE_URL ? null : { port: portFromEnv('PG_PORT', 5432) },
    temporal: env.TEMPORAL_ADDRESS ? null : { port: portFromEnv('TEMPORAL_PORT', 7233), uiPort: portFromEnv('TEMPORAL_UI_PORT', 8233) },
    minio: env.S3_ENDPOINT ? null : { port: portFromEnv('MINIO_PORT', 9000), consolePort: portFromEnv('MINIO_CONSOLE_PORT', 9001) },
  };
}

function portsToCheck(p) {
  const ports = [
    { port: p.apiPort, what: 'API', envVar: 'API_PORT' },
    { port: p.workerHttpPort, what: 'worker probes and metrics', envVar: 'WORKER_HTTP_PORT' },
  ];
  if (p.demoWebhookPort) ports.push({ port: p.demoWebhookPort, what: 'demo webhook receiver', envVar: 'DEMO_WEBHOOK_PORT' });
  if (p.postgres) ports.push({ port: p.postgres.port, what: 'PostgreSQL', envVar: 'PG_PORT' });
  if (p.temporal) {
    ports.push({ port: p.temporal.port, what: 'Temporal gRPC', envVar: 'TEMPORAL_PORT' });
    ports.push({ port: p.temporal.uiPort, what: 'Temporal Web UI', envVar: 'TEMPORAL_UI_PORT' });
  }
  if (p.minio) {
    ports.push({ port: p.minio.port, what: 'MinIO S3 API', envVar: 'MINIO_PORT' });
    ports.push({ port: p.minio.consolePort, what: 'MinIO console', envVar: 'MINIO_CONSOLE_PORT' });
  }
  return ports;
}

function writeStackEnv(values) {
  const lines = Object.entries(values).map(([key, value]) => `${key}=${value}`);
  const header = '# Written by `npm run up` while the stack runs (removed when it stops); read by operator CLIs.\n';
  fs.writeFileSync(STACK_ENV_FILE, header + lines.join('\n') + '\n', { mode: 0o600 });
}

function request(method, url, { body, headers = {} } = {}) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(url, { method, timeout: 10_000, headers: { ...headers, ...(payload ? { 'content-type': 'application/json' } : {}) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode, text }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(payload);
  });
}

/** A curl line checked against the running API: login + an authenticated call, or login alone. */
async function verifiedCurl(apiBase, login) {
  const credentials = { email: login.email, password: login.password };
  const loginCurl = `curl -s -X POST ${apiBase}/auth/login -H 'content-type: application/json' -d '${JSON.stringify(credentials)}'`;
  const response = await request('POST', `${apiBase}/auth/login`, { body: credentials });
  if (response.status !== 200) {
    return { curl: loginCurl, ok: false, note: `the demo login answered ${response.status}: ${response.text.slice(0, 300)}` };
  }
  const token = JSON.parse(response.text).access_token;
  const audit = await request('GET', `${apiBase}/audit?limit=1`, { headers: { authorization: `Bearer ${token}` } });
  if (audit.status !== 200) return { curl: loginCurl, ok: true };
  const extract = `node -pe 'JSON.parse(require("fs").readFileSync(0, "utf8")).access_token'`;
  return {
    curl: `TOKEN=$(${loginCurl} | ${extract}) && curl -s '${apiBase}/audit?limit=1' -H "authorization: Bearer $TOKEN"`,
    ok: true,
  };
}

async function main() {
  await runOnNode24({ root: ROOT, script: fileURLToPath(import.meta.url), log });
  assertNodeVersion();
  const p = plan();
  await services.assertPortsFree(portsToCheck(p)); // before the slow steps: fail fast

  step('dependencies');
  await ensureDependencies({ root: ROOT, log });
  step('tools');
  // Only what this run starts: an external Temporal or S3 needs neither the CLI nor MinIO (nor Go).
  const tools = await ensureTools({ root: ROOT, log, only: [...(p.temporal ? ['temporal'] : []), ...(p.minio ? ['minio'] : [])] });
  if (SKIP_BUILD) {
    step('build skipped (--skip-build): running dist/ as it is');
  } else {
    step('build (tsc)');
    await runNpm(['run', '--silent', 'build'], { cwd: ROOT });
  }
  await services.assertPortsFree(portsToCheck(p));

  const secrets = loadDevSecrets(path.join(DATA, 'secrets.env'));
  const runner = new ProcessRunner({ log });
  runner.installSignalHandlers({
    onStopped: (signal, error) => {
      fs.rmSync(STACK_ENV_FILE, { force: true });
      log(error ? `stopped, with problems: ${error.message}` : 'stopped cleanly; data kept in .data/');
      process.exit(error ? 1 : 0);
    },
  });

  try {
    step('infrastructure');
    const infraStarted = Date.now();
    const [postgres, temporal, minio] = await Promise.all([
      p.postgres &&
        services.startPostgres({
          runner,
          dataDir: path.join(DATA, 'postgres'),
          port: p.postgres.port,
          password: secrets.POSTGRES_PASSWORD,
          appPassword: secrets.POSTGRES_APP_PASSWORD,
          persistent: true,
        }),
      p.temporal &&
        services.startTemporal({
          runner,
          bin: tools.temporal,
          port: p.temporal.port,
          uiPort: p.temporal.uiPort,
          dbFile: path.join(DATA, 'temporal.db'),
          headless: false,
        }),
      p.minio &&
        services.startMinio({
          runner,
          bin: tools.minio,
          dataDir: path.join(DATA, 'minio'),
          port: p.minio.port,
          consolePort: p.minio.consolePort,
          accessKey: secrets.S3_ACCESS_KEY,
          secretKey: secrets.S3_SECRET_KEY,
          browser: true,
        }),
    ]);
    log(`infrastructure ready in ${seconds(Date.now() - infraStarted)}`);

    const env = process.env;
    const stackEnv = {
      APP_ENV: env.APP_ENV || 'development',
      API_HOST: env.API_HOST || HOST,
      API_PORT: String(p.apiPort),
      WORKER_HTTP_PORT: String(p.workerHttpPort),
      // The API and the worker connect as the app's role; migrations run as the owner.
      DATABASE_URL: postgres ? postgres.appDatabaseUrl : env.DATABASE_URL,
      DATABASE_MIGRATION_URL: postgres ? postgres.databaseUrl : env.DATABASE_MIGRATION_URL,
      TEMPORAL_ADDRESS: temporal ? temporal.address : env.TEMPORAL_ADDRESS,
      TEMPORAL_NAMESPACE: env.TEMPORAL_NAMESPACE || 'default',
      TEMPORAL_UI_URL: temporal ? temporal.uiUrl : env.TEMPORAL_UI_URL || '',
      S3_ENDPOINT: minio ? minio.endpoint : env.S3_ENDPOINT,
      S3_ACCESS_KEY: minio ? secrets.S3_ACCESS_KEY : env.S3_ACCESS_KEY,
      S3_SECRET_KEY: minio ? secrets.S3_SECRET_KEY : env.S3_SECRET_KEY,
      JWT_SECRET: env.JWT_SECRET || secrets.JWT_SECRET,
      INTERNAL_JWT_SECRET: env.INTERNAL_JWT_SECRET || secrets.INTERNAL_JWT_SECRET,
      DATA_ENCRYPTION_KEY: env.DATA_ENCRYPTION_KEY || secrets.DATA_ENCRYPTION_KEY,
    };
    // External S3 without keys: the environment's role (nothing to write).
    for (const [key, value] of Object.entries(stackEnv)) if (value === undefined) delete stackEnv[key];
    writeStackEnv(stackEnv);
    // The owner's URL goes to the migrations only, never to the app's processes.
    const childEnv = services.withoutOwnerUrl({
      ...env,
      ...stackEnv,
      DEMO_ADMIN_PASSWORD: env.DEMO_ADMIN_PASSWORD || secrets.DEMO_ADMIN_PASSWORD,
    });
    const nodeScript = (script, nodeFlags = []) => [process.execPath, [...nodeFlags, path.join(ROOT, script)]];
    const options = { env: childEnv, cwd: ROOT };

    step('migrate + seed');
    await runner.run('migrate', ...nodeScript('dist/db/migrate-cli.js'), { ...options, env: { ...env, ...stackEnv } });
    // The seed's last line carries the demo password: echo its log lines, not that one.
    const seedLines = await runner.run('seed', ...nodeScript('dist/scripts/seed-demo.js'), { ...options, echo: false });
    const seedSink = runner.output('seed');
    seedLines.filter((line) => parsePinoLine(line)).forEach((line) => seedSink(line));
    const login = parseSeedResult(seedLines);

    step('worker + API');
    // Started through these functions again when they die (superviseProcess below).
    const restartable = {
      worker: () => runner.start('worker', ...nodeScript('dist/workers/main.js', WORKER_NODE_FLAGS), options),
      // The access log of successful requests goes to .data/logs/api.log only: the gateway's
      // requests every 3 s would bury the lines worth reading (errors, webhooks, the gateway's news).
      api: () => runner.start('api', ...nodeScript('dist/api/server.js'), { ...options, echo: notRoutineRequest, logFile: path.join(DATA, 'logs', 'api.log') }),
    };
    const worker = restartable.worker();
    const workerUrl = parsePinoLine(await waitForLine(worker, pinoMsg('worker ready'), 180_000, '"worker ready"')).probes;
    const api = restartable.api();
    await waitForLine(api, pinoMsg('api listening'), 60_000, '"api listening"');
    const apiOrigin = `http://${stackEnv.API_HOST === '0.0.0.0' ? HOST : stackEnv.API_HOST}:${p.apiPort}`;
    await services.waitUntil(async () => (await services.httpStatus(`${apiOrigin}/livez`)) === 200, {
      what: `API ${apiOrigin}/livez`,
      timeoutMs: 30_000,
      child: api,
    });

    const apiBase = `${apiOrigin}/api/v1`;
    if (p.demoWebhookPort) {
      step('demo plant (through the API)');
      const demoEnv = {
        ...childEnv,
        DEMO_API_ORIGIN: apiOrigin,
        DEMO_ADMIN_EMAIL: login.email,
        DEMO_ADMIN_PASSWORD: login.password,
        DEMO_STATE_FILE,
        DEMO_WEBHOOK_PORT: String(p.demoWebhookPort),
      };
      const demoOptions = { env: demoEnv, cwd: ROOT };
      restartable.webhooks = () => runner.start('webhooks', ...nodeScript('dist/demo/webhook-receiver.js'), demoOptions);
      restartable.gateway = () => runner.start('gateway', ...nodeScript('dist/demo/gateway.js'), demoOptions);
      const receiver = restartable.webhooks();
      const webhookUrl = parsePinoLine(await waitForLine(receiver, pinoMsg('demo webhook receiver listening'), 30_000, 'the receiver URL')).url;
      const seeded = await runner.run('demo-seed', ...nodeScript('dist/demo/seed-plant.js'), { env: { ...demoEnv, DEMO_WEBHOOK_URL: webhookUrl }, cwd: ROOT, echo: false });
      const result = JSON.parse(seeded.filter((line) => line.startsWith('{')).pop());
      log(result.created > 0 ? `demo plant: created ${result.created} resources (${result.kept} kept)` : `demo plant: already seeded (${result.kept} resources kept)`);
      restartable.gateway();
    }
    const check = await verifiedCurl(apiBase, login).catch((error) => ({ ok: false, note: error.message, curl: null }));
    printSummary({ apiOrigin, apiBase, workerUrl, temporal, minio, secrets, login, check, env: stackEnv, demo: Boolean(p.demoWebhookPort) });

    // The API and the worker are restarted with backoff when they die (one bad request must not
    // stop the stack); infrastructure that dies takes the stack down with a clear message.
    // A process whose event loop is stuck answers no probe and exits by itself only through its
    // watchdog (EVENT_LOOP_STALL_LIMIT_MS): the supervisor replaces it too, as Kubernetes would.
    superviseProcess({ name: 'worker', start: restartable.worker, isStopping: () => runner.stopping, log, liveness: { url: `${workerUrl}/livez` } }, worker);
    superviseProcess({ name: 'api', start: restartable.api, isStopping: () => runner.stopping, log, liveness: { url: `${apiOrigin}/livez` } }, api);
    for (const name of ['webhooks', 'gateway']) {
      const child = runner.runningChildren().find((c) => c.name === name);
      if (child) superviseProcess({ name, start: restartable[name], isStopping: () => runner.stopping, log }, child);
    }
    const watched = runner
      .runningChildren()
      .filter((child) => !Object.hasOwn(restartable, child.name))
      .map((child) => [child.name, child.exited]);
    if (postgres) watched.push(['postgres', postgres.exited]);
    for (const [name, exited] of watched) {
      exited.then(({ code, signal }) => {
        if (runner.stopping) return;
        log(`${name} exited unexpectedly (${signal ? 'signal ' + signal : 'code ' + code}); stopping everything`);
        runner.stopAll().finally(() => {
          fs.rmSync(STACK_ENV_FILE, { force: true });
          process.exit(1);
        });
      });
    }
  } catch (error) {
    if (runner.stopping) return; // Ctrl-C during start-up: the signal handler finishes the job
    log(`\n✗ ${error.message}\n`);
    log('stopping what was started…');
    await runner.stopAll().catch((stopError) => log(stopError.message));
    fs.rmSync(STACK_ENV_FILE, { force: true });
    process.exit(1);
  }
}

/** Console filter of the API's output: every line but the access log of a request answered below 400. */
function notRoutineRequest(line) {
  const entry = parsePinoLine(line);
  return !(entry && entry.msg === 'request' && typeof entry.status === 'number' && entry.status < 400);
}

function parseSeedResult(lines) {
  const last = [...lines].reverse().find((line) => line.trim());
  try {
    const result = JSON.parse(last);
    if (result.email && result.password) return { email: result.email, password: result.password, tenantId: result.tenant_id };
  } catch {
    // fall through
  }
  throw new Error(`the seed's last line is not {"tenant_id","email","password"}: ${last}`);
}

function printSummary({ apiOrigin, apiBase, workerUrl, temporal, minio, secrets, login, check, env, demo }) {
  const rows = [
    ['API', apiBase],
    ['API docs', `${apiBase}/docs`],
    ['API probes', `${apiOrigin}/readyz   metrics ${apiOrigin}/metrics`],
    ['Worker probes', `${workerUrl}/readyz   metrics ${workerUrl}/metrics`],
    ['Temporal UI', temporal ? temporal.uiUrl : env.TEMPORAL_UI_URL || `(external Temporal at ${env.TEMPORAL_ADDRESS})`],
    ['MinIO console', minio ? `${minio.consoleUrl}   user ${secrets.S3_ACCESS_KEY}  password ${secrets.S3_SECRET_KEY}` : `(external S3 at ${env.S3_ENDPOINT})`],
    ['Demo login', `${login.email} / ${login.password}   (tenant ${login.tenantId})`],
  ];
  const line = '─'.repeat(78);
  log(`\n${line}\n${bold(`industrial-ops is up — ready in ${seconds(Date.now() - started)}`)}`);
  for (const [label, value] of rows) log(`  ${label.padEnd(14)} ${value}`);
  if (check.curl) log(`\n  Try it:\n  ${check.curl}`);
  if (demo) {
    const ui = temporal ? temporal.uiUrl : env.TEMPORAL_UI_URL;
    const query = encodeURIComponent(`TenantId="${login.tenantId}"`);
    log(`
  The demo plant is running (a simulated gateway posts readings every 3 s; one pump degrades):
  - the dashboard: curl '${apiBase}/dashboard' -H "authorization: Bearer $TOKEN" (alerts, health, open work orders)
  - in about a minute a work order from the compressor's run hours; after about three, the
    prognostics of "Cooling pump P-101" project when it leaves its band; after about four, its alert and the
    "Vibration watcher" agent's run; "webhooks" lines below show each delivery (signatures checked;
    every fourth one is refused once, then retried 30 s later). The API's access log: .data/logs/api.log${
      ui
        ? `
  - the workflows behind it: ${ui}/namespaces/${env.TEMPORAL_NAMESPACE || 'default'}/workflows?query=${query}
    (maintenance-plan/... with their timers, webhook-delivery/... with a retry, machine-agent/...)`
        : ''
    }${
      minio
        ? `
  - the report files: ${minio.consoleUrl}/browser/industrial-ops (folder reports/${login.tenantId}/)`
        : ''
    }`);
  }
  if (!check.ok) log(`\n  ⚠ the curl above was checked and failed: ${check.note}`);
  log(`\n  Data: .data/ (kept between runs; secrets in .data/secrets.env). Ctrl-C stops everything.\n${line}\n`);
}

main().catch((error) => {
  log(`\n✗ ${error.message}`);
  process.exit(1);
});
