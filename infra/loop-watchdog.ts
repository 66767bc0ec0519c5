/**
 * Liveness judged from outside the event loop. A synchronous endless loop on the main thread (a
 * parser that never returns) stops every timer, callback and signal handler of the process, its
 * /livez and its SIGTERM handler included; a worker thread keeps running on its own OS thread.
 * The main thread stamps a shared clock every `beatMs`; the watchdog thread reads it and, when
 * the loop has not turned for `stallLimitMs`, writes one JSON log line (straight to fd 2: the
 * main thread, which would forward a thread's console, is the one stuck) and ends the process
 * with SIGALRM (SIGKILL a moment later if something handles that), so its supervisor starts a
 * fresh one: Kubernetes, compose's restart policy, `npm run up`. The clock is monotonic, so a
 * suspended machine does not read as a stall.
 */
import { Worker } from 'node:worker_threads';

export interface LoopWatchdogOptions {
  /** Named in the log line (`api`, `worker`). */
  component: string;
  /** The event loop not turning for this long ends the process. */
  stallLimitMs: number;
  /** How often the main thread stamps the clock and the thread reads it. */
  beatMs?: number;
}

export interface LoopWatchdog {
  stop(): Promise<void>;
}

/** The exit a stall ends in: SIGALRM, which no part of this process handles. */
export const STALL_SIGNAL = 'SIGALRM';

const WATCH = `
const { workerData } = require('node:worker_threads');
const fs = require('node:fs');
const clock = new BigInt64Array(workerData.clock);
const limitNs = BigInt(workerData.stallLimitMs) * 1000000n;
const timer = setInterval(() => {
  const stalledNs = process.hrtime.bigint() - Atomics.load(clock, 0);
  if (stalledNs <= limitNs) return;
  clearInterval(timer);
  const line = {
    level: 60,
    time: new Date().toISOString(),
    service: 'industrial-ops',
    component: workerData.component,
    pid: process.pid,
    stalled_ms: Number(stalledNs / 1000000n),
    limit_ms: workerData.stallLimitMs,
    signal: workerData.signal,
    msg: workerData.component + ' event loop stalled: ending the process',
  };
  fs.writeSync(2, JSON.stringify(line) + '\\n');
  process.kill(process.pid, workerData.signal);
  setTimeout(() => process.kill(process.pid, 'SIGKILL'), 2000);
}, workerData.beatMs);
`;

export function startLoopWatchdog(options: LoopWatchdogOptions): LoopWatchdog {
  const beatMs = options.beatMs ?? Math.max(50, Math.min(1_000, Math.floor(options.stallLimitMs / 4)));
  const clock = new BigInt64Array(new SharedArrayBuffer(8));
  const stamp = () => Atomics.store(clock, 0, process.hrtime.bigint());
  stamp();
  const beat = setInterval(stamp, beatMs);
  beat.unref();
  const thread = new Worker(WATCH, {
    eval: true,
    workerData: { clock: clock.buffer, stallLimitMs: options.stallLimitMs, beatMs, component: options.component, signal: STALL_SIGNAL },
    // The thread only reads a clock: a small heap, and it never keeps the process alive.
    resourceLimits: { maxOldGenerationSizeMb: 8, maxYoungGenerationSizeMb: 2 },
    stdout: false,
    stderr: false,
  });
  thread.unref();
  return {
    async stop() {
      clearInterval(beat);
      await thread.terminate();
    },
  };
}
