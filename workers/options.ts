import { WorkerOptions } from '@temporalio/worker';

/**
 * Explicit sizing (the defaults scale with the machine's memory): a bounded workflow cache keeps
 * memory flat with many idle entity workflows, which are replayed from history when evicted.
 */
export const WORKER_TUNING: Pick<
  WorkerOptions,
  'maxCachedWorkflows' | 'maxConcurrentActivityTaskExecutions' | 'maxConcurrentWorkflowTaskExecutions' | 'shutdownGraceTime'
> = {
  maxCachedWorkflows: 2_000,
  maxConcurrentActivityTaskExecutions: 100,
  maxConcurrentWorkflowTaskExecutions: 40,
  shutdownGraceTime: '10 seconds',
};

/**
 * The webhook queue's worker: an attempt is an I/O wait (or a short wait for its webhook's
 * in-flight limit), so many run at once; a slow receiver holds at most 16 running + 64 waiting.
 */
export const WEBHOOK_WORKER_TUNING: typeof WORKER_TUNING = {
  ...WORKER_TUNING,
  maxConcurrentActivityTaskExecutions: 400,
};
