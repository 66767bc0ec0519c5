/**
 * The pool-sizing benchmark's workflow: `count` database-bound activities at once, as a burst of
 * deliveries, plan executions or retention batches would schedule them. Bundled only by the
 * benchmark's own worker, never by the service's.
 */
import { proxyActivities } from '@temporalio/workflow';

export interface DbBurstActivities {
  holdConnection(): Promise<number>;
}

const { holdConnection } = proxyActivities<DbBurstActivities>({ startToCloseTimeout: '2 minutes', retry: { maximumAttempts: 1 } });

/** Answers how many activities failed (a knex acquire timeout, for one). */
export async function benchDbBurstWorkflow(count: number): Promise<number> {
  const results = await Promise.allSettled(Array.from({ length: count }, () => holdConnection()));
  return results.filter((r) => r.status === 'rejected').length;
}
