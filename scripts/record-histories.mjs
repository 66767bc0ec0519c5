#!/usr/bin/env node
// `npm run histories:record [-- <jest path pattern>...]`: records the workflow histories that
// test/workflows/replay.test.ts replays, then runs that replay test.
//   Runs the workflow tests that call recordHistory (test/support/record-history.ts) with
//   RECORD_HISTORIES=1 on the time-skipping server: each writes test/workflows/histories/<name>.json
//   from a real run. Without patterns, every such test file runs and history files that no test
//   wrote any more are removed; with patterns (e.g. `job-workflows`), only those files run and
//   nothing is removed. histories/kept/ (histories of earlier workflow code) is never touched. Re-record only after an intentional change of a workflow that keeps old
//   histories replayable (`patched`): see test/workflows/histories/README.md.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { runOnNode24 } = require('./lib/node-runtime.cjs');
const { assertNodeVersion, ensureDependencies, runCommand, localBin, seconds } = require('./lib/bootstrap.cjs');
const { ensureTools } = require('./lib/tools.cjs');

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TESTS = path.join(ROOT, 'test', 'workflows');
const HISTORIES = path.join(TESTS, 'histories');
const log = (text) => process.stdout.write(text + '\n');

/** The workflow test files that record a history (the replay test itself only reads them). */
function recordingTestFiles() {
  return fs
    .readdirSync(TESTS)
    .filter((name) => name.endsWith('.test.ts') && name !== 'replay.test.ts')
    .filter((name) => fs.readFileSync(path.join(TESTS, name), 'utf8').includes('recordHistory('))
    .map((name) => path.join('test', 'workflows', name));
}

async function main() {
  // On Node 24, as npm test (scripts/lib/node-runtime.cjs).
  await runOnNode24({ root: ROOT, script: fileURLToPath(import.meta.url), log });
  assertNodeVersion();
  await ensureDependencies({ root: ROOT, log });
  await ensureTools({ root: ROOT, log, only: ['temporalTestServer'] });
  const patterns = process.argv.slice(2);
  const files = patterns.length ? patterns : recordingTestFiles();
  const started = Date.now();
  log(`▸ recording histories: ${files.join(' ')}`);
  // Paths first: --selectProjects takes a list and would swallow them.
  const jest = (paths, env) => runCommand(localBin(ROOT, 'jest'), [...paths, '--selectProjects', 'workflows'], { cwd: ROOT, env: { ...process.env, ...env } });
  await jest(files, { RECORD_HISTORIES: '1' });

  const written = [];
  const stale = [];
  for (const name of fs.readdirSync(HISTORIES).filter((n) => n.endsWith('.json'))) {
    (fs.statSync(path.join(HISTORIES, name)).mtimeMs >= started ? written : stale).push(name);
  }
  if (!patterns.length) {
    for (const name of stale) fs.rmSync(path.join(HISTORIES, name));
    if (stale.length) log(`removed histories no test records any more: ${stale.join(', ')}`);
  }
  log(`recorded ${written.length} histories in ${seconds(Date.now() - started)}`);

  log('▸ replaying them');
  await jest(['test/workflows/replay.test.ts'], { RECORD_HISTORIES: '0' });
  log('✓ histories recorded and replayed; review `git diff test/workflows/histories` and commit them');
}

main().catch((error) => {
  console.error(`✗ ${error.message}`);
  process.exit(1);
});
