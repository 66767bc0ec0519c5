/**
 * Activity slots against the connection pool (issue 23): the same burst of database-bound
 * activities (each holds a connection for 20 ms, as a short transaction does) on a worker with the
 * old fixed 100 slots and with the pool-derived slots (workers/options.ts mainQueueActivitySlots:
 * pool - 4), both on a pool of 20. Meanwhile another user of the same pool (the outbox dispatcher,
 * a reconciler) runs a query every 10 ms: its latency is what the 4 spare connections protect.
 * Figures: burst time, activity p99 (inside the activity, acquire wait included), the other
 * query's p99, failures.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { temporalConnectionOptions } from '../infra/temporal';
import { createDb } from '../db/knex';
import { loadConfig } from '../infra/config';
import { mainQueueActivitySlots } from '../workers/options';
import { benchDbBurstWorkflow } from './db-burst-workflow';

const POOL = 20;
const WORKFLOWS = 4;
const ACTIVITIES_PER_WORKFLOW = 200;
const HOLD_SECONDS = 0.1;

const p99 = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0;
};

async function burst(slots: number): Promise<{ seconds: number; activityP99Ms: number; otherQueryP99Ms: number; failed: number }> {
  const config = loadConfig();
  const db = createDb(config.databaseUrl, { min: 0, max: POOL });
  const activityMs: number[] = [];
  const otherMs: number[] = [];
  const taskQueue = `bench-db-burst-${randomUUID()}`;
  const nativeConnection = await NativeConnection.connect(temporalConnectionOptions(config.temporal));
  const connection = await Connection.connect(temporalConnectionOptions(config.temporal));
  const client = new Client({ connection, namespace: config.temporal.namespace });
  try {
    await db.raw('select 1'); // the pool's first connection, outside the measurement
    const worker = await Worker.create({
      connection: nativeConnection,
      namespace: config.temporal.namespace,
      taskQueue,
      workflowsPath: require.resolve('./db-burst-workflow'),
      activities: {
        async holdConnection() {
          const t0 = performance.now();
          await db.raw('select pg_sleep(?)', [HOLD_SECONDS]);
          activityMs.push(performance.now() - t0);
          return 0;
        },
      },
      maxConcurrentActivityTaskExecutions: slots,
    });
    return await worker.runUntil(async () => {
      let running = true;
      const other = (async () => {
        while (running) {
          const t0 = performance.now();
          await db.raw('select 1');
          otherMs.push(performance.now() - t0);
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      })();
      const t0 = performance.now();
      const failures = await Promise.all(
        Array.from({ length: WORKFLOWS }, () =>
          client.workflow.execute(benchDbBurstWorkflow, { taskQueue, workflowId: `bench-db-burst-${randomUUID()}`, args: [ACTIVITIES_PER_WORKFLOW] }),
        ),
      );
      const seconds = (performance.now() - t0) / 1000;
      running = false;
      await other;
      return { seconds, activityP99Ms: p99(activityMs), otherQueryP99Ms: p99(otherMs), failed: failures.reduce((a, b) => a + b, 0) };
    });
  } finally {
    await connection.close();
    await nativeConnection.close();
    await db.destroy();
  }
}

/** Two rounds, alternating, because one burst on two cores varies by a second or more. */
export async function runPoolSizingBench(): Promise<Record<string, string | number>> {
  const derived = mainQueueActivitySlots(POOL);
  const rounds: Array<{ fixed: Awaited<ReturnType<typeof burst>>; sized: Awaited<ReturnType<typeof burst>> }> = [];
  for (let round = 0; round < 2; round++) {
    const fixed = await burst(100);
    const sized = await burst(derived);
    rounds.push({ fixed, sized });
  }
  const both = (pick: (r: (typeof rounds)[number]) => number, digits: number) => rounds.map((r) => pick(r).toFixed(digits)).join(' / ');
  return {
    burst_activities: `${WORKFLOWS * ACTIVITIES_PER_WORKFLOW} x ${HOLD_SECONDS * 1000} ms on a pool of ${POOL} (two rounds)`,
    slots_100_burst_s: both((r) => r.fixed.seconds, 2),
    [`slots_${derived}_burst_s`]: both((r) => r.sized.seconds, 2),
    slots_100_activity_p99_ms: both((r) => r.fixed.activityP99Ms, 0),
    [`slots_${derived}_activity_p99_ms`]: both((r) => r.sized.activityP99Ms, 0),
    slots_100_other_query_p99_ms: both((r) => r.fixed.otherQueryP99Ms, 1),
    [`slots_${derived}_other_query_p99_ms`]: both((r) => r.sized.otherQueryP99Ms, 1),
    failed: `${rounds.reduce((n, r) => n + r.fixed.failed, 0)} with 100 slots, ${rounds.reduce((n, r) => n + r.sized.failed, 0)} with ${derived}`,
  };
}
