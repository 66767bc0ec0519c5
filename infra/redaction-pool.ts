/**
 * PII redaction of stored text (`pii.auto_redact`) without the API's event loop (docs/SECURITY.md,
 * Text matching). A text of up to INLINE_MAX_CHARS is redacted where it is (a few milliseconds);
 * a longer one (an inbound mail reaches 10 MiB) goes to a pool of REDACTION_THREADS worker
 * threads, scanned in chunks with a budget of SCAN_BUDGET_MS. Each tenant holds at most
 * TENANT_SHARE of the threads and TENANT_WAITING waiting texts (infra/tenant-limiter.ts), so one
 * tenant's large mails cannot take the pool from the others; beyond that the call is refused
 * (RATE_LIMITED, Retry-After) and a provider delivers again later. A text whose scan overruns its
 * budget is refused as content (VALIDATION_ERROR), never stored unredacted; a thread that stops
 * answering is replaced.
 *
 * Running from the TypeScript sources (Jest's in-process API) there is no compiled thread: long
 * texts are then scanned on the loop chunk by chunk, yielding between chunks, with the same budget.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { AppError } from '../domain/errors';
import { AUTO_REDACT_TYPES, redactPii } from '../domain/privacy/pii';
import { budgetedRedaction, ScanBudgetExceeded } from './redaction-scan';
import type { RedactionAnswer, RedactionJob } from './redaction-thread';
import { TenantCapacityError, tenantLimiter } from './tenant-limiter';

/** Longest text redacted on the caller's thread: at most ~15 ms of scanning on dense text. */
export const INLINE_MAX_CHARS = 16 * 1024;
/** Threads per process: one per core of the 2-core pods the service is sized for. */
export const REDACTION_THREADS = 2;
/** Threads one tenant may hold at once: never the whole pool. */
export const TENANT_SHARE = 1;
/** Texts of one tenant waiting for its share. */
export const TENANT_WAITING = 4;
/** How long a text waits for its tenant's share before the call is refused. */
const TENANT_WAIT_MS = 30_000;
/** A scan's budget: a 10 MiB text dense with values takes ~10 s on one core (docs/SECURITY.md). */
export const SCAN_BUDGET_MS = 30_000;
/** A thread silent this long after its budget is stuck: terminated and replaced. */
const STUCK_GRACE_MS = 5_000;
/** Heap of one thread: a 10 MiB text, its copies and findings stay well under it. */
const THREAD_HEAP_MB = 256;

const THREAD_FILE = path.join(__dirname, 'redaction-thread.js');

function overBudget(): AppError {
  return new AppError('VALIDATION_ERROR', `the text could not be scanned for personal data within ${SCAN_BUDGET_MS / 1000} s; send it in smaller parts`, {
    fields: [{ field: 'body', message: 'too long to scan for personal data', type: 'text.scan_budget' }],
  });
}

function tenantBusy(): AppError {
  return new AppError('RATE_LIMITED', 'too many long texts of this tenant are being scanned for personal data; try again later', {
    retry_after: Math.ceil(TENANT_WAIT_MS / 1000),
    scope: 'redaction',
  });
}

interface PendingJob {
  job: RedactionJob;
  resolve: (text: string) => void;
  reject: (err: Error) => void;
}

/** A fixed set of threads taking jobs in arrival order. */
class ThreadPool {
  private readonly idle: Worker[] = [];
  private readonly queue: PendingJob[] = [];
  private nextId = 1;

  constructor(private readonly size: number) {
    for (let i = 0; i < size; i++) this.idle.push(this.spawn());
  }

  run(text: string): Promise<string> {
    return new Promise((resolve, reject) => {
      this.queue.push({ job: { id: this.nextId++, text, budgetMs: SCAN_BUDGET_MS }, resolve, reject });
      this.dispatch();
    });
  }

  private spawn(): Worker {
    const worker = new Worker(THREAD_FILE, { resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB } });
    worker.unref();
    return worker;
  }

  private dispatch(): void {
    while (this.idle.length > 0 && this.queue.length > 0) {
      const worker = this.idle.pop()!;
      const pending = this.queue.shift()!;
      this.runOn(worker, pending);
    }
  }

  private runOn(worker: Worker, { job, resolve, reject }: PendingJob): void {
    let settled = false;
    const finish = (replace: boolean, outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(stuck);
      worker.off('message', onMessage);
      worker.off('error', onFailure);
      worker.off('exit', onFailure);
      if (replace) void worker.terminate();
      this.idle.push(replace ? this.spawn() : worker);
      outcome();
      this.dispatch();
    };
    const onMessage = (answer: RedactionAnswer) => {
      if (answer.id !== job.id) return;
      finish(false, () => (answer.ok ? resolve(answer.text) : reject(overBudget())));
    };
    const onFailure = () => finish(true, () => reject(overBudget()));
    const stuck = setTimeout(onFailure, job.budgetMs + STUCK_GRACE_MS);
    stuck.unref();
    worker.on('message', onMessage);
    worker.once('error', onFailure);
    worker.once('exit', onFailure);
    worker.postMessage(job);
  }
}

/** The scan on this thread, one chunk per turn of the event loop, within the budget. */
async function redactInSteps(text: string): Promise<string> {
  const steps = budgetedRedaction(text, SCAN_BUDGET_MS);
  try {
    for (let step = steps.next(); ; step = steps.next()) {
      if (step.done) return step.value;
      await new Promise((resolve) => setImmediate(resolve));
    }
  } catch (err) {
    if (err instanceof ScanBudgetExceeded) throw overBudget();
    throw err;
  }
}

export interface StoredTextRedactor {
  /** The text with its PII replaced (domain/privacy/pii.ts), scanned where it costs no other tenant. */
  redact(tenantId: string, text: string): Promise<string>;
}

export type RedactionMode = 'threads' | 'steps';

export function createStoredTextRedactor(mode: RedactionMode = fs.existsSync(THREAD_FILE) ? 'threads' : 'steps'): StoredTextRedactor {
  const pool = mode === 'threads' ? new ThreadPool(REDACTION_THREADS) : null;
  const tenants = tenantLimiter('pii_redaction', { maxInFlight: TENANT_SHARE, maxWaiting: TENANT_WAITING, maxWaitMs: TENANT_WAIT_MS });
  return {
    async redact(tenantId, text) {
      if (text.length <= INLINE_MAX_CHARS) return redactPii(text, { types: AUTO_REDACT_TYPES }).text;
      try {
        return await tenants.run(tenantId, () => (pool ? pool.run(text) : redactInSteps(text)));
      } catch (err) {
        if (err instanceof TenantCapacityError) throw tenantBusy();
        throw err;
      }
    },
  };
}

let processRedactor: StoredTextRedactor | null = null;

/** This process's redactor, its threads started on first use. */
export function storedTextRedactor(): StoredTextRedactor {
  processRedactor ??= createStoredTextRedactor();
  return processRedactor;
}
