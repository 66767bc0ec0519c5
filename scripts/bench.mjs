#!/usr/bin/env node
// `npm run bench`: builds, starts a throwaway stack on loopback (the same one the API tests use),
// runs every benchmark once (dist/bench/run.js) and prints one table. Bounded in time.
// `npm run bench -- --help`: the benches and the options (workers, due plans, a Temporal cluster
// of the operator's), scripts/lib/bench-options.cjs.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { runOnNode24 } = require('./lib/node-runtime.cjs');
const { assertNodeVersion, ensureDependencies, runCommand, localBin } = require('./lib/bootstrap.cjs');
const { startEphemeralStack } = require('./lib/ephemeral-stack.cjs');
const { parseBenchOptions } = require('./lib/bench-options.cjs');

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const log = (text) => process.stderr.write(`[bench] ${text}\n`);

async function main() {
  let options;
  try {
    options = parseBenchOptions(process.argv.slice(2), process.env);
  } catch (error) {
    log(error.message);
    process.exit(2);
  }
  if (options.help) {
    process.stdout.write(options.usage);
    return;
  }
  // On Node 24, as npm test (scripts/lib/node-runtime.cjs).
  await runOnNode24({ root: ROOT, script: fileURLToPath(import.meta.url), log });
  assertNodeVersion();
  await ensureDependencies({ root: ROOT, log });
  await runCommand(localBin(ROOT, 'tsc'), ['-p', 'tsconfig.build.json'], { cwd: ROOT });
  // Benches of pure functions (`npm run bench -- pii`) need no stack: dist/bench/run.js says which.
  const needsStack = spawnSync(process.execPath, [path.join(ROOT, 'dist/bench/run.js'), '--needs-stack', ...options.benches], { cwd: ROOT, encoding: 'utf8' });
  if (needsStack.status === 0 && needsStack.stdout.trim() === 'no') {
    await runCommand(process.execPath, [path.join(ROOT, 'dist/bench/run.js'), ...options.benches], { cwd: ROOT, env: { ...process.env, ...options.env } });
    return;
  }
  await runCommand(process.execPath, [path.join(ROOT, 'dist/workers/workflow-bundle.js')], { cwd: ROOT });
  // BENCH_TEMPORAL_DB_FILE: the dev server keeps its SQLite in that file (for the 100 000 idle
  // plans; on a disk it starts plans 3x slower than in memory, on a tmpfs such as /dev/shm not).
  const temporalDbFile = process.env.BENCH_TEMPORAL_DB_FILE || null;
  if (options.temporal) log(`Temporal: ${options.temporal.TEMPORAL_ADDRESS}, namespace ${options.temporal.TEMPORAL_NAMESPACE} (no dev server)`);
  const stack = await startEphemeralStack({
    root: ROOT,
    runDir: path.join(ROOT, '.run', 'bench'),
    log,
    workers: options.workers,
    temporal: options.temporal,
    // The capacity bench counts the service's statements (bench/capacity.ts).
    postgresSettings: options.benches.length === 0 || options.benches.includes('capacity') ? ['shared_preload_libraries=pg_stat_statements'] : [],
    temporalDbFile,
    extraEnv: { LOG_LEVEL: 'warn' },
  });
  // BENCH_CPU_PROF=<dir>: a V8 CPU profile of the bench process (the API under test runs in it) is
  // written there, for finding where a figure's time goes (docs/PERFORMANCE.md).
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROF)}`] : [];
  try {
    // --expose-gc: the export bench collects before it takes its memory baseline (bench/privacy-export.ts).
    // What the benches measure each part by: the service workers' pids (the first for its memory),
    // PostgreSQL's and the dev server's, whose /metrics counts actions and persistence requests.
    const pids = stack.workerPids();
    const measured = {
      BENCH_WORKER_PID: String(pids[0] ?? ''),
      BENCH_WORKER_PIDS: pids.join(','),
      BENCH_POSTGRES_PID: String(stack.postgresPid),
      BENCH_TEMPORAL_PID: String(stack.temporalPid ?? ''),
      BENCH_TEMPORAL_METRICS_URL: stack.temporalMetricsUrl ?? '',
    };
    await runCommand(process.execPath, [...profile, '--expose-gc', path.join(ROOT, 'dist/bench/run.js'), ...options.benches], {
      cwd: ROOT,
      env: { ...stack.processEnv(), ...options.env, ...measured },
    });
  } finally {
    await stack.stop();
  }
}

main().catch((error) => {
  log(error.stack || error.message);
  process.exit(1);
});
