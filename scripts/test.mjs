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
const { ensureFuzzer, ensureKubernetesValidate, ensureKustomize, ensureOasdiff, ensureTools } = require('./lib/tools.cjs');
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
    // The deployment checks (test/unit/deploy/kubernetes.test.ts) render and validate deploy/k8s.
    await ensureKustomize({ root: ROOT, log });
    await ensureKubernetesValidate({ root: ROOT, log });
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
  const runDir = path.join(ROOT, '.run');
  fs.mkdirSync(runDir, { recursive: true });
  const extraArgs = process.argv.slice(2);
  // The whole suite: two jest runs side by side (below). With arguments (one file, a pattern,
  // --selectProjects ...): one jest run, as given.
  const runs = extraArgs.length ? [{ name: 'jest', args: extraArgs }] : splitSuite();
  try {
    await timed('jest', async () => {
      const results = await Promise.allSettled(runs.map((run) => runJest(run, runDir)));
      const failed = results.filter((result) => result.status === 'rejected');
      if (failed.length) throw new Error(failed.map((result) => result.reason.message).join('\n  '));
    });
  } finally {
    printTally(runs.map((run) => resultsFile(run, runDir)));
  }
}

/**
 * Jest runs its files one at a time on two cores (maxWorkers is the core count minus one). Two
 * files take a third of the suite's time and mostly wait: the fuzzer's fixed time budget
 * (test/api/fuzz.test.ts, 300 s) and scale-out's kills and restarts of processes of its own
 * (test/api/scale-out.test.ts, about 140 s). They run in a second jest beside the rest, with a
 * stack of their own (logs in .run/side/), so no file shares its stack with a concurrent one; the
 * workflow tests (about 110 s, each file on its own time-skipping server) follow them there, which
 * evens the two runs out.
 */
const SIDE = ['test/api/fuzz.test.ts', 'test/api/scale-out.test.ts', 'test/workflows/'];
function splitSuite() {
  const patterns = SIDE.map((file) => `<rootDir>/${file.endsWith('/') ? file : `${file}$`}`);
  return [
    { name: 'jest', args: ['--testPathIgnorePatterns', ...patterns] },
    { name: 'jest-side', args: patterns.map((pattern) => pattern.replace('<rootDir>/', '')), runDir: 'side' },
  ];
}

function resultsFile(run, runDir) {
  return path.join(runDir, `${run.name}-results.json`);
}

/** One jest run; the side run's output goes to its log file and is printed whole when it ends. */
async function runJest(run, runDir) {
  const outputFile = resultsFile(run, runDir);
  fs.rmSync(outputFile, { force: true });
  const args = ['--ci', '--json', `--outputFile=${outputFile}`, ...run.args];
  if (!run.runDir) {
    return runCommand(localBin(ROOT, 'jest'), args, { cwd: ROOT }).catch(() => {
      throw new Error('jest reported failures (see above)');
    });
  }
  const logFile = path.join(runDir, `${run.name}.log`);
  const out = fs.openSync(logFile, 'w');
  const env = { ...process.env, TEST_STACK_RUN_DIR: path.join(runDir, run.runDir) };
  try {
    await runCommand(localBin(ROOT, 'jest'), args, { cwd: ROOT, env, stdio: ['ignore', out, out] });
  } catch {
    throw new Error(`${run.name} (${SIDE.join(', ')}) reported failures (see its output above, or ${path.relative(ROOT, logFile)})`);
  } finally {
    fs.closeSync(out);
    log(`\n▸ ${run.name}: ${SIDE.join(', ')} (stack logs in ${path.relative(ROOT, env.TEST_STACK_RUN_DIR)}/)`);
    process.stdout.write(fs.readFileSync(logFile, 'utf8'));
  }
}

/** The plain closing line CI reads in any language: `tests: N passed, N failed`, over every jest run. */
function printTally(resultsFiles) {
  const all = resultsFiles.filter((file) => fs.existsSync(file)).map((file) => JSON.parse(fs.readFileSync(file, 'utf8')));
  if (!all.length) return;
  const sum = (key) => all.reduce((total, results) => total + results[key], 0);
  tally = `tests: ${sum('numPassedTests')} passed, ${sum('numFailedTests')} failed` + (sum('numPendingTests') ? `, ${sum('numPendingTests')} skipped` : '');
  failures = all.flatMap(failuresOf);
  if (sum('numTotalTests') === 0) throw new Error('jest ran no test');
}
let tally = null;
let failures = [];

/**
 * Each failed test (or file that failed to run) with the head of its message: printed after the
 * tally, so the last lines of a long CI log name what failed.
 */
function failuresOf(results) {
  const head = (message) =>
    message
      .split('\n')
      .filter((line) => line.trim())
      .slice(0, 6)
      .map((line) => `      ${line}`)
      .join('\n');
  return results.testResults.flatMap((file) => {
    const where = path.relative(ROOT, file.name);
    const tests = file.assertionResults.filter((test) => test.status === 'failed');
    if (!tests.length && file.status === 'failed') return [`  ${where}\n${head(file.message || 'the file failed to run')}`];
    return tests.map((test) => `  ${where} › ${test.fullName}\n${head(test.failureMessages.join('\n'))}`);
  });
}

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
    if (failures.length) log(`failed:\n${failures.join('\n')}`);
    process.exit(1);
  },
);
