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
