/**
 * The hostile corpus's one harness: runs an attack (a hostile upload, a bomb, a regex probe sent
 * through the public API) while watching the shared processes as an orchestrator and another
 * tenant would, and reports what they saw:
 *
 * - each watched process (an API process from dist/, the stack's worker) answers its `/livez`
 *   every `intervalMs`: the slowest answer, and whether a probe failed;
 * - it is still the same process afterwards (its pid alive, never restarted);
 * - its resident memory (VmRSS from /proc, sampled with the probes): the peak while the attack ran;
 * - another tenant's request, repeated meanwhile: its slowest answer and any non-2xx status.
 *
 * `expectContained(report, bounds)` turns the report into assertions with messages that say which
 * bound broke. The attack's own answer (the 4xx error object, the failed job and its reason) is the
 * test's to assert.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface WatchedProcess {
  name: string;
  pid: number;
  /** The process's liveness URL (an API origin + `/livez`, the worker's probes + `/livez`). */
  livezUrl: string;
}

export interface HostileProbeOptions {
  watched: readonly WatchedProcess[];
  /** Another tenant's ordinary request; answers its HTTP status. */
  otherTenant?: () => Promise<number>;
  /** How often the probes and the other tenant's request are sent. */
  intervalMs?: number;
  /** A probe's own deadline: a probe that takes longer counts as this long and failed. */
  probeTimeoutMs?: number;
}

export interface ProcessObservation {
  name: string;
  pid: number;
  probes: number;
  slowestProbeMs: number;
  failedProbes: number;
  peakRssMiB: number;
  baselineRssMiB: number;
  /** The same pid answered from the first probe to the last and is alive at the end. */
  sameProcess: boolean;
}

export interface HostileProbeReport<T> {
  result: T;
  attackMs: number;
  processes: ProcessObservation[];
  otherTenant: { requests: number; slowestMs: number; failedStatuses: number[] } | null;
}

export interface ContainmentBounds {
  /** Every liveness probe answered within this (default 2 000 ms). */
  probeMs?: number;
  /** Every request of the other tenant answered within this (default 2 000 ms). */
  otherTenantMs?: number;
  /** Peak resident memory per watched process name, in MiB. */
  rssMiB?: Record<string, number>;
}

/**
 * The test stack's one worker (global-setup.ts): its pid from the stack's description and its
 * probes from the environment the setup exported.
 */
export function stackWorker(): WatchedProcess {
  const runDir = path.resolve(__dirname, '..', '..', process.env.TEST_STACK_RUN_DIR ?? '.run');
  const description = JSON.parse(fs.readFileSync(path.join(runDir, 'test-stack.json'), 'utf8')) as { pids: Record<string, number> };
  const pid = description.pids.worker;
  const probes = process.env.TEST_WORKER_HTTP_URL;
  if (!pid || !probes) throw new Error('no test stack worker: run this from an API test (test/api)');
  return { name: 'worker', pid, livezUrl: `${probes.replace(/\/$/, '')}/livez` };
}

/** Resident memory of `pid` in MiB, or null when the process is gone. */
export function rssMiB(pid: number): number | null {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(status);
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** The nice value of each thread of `pid` (Linux: /proc/<pid>/task/<tid>/stat, field 19), by thread id. */
export function threadNiceValues(pid: number): Map<number, number> {
  const nices = new Map<number, number>();
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    nices.set(Number(tid), Number(fields[16]));
  }
  return nices;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function timed(call: () => Promise<boolean>, timeoutMs: number): Promise<{ ms: number; ok: boolean }> {
  const started = performance.now();
  let ok: boolean;
  try {
    ok = await Promise.race([call(), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), timeoutMs).unref())]);
  } catch {
    ok = false;
  }
  return { ms: Math.min(performance.now() - started, ok ? Infinity : timeoutMs), ok };
}

async function livez(url: string, timeoutMs: number): Promise<boolean> {
  const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  await res.arrayBuffer();
  return res.ok;
}

/** Runs `attack` while the watched processes and the other tenant are probed; see the module comment. */
export async function underHostileLoad<T>(options: HostileProbeOptions, attack: () => Promise<T>): Promise<HostileProbeReport<T>> {
  const intervalMs = options.intervalMs ?? 200;
  const probeTimeoutMs = options.probeTimeoutMs ?? 10_000;
  const processes: ProcessObservation[] = options.watched.map((watched) => {
    const baseline = rssMiB(watched.pid);
    if (baseline === null) throw new Error(`${watched.name} (pid ${watched.pid}) is not running before the attack`);
    return { name: watched.name, pid: watched.pid, probes: 0, slowestProbeMs: 0, failedProbes: 0, peakRssMiB: baseline, baselineRssMiB: baseline, sameProcess: true };
  });
  const other = options.otherTenant ? { requests: 0, slowestMs: 0, failedStatuses: [] as number[] } : null;

  let running = true;
  const probeLoop = async (watched: WatchedProcess, seen: ProcessObservation) => {
    while (running) {
      const { ms, ok } = await timed(() => livez(watched.livezUrl, probeTimeoutMs), probeTimeoutMs);
      seen.probes += 1;
      seen.slowestProbeMs = Math.max(seen.slowestProbeMs, ms);
      if (!ok) seen.failedProbes += 1;
      const rss = rssMiB(watched.pid);
      if (rss === null) seen.sameProcess = false;
      else seen.peakRssMiB = Math.max(seen.peakRssMiB, rss);
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  };
  const rssLoop = async (watched: WatchedProcess, seen: ProcessObservation) => {
    // Sampled apart from the probes, so a process whose loop is stuck still has its memory read.
    while (running) {
      const rss = rssMiB(watched.pid);
      if (rss !== null) seen.peakRssMiB = Math.max(seen.peakRssMiB, rss);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const otherLoop = async () => {
    while (running && other && options.otherTenant) {
      let status = 0;
      const { ms } = await timed(async () => {
        status = await options.otherTenant!();
        return true;
      }, probeTimeoutMs);
      other.requests += 1;
      other.slowestMs = Math.max(other.slowestMs, ms);
      if (status < 200 || status >= 300) other.failedStatuses.push(status);
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  };

  const loops = [...options.watched.flatMap((watched, i) => [probeLoop(watched, processes[i]!), rssLoop(watched, processes[i]!)]), otherLoop()];
  const started = performance.now();
  let result: T;
  try {
    result = await attack();
  } finally {
    // One more round of probes after the attack, so a process that died at its end is seen.
    await new Promise((resolve) => setTimeout(resolve, intervalMs * 2));
    running = false;
    await Promise.all(loops);
  }
  const attackMs = performance.now() - started;
  for (const seen of processes) if (!alive(seen.pid)) seen.sameProcess = false;
  return { result, attackMs, processes, otherTenant: other };
}

/** The failures of `report` against `bounds`, in words; empty when the attack was contained. */
export function containmentFailures(report: HostileProbeReport<unknown>, bounds: ContainmentBounds = {}): string[] {
  const probeMs = bounds.probeMs ?? 2_000;
  const otherMs = bounds.otherTenantMs ?? 2_000;
  const failures: string[] = [];
  for (const seen of report.processes) {
    if (!seen.sameProcess) failures.push(`${seen.name} (pid ${seen.pid}) did not survive the attack`);
    if (seen.probes === 0) failures.push(`${seen.name} was never probed`);
    if (seen.failedProbes > 0) failures.push(`${seen.name} failed ${seen.failedProbes} of ${seen.probes} liveness probes`);
    if (seen.slowestProbeMs > probeMs) failures.push(`${seen.name} answered a liveness probe in ${Math.round(seen.slowestProbeMs)} ms (bound ${probeMs})`);
    const rssBound = bounds.rssMiB?.[seen.name];
    if (rssBound !== undefined && seen.peakRssMiB > rssBound)
      failures.push(`${seen.name} reached ${Math.round(seen.peakRssMiB)} MiB resident (bound ${rssBound}, before ${Math.round(seen.baselineRssMiB)})`);
  }
  const other = report.otherTenant;
  if (other) {
    if (other.requests === 0) failures.push('the other tenant sent no request');
    if (other.slowestMs > otherMs) failures.push(`the other tenant waited ${Math.round(other.slowestMs)} ms (bound ${otherMs})`);
    if (other.failedStatuses.length) failures.push(`the other tenant got statuses ${other.failedStatuses.join(', ')}`);
  }
  return failures;
}

/** Asserts that the attack was contained (see `containmentFailures`). */
export function expectContained(report: HostileProbeReport<unknown>, bounds: ContainmentBounds = {}): void {
  const failures = containmentFailures(report, bounds);
  if (failures.length)
    throw new Error(
      `the attack was not contained:\n- ${failures.join('\n- ')}\n${JSON.stringify({ attackMs: report.attackMs, processes: report.processes, otherTenant: report.otherTenant })}`,
    );
}
