#!/usr/bin/env node
// Runs a compiled entry point (dist/<entry>.js) after an incremental build, passing the
// remaining arguments through. Used by operator commands such as `npm run ops` and `npm run tenant:create`.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const [entry, ...args] = process.argv.slice(2);
if (!entry) {
  console.error('usage: node scripts/run-dist.mjs <entry without .ts> [args...]');
  process.exit(2);
}
const build = spawnSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
  cwd: root,
  stdio: ['ignore', 'inherit', 'inherit'],
});
if (build.status !== 0) process.exit(build.status ?? 1);
// Operator commands run beside a stack of `npm run up`, which publishes its addresses in
// .data/stack.env; variables already in the environment win (process.loadEnvFile keeps them).
const stackEnv = path.join(root, '.data', 'stack.env');
if (fs.existsSync(stackEnv)) process.loadEnvFile(stackEnv);
const run = spawnSync(process.execPath, [path.join(root, 'dist', `${entry}.js`), ...args], { cwd: root, stdio: 'inherit' });
process.exit(run.status ?? 1);
