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

/** The fields of a /proc stat line after the command: [0] is the state, [1] the parent's pid. */
const statFields = (stat: string): string[] => stat.slice(stat.lastIndexOf(')') + 2).split(' ');

/** user + system CPU ms of one /proc stat line. */
function statCpuMs(stat: string): number {
  const fields = statFields(stat);
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

/** CPU milliseconds a process has used (user + system, all its threads, living or ended); NaN without one. */
export function processCpuMs(pid: number | undefined): number {
  if (!pid) return NaN;
  return statCpuMs(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

/** The CPU milliseconds of several processes together (the service workers of a bench); NaN without any. */
export function processesCpuMs(pids: readonly number[]): number {
  return pids.length ? pids.reduce((total, pid) => total + processCpuMs(pid), 0) : NaN;
}

/**
 * CPU milliseconds of a process and all its descendants: the living ones as they stand, the ended
 * ones as the kernel added them to their parent once waited for (cutime, cstime). PostgreSQL is
 * such a tree: a postmaster and a backend process per connection. NaN without a process.
 */
export function processTreeCpuMs(pid: number | undefined): number {
  if (!pid) return NaN;
  const children = new Map<number, number[]>();
  const stats = new Map<number, string>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(statFields(stat)[1]);
      stats.set(Number(entry), stat);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // The process ended while being read.
    }
  }
  const tree = (id: number): number => {
    const stat = stats.get(id);
    if (stat === undefined) return 0;
    const fields = statFields(stat);
    const waited = ((Number(fields[13]) + Number(fields[14])) * 1000) / CLOCK_TICKS;
    return statCpuMs(stat) + waited + (children.get(id) ?? []).reduce((sum, child) => sum + tree(child), 0);
  };
  if (!stats.has(pid)) throw new Error(`no process ${pid}`);
  return tree(pid);
}

/** The service workers' pids a bench was given (scripts/bench.mjs: BENCH_WORKER_PIDS, else BENCH_WORKER_PID). */
export function benchWorkerPids(env: NodeJS.ProcessEnv = process.env): number[] {
  return (env.BENCH_WORKER_PIDS || env.BENCH_WORKER_PID || '')
    .split(',')
    .map(Number)
    .filter((pid) => Number.isInteger(pid) && pid > 0);
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

/** CPU milliseconds by thread name over several processes, summed by name. */
export function threadsCpuMs(pids: readonly number[]): ThreadCpu {
  const byName: ThreadCpu = new Map();
  for (const pid of pids) for (const [name, ms] of threadCpuMs(pid)) byName.set(name, (byName.get(name) ?? 0) + ms);
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
