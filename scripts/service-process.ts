/**
 * A worker or API (or a bench's own server) as a real process from dist/, with the environment of the test stack
 * (global-setup.ts) or the bench's stack plus overrides: for tests that need a process of their own (another Temporal
 * server or database, tracing, two replicas, a SIGKILL). Ready when it prints its ready line.
 */
import fs from 'node:fs';
import path from 'node:path';
import type * as RunnerLib from './lib/process-runner.cjs';
import type * as WorkerNodeFlags from './lib/worker-node-flags.cjs';

/** The checkout's root, from the source (tests) or from dist/ (benches): the first folder up with a package.json. */
function rootFrom(dir: string): string {
  return fs.existsSync(path.join(dir, 'package.json')) ? dir : rootFrom(path.dirname(dir));
}
const ROOT = rootFrom(__dirname);
// From the checkout, not relative to this file: tsc does not copy the .cjs next to dist/scripts/.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const runnerLib = require(path.join(ROOT, 'scripts', 'lib', 'process-runner.cjs')) as typeof RunnerLib;
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const { WORKER_NODE_FLAGS } = require(path.join(ROOT, 'scripts', 'lib', 'worker-node-flags.cjs')) as typeof WorkerNodeFlags;

export interface ServiceProcess {
  readonly pid: number;
  /** Worker: its probe and metrics URL; API: its origin (http://127.0.0.1:port). */
  readonly url: string;
  /** SIGKILL to the process group: a crash, nothing flushed. */
  kill(): Promise<void>;
  /** SIGTERM and wait (the graceful path). */
  stop(): Promise<void>;
  /** SIGTERM to the process alone, as an orchestrator sends it; resolves with how it exited. */
  terminate(): Promise<{ code: number | null; signal: string | null }>;
  /** The first log line (printed before or after the call) whose `msg` is `msg`, parsed. */
  logLine(msg: string, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** How the process exited, whenever it does (on its own: a crash, a stall). */
  readonly exited: Promise<{ code: number | null; signal: string | null }>;
}

/** A Node process from dist/: its script, Node flags, the `msg` of its ready line and its URL read from that line. */
export interface ProcessKind {
  name: string;
  script: string;
  nodeFlags: readonly string[];
  ready: string;
  url: (line: Record<string, unknown>) => string;
}

const KINDS = {
  worker: { name: 'worker', script: 'dist/workers/main.js', nodeFlags: WORKER_NODE_FLAGS, ready: 'worker ready', url: (line) => String(line.probes) },
  api: { name: 'api', script: 'dist/api/server.js', nodeFlags: [], ready: 'api listening', url: (line) => String(line.url).replace(/\/api\/v1$/, '') },
} satisfies Record<string, ProcessKind>;

export function startServiceProcess(kind: keyof typeof KINDS, env: Record<string, string>, logFile: string): Promise<ServiceProcess> {
  return startProcessFromDist(KINDS[kind], env, logFile);
}

/** Any process of `kind` (a bench's own server, say), started and awaited as the worker and the API are. */
export async function startProcessFromDist(kind: ProcessKind, env: Record<string, string>, logFile: string): Promise<ServiceProcess> {
  const { name, script, nodeFlags, ready, url } = kind;
  const runner = new runnerLib.ProcessRunner({ log: () => undefined, graceMs: 10_000 });
  const child = runner.start(name, process.execPath, [...nodeFlags, path.join(ROOT, script)], {
    env: { ...process.env, WORKER_HTTP_PORT: '0', API_PORT: '0', ...env },
    cwd: ROOT,
    echo: false,
    logFile,
  });
  try {
    const line = await runnerLib.waitForLine(child, runnerLib.pinoMsg(ready), 120_000, `"${ready}"`);
    return {
      pid: child.pid,
      url: url(runnerLib.parsePinoLine(line) ?? {}),
      async kill() {
        process.kill(-child.pid, 'SIGKILL');
        await child.exited;
      },
      stop: () => runner.stopAll(),
      async terminate() {
        process.kill(child.pid, 'SIGTERM');
        const { code, signal } = await child.exited;
        return { code, signal };
      },
      logLine: async (msg, timeoutMs = 60_000) => runnerLib.parsePinoLine(await runnerLib.waitForLine(child, runnerLib.pinoMsg(msg), timeoutMs, `"${msg}"`))!,
      exited: child.exited.then(({ code, signal }) => ({ code, signal })),
    };
  } catch (error) {
    await runner.stopAll();
    throw error;
  }
}
