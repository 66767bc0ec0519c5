#!/usr/bin/env node
// `npm run dev`: the watch loop. tsc recompiles dist/ on every save; the API and the worker run from
// dist/ under `node --watch`, which restarts each when its compiled files change. Their settings
// come from the environment, then from .data/stack.env when `npm run up` runs (the addresses of its
// PostgreSQL, Temporal and MinIO). Ctrl-C stops all three. No bundle rebuild: the worker's workflow
// bundle is rebuilt by `npm run build` (workflow code changes need it).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const STACK_ENV = path.join(ROOT, '.data', 'stack.env');
const children = [];

function start(name, command, args) {
  const child = spawn(command, args, { cwd: ROOT, stdio: 'inherit' });
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
  const envFile = fs.existsSync(STACK_ENV) ? [`--env-file=${STACK_ENV}`] : [];
  start('api', process.execPath, ['--watch-path=dist', ...envFile, 'dist/api/server.js']);
  start('worker', process.execPath, ['--watch-path=dist', ...envFile, 'dist/workers/main.js']);
});
