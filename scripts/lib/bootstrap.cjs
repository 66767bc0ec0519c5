'use strict';
// What `npm run up` and `npm test` do before anything else, in a fresh clone: check Node, install
// the npm dependencies when missing or stale, run npm scripts. Node built-ins only.
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

// 22.15: the oldest Node the OpenTelemetry SDK's 3.x line supports (require() loads ES modules
// without a flag from 22.12; package.json engines). The launchers move themselves to Node 24 first
// (node-runtime.cjs).
const MIN_NODE = [22, 15];

function assertNodeVersion() {
  const [major, minor] = process.versions.node.split('.').map(Number);
  if (major < MIN_NODE[0] || (major === MIN_NODE[0] && minor < MIN_NODE[1])) {
    throw new Error(`Node ${process.versions.node} is too old: this project needs Node >= ${MIN_NODE.join('.')}`);
  }
}

function mtime(file) {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return null;
  }
}

/** The reason node_modules needs `npm install`, or null when it is up to date. */
function dependenciesStale(root) {
  const installed = mtime(path.join(root, 'node_modules', '.package-lock.json'));
  if (installed === null) return 'node_modules is missing';
  if ((mtime(path.join(root, 'package-lock.json')) ?? 0) > installed) return 'package-lock.json changed';
  if ((mtime(path.join(root, 'package.json')) ?? 0) > installed) return 'package.json changed';
  return null;
}

/** How to run npm: the npm that started us (npm run …) when known, else `npm` from PATH. */
function npmCommand(args) {
  const cli = process.env.npm_execpath;
  if (cli && /\.(c|m)?js$/.test(cli) && fs.existsSync(cli)) return [process.execPath, [cli, ...args]];
  return [process.platform === 'win32' ? 'npm.cmd' : 'npm', args];
}

/** Runs a command with inherited output; resolves on exit 0, rejects otherwise. */
function runCommand(command, args, { cwd, env = process.env, stdio = 'inherit' } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio });
    child.on('error', (error) => reject(new Error(`could not run ${command}: ${error.message}`)));
    child.on('exit', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`\`${[command, ...args].join(' ')}\` failed (${signal ? 'signal ' + signal : 'exit ' + code})`));
    });
  });
}

function runNpm(args, options) {
  const [command, fullArgs] = npmCommand(args);
  return runCommand(command, fullArgs, options).catch((error) => {
    const exit = /\((exit \d+|signal \w+)\)$/.exec(error.message);
    throw new Error(`npm ${args.join(' ')} failed${exit ? ` (${exit[1]})` : `: ${error.message}`}; see the output above`);
  });
}

/**
 * `npm ci` when node_modules is missing or older than package(-lock).json: exactly the locked
 * versions, and the lockfile is never rewritten (a clone stays clean on every platform).
 */
async function ensureDependencies({ root, log }) {
  const reason = dependenciesStale(root);
  if (!reason) return false;
  log(`deps: ${reason}: running npm ci`);
  await runNpm(['ci', '--no-audit', '--no-fund'], { cwd: root });
  // The marker npm writes may be older than package-lock.json's mtime: touch it so the next run is fast.
  const marker = path.join(root, 'node_modules', '.package-lock.json');
  if (fs.existsSync(marker)) {
    const now = new Date();
    fs.utimesSync(marker, now, now);
  }
  return true;
}

/** A tool from node_modules/.bin. */
function localBin(root, name) {
  return path.join(root, 'node_modules', '.bin', process.platform === 'win32' ? `${name}.cmd` : name);
}

function seconds(ms) {
  return `${(ms / 1000).toFixed(1)} s`;
}

module.exports = { assertNodeVersion, dependenciesStale, ensureDependencies, runCommand, runNpm, localBin, seconds };
