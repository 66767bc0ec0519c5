#!/usr/bin/env node
// `npm run dev`: the watch loop. tsc recompiles dist/ on every save; the API and the worker run from
// dist/ under `node --watch`, which restarts each when its compiled files change. Their settings
// come from the environment, then from .data/stack.env when `npm run up` runs (its PostgreSQL,
// Temporal, MinIO and secrets), on ports 3100 and 3101 beside its own API and worker unless
// API_PORT / WORKER_HTTP_PORT say otherwise. Ctrl-C stops all three. No bundle rebuild: the
// worker's workflow bundle is rebuilt by `npm run build` (workflow code changes need it).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseEnv } from 'node:util';
import { createRequire } from 'node:module';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { WORKER_NODE_FLAGS } = createRequire(import.meta.url)('./lib/worker-node-flags.cjs');
const STACK_ENV = path.join(ROOT, '.data', 'stack.env');
const children = [];

/** The stack's settings under the shell's; the owner's database URL stays with the migrations, as in `npm run up`. */
function appEnv() {
  const stack = fs.existsSync(STACK_ENV) ? parseEnv(fs.readFileSync(STACK_ENV, 'utf8')) : {};
  delete stack.DATABASE_MIGRATION_URL;
  return { ...stack, API_PORT: '3100', WORKER_HTTP_PORT: '3101', ...process.env };
}

function start(name, command, args, env = process.env) {
  const child = spawn(command, args, { cwd: ROOT, stdio: 'inherit', env });
  child.on('exit', (code, signal) => {
    if (!stopping) process.stdout.write(`dev: ${name} exited (${signal ?? code})\n`);
  });
  children.push(child);
  return child;
}

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    stopping = true;
    for (const child of children) child.kill('SIGTERM');
  });
}

const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
// One build first, so the API and the worker start from compiled code; then the watcher.
const build = spawn(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
build.on('exit', (code) => {
  if (code !== 0 || stopping) process.exit(code ?? 1);
  start('tsc', process.execPath, [tsc, '-p', 'tsconfig.build.json', '--watch', '--preserveWatchOutput']);
  const env = appEnv();
  start('api', process.execPath, ['--watch-path=dist', 'dist/api/server.js'], env);
  start('worker', process.execPath, [...WORKER_NODE_FLAGS, '--watch-path=dist', 'dist/workers/main.js'], env);
});
