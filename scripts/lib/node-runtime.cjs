'use strict';
// The launchers (npm test, npm run up) run on Node 24 even where the machine's own Node is older:
// they start on whatever Node npm found, fetch the pinned Node 24 once (tools.cjs ensureNode) and
// run themselves again under it, with its directory first on PATH so jest, tsc, ESLint (their
// `#!/usr/bin/env node`) and every child that uses process.execPath (the worker, the API, the
// migrations, PostgreSQL's launcher) run on it too. Node built-ins only before that point.
const { spawn } = require('node:child_process');
const os = require('node:os');
const path = require('node:path');
const { ensureNode, VERSIONS } = require('./tools.cjs');

const WANTED_MAJOR = 24;

/**
 * Resolves when the running Node is 24 or newer; otherwise runs `script` with this process's
 * arguments under the pinned Node 24 and exits with its status (it never resolves then).
 */
async function runOnNode24({ root, script, log = (text) => process.stdout.write(text + '\n') }) {
  if (Number(process.versions.node.split('.')[0]) >= WANTED_MAJOR) return;
  const node = await ensureNode({ root, log });
  log(`node: this machine's Node is ${process.versions.node}; running under Node ${VERSIONS.node} (${path.relative(root, node)})`);
  const env = { ...process.env, PATH: `${path.dirname(node)}${path.delimiter}${process.env.PATH ?? ''}` };
  const child = spawn(node, [script, ...process.argv.slice(2)], { stdio: 'inherit', env });
  // Ctrl-C reaches the whole foreground group (the child too): wait for its own clean-up.
  // A SIGTERM sent to this process alone is passed on.
  process.on('SIGINT', () => {});
  process.on('SIGTERM', () => child.kill('SIGTERM'));
  await new Promise(() => {
    child.on('error', (error) => {
      process.stderr.write(`could not start ${node}: ${error.message}\n`);
      process.exit(1);
    });
    child.on('exit', (code, signal) => process.exit(code ?? 128 + (os.constants.signals[signal] ?? 0)));
  });
}

module.exports = { runOnNode24, WANTED_MAJOR };
