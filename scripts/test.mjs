#!/usr/bin/env node
// `npm test [-- jest args]`: every test from a fresh clone, on Node 24 (fetched once into .tools/node
// where the machine's Node is older: scripts/lib/node-runtime.cjs).
//   deps (npm ci if needed) → tools (.tools/) → build (dist/ holds the worker the API tests
//   start), typecheck (tests included) and lint (ESLint + Prettier), side by side → jest --ci with
//   the extra arguments.
// The API tests' stack (PostgreSQL, Temporal, MinIO, worker) is started by test/support/global-setup.ts.
// Exits non-zero on any failure; prints the time of each step and the total.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { assertNodeVersion, ensureDependencies, runCommand, localBin, seconds } = require('./lib/bootstrap.cjs');
const { ensureFuzzer, ensureOasdiff, ensureTools } = require('./lib/tools.cjs');
const { runOnNode24 } = require('./lib/node-runtime.cjs');

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const log = (text) => process.stdout.write(text + '\n');
const timings = [];

async function timed(name, fn) {
  const started = Date.now();
  try {
    return await fn();
  } finally {
    timings.push(`${name} ${seconds(Date.now() - started)}`);
  }
}

async function main() {
  await runOnNode24({ root: ROOT, script: fileURLToPath(import.meta.url), log });
  assertNodeVersion();
  await timed('deps', () => ensureDependencies({ root: ROOT, log }));
  await timed('tools', async () => {
    await ensureTools({ root: ROOT, log });
    await ensureFuzzer({ root: ROOT, log });
    await ensureOasdiff({ root: ROOT, log });
  });
  log('▸ build + typecheck + lint');
  // Single-threaded tsc and ESLint runs on the cores: side by side takes about the time of the slowest one.
  const tsc = (name, args) =>
    timed(name, () =>
      runCommand(localBin(ROOT, 'tsc'), args, { cwd: ROOT }).catch(() => {
        throw new Error(`${name} (tsc ${args.join(' ')}) failed: see the errors above`);
      }),
    );
  // As `npm run lint`: ESLint (type-checked rules), then Prettier's check; either failing fails npm test.
  const lint = () =>
    timed('lint', async () => {
      await runCommand(localBin(ROOT, 'eslint'), ['.'], { cwd: ROOT }).catch(() => {
        throw new Error('lint (eslint .) failed: see the findings above');
      });
      await runCommand(localBin(ROOT, 'prettier'), ['--check', '.', '--log-level', 'warn'], { cwd: ROOT }).catch(() => {
        throw new Error('lint (prettier --check .) failed: run `npx prettier --write .`');
      });
    });
  // The build is tsc, then the workflow bundle the worker loads (as `npm run build`).
  const bundle = () => timed('workflow bundle', () => runCommand(process.execPath, [path.join(ROOT, 'dist/workers/workflow-bundle.js')], { cwd: ROOT }));
  const results = await Promise.allSettled([tsc('build', ['-p', 'tsconfig.build.json']).then(bundle), tsc('typecheck', ['-p', 'tsconfig.json', '--noEmit']), lint()]);
  const failed = results.filter((result) => result.status === 'rejected');
  if (failed.length) throw new Error(failed.map((result) => result.reason.message).join('\n  '));
  log('▸ jest');
  const resultsFile = path.join(ROOT, '.run', 'jest-results.json');
  fs.mkdirSync(path.dirname(resultsFile), { recursive: true });
  fs.rmSync(resultsFile, { force: true });
  const jestArgs = ['--ci', '--json', `--outputFile=${resultsFile}`, ...process.argv.slice(2)];
  try {
    await timed('jest', () =>
      runCommand(localBin(ROOT, 'jest'), jestArgs, { cwd: ROOT }).catch(() => {
        throw new Error('jest reported failures (see above)');
      }),
    );
  } finally {
    printTally(resultsFile);
  }
}

/** The plain closing line CI reads in any language: `tests: N passed, N failed`. */
function printTally(resultsFile) {
  if (!fs.existsSync(resultsFile)) return;
  const results = JSON.parse(fs.readFileSync(resultsFile, 'utf8'));
  tally = `tests: ${results.numPassedTests} passed, ${results.numFailedTests} failed` + (results.numPendingTests ? `, ${results.numPendingTests} skipped` : '');
  if (results.numTotalTests === 0) throw new Error('jest ran no test');
}
let tally = null;

const started = Date.now();
main().then(
  () => {
    log(`\n✓ npm test passed in ${seconds(Date.now() - started)} (${timings.join(', ')})`);
    if (tally) log(tally);
  },
  (error) => {
    log(`\n✗ ${error.message}`);
    log(`npm test FAILED after ${seconds(Date.now() - started)} (${timings.join(', ')})`);
    if (tally) log(tally);
    process.exit(1);
  },
);
