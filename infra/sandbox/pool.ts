/**
 * The sandbox for untrusted files: a small pool of child processes that decode outside bytes (PDF
 * text, report renders with their embedded logo, logo images) so that nothing a file does can
 * reach the process that serves every tenant (docs/decisions/untrusted-file-sandbox.md).
 *
 * - Memory: each child runs under RLIMIT_DATA (`ulimit -d`, enforced by the kernel on every
 *   private writable mapping: V8's heap, ArrayBuffers, libvips' and zlib's native memory). The
 *   ceiling is the footprint of an idle child with its parsers loaded, measured once per pool
 *   (`--calibrate`), plus the pool's budget; its V8 heap is capped at the budget too. The child's
 *   resident memory is also read from /proc while it works: past the budget it is killed.
 * - Time: a task that does not answer in its time limit is killed with its process.
 * - A fresh process after any failure (refused content, crash, timeout, overrun); a healthy child
 *   is reused, and replaced after RECYCLE_AFTER tasks.
 * - Sharing: at most `processes` children; each tenant holds at most its share of them
 *   (infra/tenant-limiter.ts), the rest wait in one bounded FIFO.
 * - The child's environment is empty but PATH: no database URL, key or secret enters it.
 */
import { ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { SandboxConfig } from '../config';
import { TenantLimiter, tenantLimiter, type TenantLimits } from '../tenant-limiter';
import { MAX_QUEUED, TENANT_SHARE } from './limits';
import { ContentError, SandboxUnavailableError, type TaskInput, type TaskKind, type TaskOutput, type TaskReply } from './protocol';
import { backgroundCommand } from '../background-priority';

export interface SandboxOptions {
  /** The pool's name: its tenant limiter's pool and its log lines. */
  name: string;
  /** Children at most. */
  processes: number;
  /** The kinds of task the pool runs: a child loads their parsers before it takes any. */
  kinds: readonly TaskKind[];
  /** Memory a task may add to an idle child, in MiB (heap, buffers and native memory together). */
  memoryMiB: number;
  /** Tasks waiting for a child, all tenants; one more is refused (SandboxUnavailableError). */
  maxQueued: number;
  /** Each tenant's share: tasks running or queued at once, and how many more may wait for it. */
  tenant: TenantLimits;
  logger?: Pick<Logger, 'warn' | 'info'>;
  /** The second line behind the OS ceiling, on unless a test must see the ceiling alone. */
  watchRss?: boolean;
  /** The child's script; the compiled infra/sandbox/child.js by default. */
  script?: string;
}

export interface RunOptions {
  /** What the content is, for the error ("the PDF", "the logo"). */
  subject: string;
  timeoutMs: number;
}

const RECYCLE_AFTER = 100;
const START_TIMEOUT_MS = 15_000;
const RSS_POLL_MS = 100;

/** The compiled child: next to this file under dist/, or dist/ of the checkout when this runs from source (tests). */
export function defaultChildScript(): string {
  if (__filename.endsWith('.js')) return path.join(__dirname, 'child.js');
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  return path.join(dir, 'dist', 'infra', 'sandbox', 'child.js');
}

function residentMiB(pid: number): number | null {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** Starts `node <flags> <script> <args>` under `ulimit -d <dataKiB>` (none when null) with no core dump, and waits for its ready line. */
function startChild(
  script: string,
  dataKiB: number | null,
  nodeFlags: readonly string[],
  args: readonly string[],
): Promise<{ child: ChildProcess; vmDataKiB: number; stderr: () => string }> {
  const limit = dataKiB === null ? 'unlimited' : String(dataKiB);
  const child = spawn(
    '/bin/sh',
    ['-c', 'ulimit -c 0 && ulimit -d "$1" && shift && exec "$@"', 'sandbox', limit, ...backgroundCommand([process.execPath, ...nodeFlags, script, ...args])],
    {
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'advanced',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', UV_THREADPOOL_SIZE: '2' },
    },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-4096)));
  return new Promise((resolve, reject) => {
    const fail = (why: string) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new SandboxUnavailableError(`the content sandbox could not start a process (${why})`));
    };
    const timer = setTimeout(() => fail(`no ready line within ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
    child.once('error', (err) => fail(err.message));
    child.once('exit', (code, signal) => fail(`exit ${code ?? signal}: ${stderr.trim().split('\n').slice(-1)[0] ?? ''}`));
    child.once('message', (message: TaskReply) => {
      if (!('ready' in message)) return fail('unexpected first message');
      clearTimeout(timer);
      child.removeAllListeners('exit');
      child.removeAllListeners('error');
      resolve({ child, vmDataKiB: message.vmDataKiB, stderr: () => stderr });
    });
  });
}

class SandboxChild {
  tasks = 0;
  private nextId = 1;
  exited = false;
  private readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(
    private readonly process: ChildProcess,
    private readonly stderr: () => string,
  ) {
    this.exit = new Promise((resolve) =>
      process.once('exit', (code, signal) => {
        this.exited = true;
        resolve({ code, signal });
      }),
    );
    // A child that dies while idle is simply not reused.
    process.on('error', () => undefined);
  }

  get pid(): number {
    return this.process.pid!;
  }

  kill(): void {
    if (!this.exited) this.process.kill('SIGKILL');
  }

  /** One task; rejects with a ContentError for anything the content caused. The child is unusable after a rejection. */
  run<K extends TaskKind>(kind: K, input: TaskInput<K>, options: RunOptions & { budgetMiB: number; rssLimitMiB: number | null }): Promise<TaskOutput<K>> {
    const id = this.nextId++;
    this.tasks += 1;
    const { subject, timeoutMs, budgetMiB } = options;
    const memory = () => new ContentError('memory', `${subject} needs more than ${budgetMiB} MiB of memory to process, the limit for uploaded content`);
    return new Promise<TaskOutput<K>>((resolve, reject) => {
      let verdict: ContentError | null = null;
      let done = false;
      const finish = (outcome: () => void) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        clearInterval(watchdog);
        this.process.removeListener('message', onMessage);
        outcome();
      };
      const killFor = (error: ContentError) => {
        verdict ??= error;
        this.kill();
      };
      const timer = setTimeout(
        () => killFor(new ContentError('timeout', `${subject} took longer than ${Math.round(timeoutMs / 1000)} s to process, the limit for uploaded content`)),
        timeoutMs,
      );
      const { rssLimitMiB } = options;
      const watchdog = setInterval(() => {
        const rss = residentMiB(this.pid);
        if (rssLimitMiB !== null && rss !== null && rss > rssLimitMiB) killFor(memory());
      }, RSS_POLL_MS);
      const onMessage = (reply: TaskReply) => {
        if ('ready' in reply || reply.id !== id) return;
        if (reply.ok) return finish(() => resolve(reply.output as TaskOutput<K>));
        const error =
          reply.failure === 'memory' ? memory() : new ContentError(reply.failure, `${subject} ${reply.failure === 'inflation' ? '' : 'could not be read: '}${reply.detail}`);
        // A failed parser leaves its process in a state nobody should trust.
        this.kill();
        finish(() => reject(error));
      };
      this.process.on('message', onMessage);
      void this.exit.then(({ code, signal }) =>
        finish(() => {
          if (verdict) return reject(verdict);
          // V8's own out-of-memory ends the process (abort) with this on stderr.
          if (/out of memory|allocation failed|heap limit/i.test(this.stderr())) return reject(memory());
          reject(new ContentError('crashed', `${subject} stopped its parser (${signal ?? `exit ${code}`})`));
        }),
      );
      try {
        this.process.send({ id, kind, input });
      } catch {
        killFor(new ContentError('crashed', `${subject} could not be handed to its parser`));
      }
    });
  }
}

/** Every open pool of this process, for /metrics. */
const pools = new Set<SandboxPool>();
export const allSandboxPools = (): SandboxPool[] => [...pools];

export class SandboxPool {
  private readonly idle: SandboxChild[] = [];
  private readonly busy = new Set<SandboxChild>();
  private starting = 0;
  private readonly waiting: Array<{ take: (child: SandboxChild) => void; fail: (err: Error) => void }> = [];
  private calibration: Promise<number> | null = null;
  private closed = false;
  readonly limiter: TenantLimiter;
  /** Children replaced after a failure, since the pool started: for metrics and tests. */
  replaced = 0;

  constructor(readonly options: SandboxOptions) {
    this.limiter = tenantLimiter(`content-${options.name}`, options.tenant);
    pools.add(this);
  }

  private get script(): string {
    return this.options.script ?? defaultChildScript();
  }

  /** Node flags of a child: its V8 heap within the budget, two V8 helper threads (each thread's stack counts against the ceiling). */
  private get nodeFlags(): string[] {
    return [`--max-old-space-size=${this.options.memoryMiB}`, '--max-semi-space-size=8', '--v8-pool-size=2'];
  }

  private get kindsArg(): string {
    return `--kinds=${this.options.kinds.join(',')}`;
  }

  /** RLIMIT_DATA of a child in KiB: the calibrated footprint plus the budget. */
  ceilingKiB(): Promise<number> {
    this.calibration ??= startChild(this.script, null, this.nodeFlags, [this.kindsArg, '--calibrate']).then(
      ({ child, vmDataKiB }) => {
        child.kill('SIGKILL');
        return vmDataKiB + this.options.memoryMiB * 1024;
      },
      (err: unknown) => {
        this.calibration = null;
        throw err;
      },
    );
    return this.calibration;
  }

  /** Runs one task within the tenant's share of the pool; see the module comment for what can fail and how. */
  async run<K extends TaskKind>(tenantId: string, kind: K, input: TaskInput<K>, options: RunOptions): Promise<TaskOutput<K>> {
    if (!this.options.kinds.includes(kind)) throw new Error(`the ${this.options.name} sandbox does not run ${kind} tasks`);
    return this.limiter.run(tenantId, async () => {
      // A task waits for a free process no longer than it may run: its caller's whole wait stays bounded.
      const child = await this.acquire(options.timeoutMs);
      const baseline = residentMiB(child.pid) ?? 0;
      let healthy = false;
      try {
        const rssLimitMiB = this.options.watchRss === false ? null : baseline + this.options.memoryMiB;
        const output = await child.run(kind, input, { ...options, budgetMiB: this.options.memoryMiB, rssLimitMiB });
        healthy = true;
        return output;
      } finally {
        this.release(child, healthy);
      }
    });
  }

  /** Children alive, running a task, and tasks waiting for one. */
  stats(): { processes: number; busy: number; queued: number; replaced: number; pids: number[] } {
    const all = [...this.idle, ...this.busy];
    return { processes: all.length, busy: this.busy.size, queued: this.waiting.length, replaced: this.replaced, pids: all.map((c) => c.pid) };
  }

  /** Ends every child; tasks still waiting fail. */
  close(): void {
    this.closed = true;
    pools.delete(this);
    for (const child of [...this.idle, ...this.busy]) child.kill();
    this.idle.length = 0;
    for (const waiter of this.waiting.splice(0)) waiter.fail(new SandboxUnavailableError('the content sandbox is closing'));
  }

  private async acquire(maxWaitMs: number): Promise<SandboxChild> {
    if (this.closed) throw new SandboxUnavailableError('the content sandbox is closing');
    while (this.idle.length) {
      const child = this.idle.pop()!;
      if (!child.exited) {
        this.busy.add(child);
        return child;
      }
    }
    if (this.busy.size + this.starting < this.options.processes) return this.spawn();
    if (this.waiting.length >= this.options.maxQueued) throw new SandboxUnavailableError('the content sandbox is busy: try again shortly');
    return new Promise((take, fail) => {
      const waiter = {
        take: (child: SandboxChild) => {
          clearTimeout(timer);
          take(child);
        },
        fail: (err: Error) => {
          clearTimeout(timer);
          fail(err);
        },
      };
      // Only a waiter still in the queue gives up: one already handed a process (or a spawn) keeps it.
      const timer = setTimeout(() => {
        const at = this.waiting.indexOf(waiter);
        if (at < 0) return;
        this.waiting.splice(at, 1);
        fail(new SandboxUnavailableError('the content sandbox is busy: try again shortly'));
      }, maxWaitMs);
      timer.unref();
      this.waiting.push(waiter);
    });
  }

  private async spawn(): Promise<SandboxChild> {
    this.starting += 1;
    try {
      const ceiling = await this.ceilingKiB();
      const { child: process, stderr } = await startChild(this.script, ceiling, this.nodeFlags, [this.kindsArg]);
      const child = new SandboxChild(process, stderr);
      this.busy.add(child);
      return child;
    } finally {
      this.starting -= 1;
    }
  }

  private release(child: SandboxChild, healthy: boolean): void {
    this.busy.delete(child);
    const reusable = healthy && !child.exited && child.tasks < RECYCLE_AFTER && !this.closed;
    if (!reusable) {
      if (!healthy) {
        this.replaced += 1;
        this.options.logger?.warn({ pool: this.options.name, pid: child.pid }, 'content sandbox process replaced after a failed task');
      }
      child.kill();
    }
    const waiter = this.waiting.shift();
    if (!waiter) {
      if (reusable) this.idle.push(child);
      return;
    }
    if (reusable) {
      this.busy.add(child);
      return waiter.take(child);
    }
    // The waiter gets a fresh process in the slot the old one left.
    this.spawn().then(waiter.take, waiter.fail);
  }
}

/** The process's sandbox: the API's renders direct reports and checks logos, the worker's reads PDFs and renders report jobs. */
export function createSandbox(role: 'api' | 'worker', config: SandboxConfig, logger?: SandboxOptions['logger']): SandboxPool {
  return new SandboxPool({
    name: role,
    processes: config.processes,
    kinds: role === 'api' ? ['render-report', 'logo-image'] : ['pdf-text', 'render-report', 'logo-image'],
    memoryMiB: role === 'api' ? config.apiMemoryMb : config.workerMemoryMb,
    maxQueued: MAX_QUEUED,
    tenant: TENANT_SHARE,
    ...(logger ? { logger } : {}),
  });
}
