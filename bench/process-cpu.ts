/**
 * CPU time of a process, and of its threads grouped by name, read from /proc (Linux). The due
 * bench prints the worker's split so that a slow run says which part of the worker slowed: the
 * JavaScript main thread (activities, the SDK's bridge), the workflow thread, sdk-core's Rust
 * threads, or V8's helper threads (garbage collection, compilation).
 */
import fs from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ: 100 on Linux). */
const CLOCK_TICKS = 100;

/**
 * The granularity of every figure read here. The kernel rounds a thread's time and its process's
 * time to ticks separately, so a thread's difference between two readings can exceed its
 * process's by up to a tick at each end.
 */
export const CLOCK_TICK_MS = 1000 / CLOCK_TICKS;

/** CPU milliseconds by thread name; threads that share a name are summed. */
export type ThreadCpu = Map<string, number>;

/** user + system CPU ms of one /proc stat line. */
function statCpuMs(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

/** CPU milliseconds a process has used (user + system, all its threads, living or ended); NaN without one. */
export function processCpuMs(pid: number | undefined): number {
  if (!pid) return NaN;
  return statCpuMs(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

/**
 * CPU milliseconds of the process's living threads, by name. A thread that ended between two
 * readings drops out of the second, so the split is read over a window in which the worker keeps
 * its threads (the due burst); an empty map without a pid.
 */
export function threadCpuMs(pid: number | undefined): ThreadCpu {
  const byName: ThreadCpu = new Map();
  if (!pid) return byName;
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = fs.readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      const ms = statCpuMs(fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'));
      byName.set(name, (byName.get(name) ?? 0) + ms);
    } catch {
      // The thread ended while being read.
    }
  }
  return byName;
}

/** What each thread group spent between two readings, per unit of work, largest first: "node 8.1, tokio-runtime-w 3.2". */
export function threadCpuSplit(before: ThreadCpu, after: ThreadCpu, units: number): string {
  const per = Math.max(units, 1);
  return [...after]
    .map(([name, ms]) => [name, (ms - (before.get(name) ?? 0)) / per] as const)
    .filter(([, ms]) => ms >= 0.05)
    .sort((a, b) => b[1] - a[1])
    .map(([name, ms]) => `${name} ${Math.round(ms * 10) / 10}`)
    .join(', ');
}
