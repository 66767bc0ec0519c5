/**
 * A redaction pool's thread (infra/redaction-pool.ts): redacts each text it is sent, chunk by
 * chunk within the job's budget, and answers the text or `over_budget`.
 */
import { parentPort } from 'node:worker_threads';
import { runToEnd } from '../domain/privacy/pii';
import { budgetedRedaction, ScanBudgetExceeded } from './redaction-scan';
import { lowerThisThreadPriority } from './background-priority';

export interface RedactionJob {
  id: number;
  text: string;
  budgetMs: number;
}

export type RedactionAnswer = { id: number; ok: true; text: string } | { id: number; ok: false; reason: 'over_budget' };

function answer(job: RedactionJob): RedactionAnswer {
  try {
    return { id: job.id, ok: true, text: runToEnd(budgetedRedaction(job.text, job.budgetMs)) };
  } catch (err) {
    if (err instanceof ScanBudgetExceeded) return { id: job.id, ok: false, reason: 'over_budget' };
    throw err;
  }
}

lowerThisThreadPriority();
parentPort?.on('message', (job: RedactionJob) => parentPort!.postMessage(answer(job)));
