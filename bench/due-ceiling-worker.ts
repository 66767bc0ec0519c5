/**
 * One worker process of the due benchmark's ceiling (bench/due-ceiling.ts): the ceiling's workflows
 * on its own task queue, shaped as the service's main worker (its cache, workflow-task slots, and
 * local-activity slots for a pool of the service's size), started with the service worker's Node
 * flags. The ceiling runs as many of these as the stack runs service workers, so that N workers'
 * plans are compared with N workers' ceiling.
 *
 * Started by `startCeilingWorkers`, never by hand: the cluster comes from the environment as the
 * service's does (infra/temporal-profile.ts), the scratch table's database URL and the pool size in
 * BENCH_CEILING_DATABASE_URL and BENCH_CEILING_POOL_MAX.
 */
import path from 'node:path';
import { NativeConnection, Worker } from '@temporalio/worker';
import { Pool } from 'pg';
import { temporalConnectionOptions } from '../infra/temporal';
import { temporalProfile } from '../infra/temporal-profile';
import { startProcessFromDist, WORKER_NODE_FLAGS, type ServiceProcess } from '../scripts/service-process';
import type { DueCeilingActivities } from './due-ceiling-workflow';
import { mainQueueLocalActivitySlots, WORKER_TUNING } from '../workers/options';

export const CEILING_QUEUE = 'bench-due-ceiling';
export const CEILING_TABLE = 'bench_due_ceiling';
const READY = 'ceiling worker ready';

/** `count` ceiling worker processes, each ready (polling) when this resolves. */
export async function startCeilingWorkers(count: number, databaseUrl: string, poolMax: number): Promise<ServiceProcess[]> {
  const started: ServiceProcess[] = [];
  try {
    for (let n = 1; n <= count; n += 1) {
      started.push(
        await startProcessFromDist(
          { name: `ceiling-worker-${n}`, script: 'dist/bench/due-ceiling-worker.js', nodeFlags: WORKER_NODE_FLAGS, ready: READY, url: () => '' },
          { BENCH_CEILING_DATABASE_URL: databaseUrl, BENCH_CEILING_POOL_MAX: String(poolMax) },
          path.join(process.cwd(), '.run', 'bench', `ceiling-worker-${n}.log`),
        ),
      );
    }
    return started;
  } catch (error) {
    await Promise.all(started.map((worker) => worker.stop()));
    throw error;
  }
}

async function serve(): Promise<void> {
  const problems: string[] = [];
  const temporal = temporalProfile(process.env, problems);
  if (problems.length) throw new Error(problems.join('; '));
  const poolMax = Number(process.env.BENCH_CEILING_POOL_MAX);
  const pool = new Pool({ connectionString: process.env.BENCH_CEILING_DATABASE_URL, max: poolMax });
  const connection = await NativeConnection.connect(temporalConnectionOptions(temporal));
  const activities: DueCeilingActivities = {
    insertDueRow: async (id, run) => {
      await pool.query(`insert into ${CEILING_TABLE} (id, run) values ($1, $2) on conflict do nothing`, [id, run]);
    },
  };
  const worker = await Worker.create({
    connection,
    namespace: temporal.namespace,
    taskQueue: CEILING_QUEUE,
    workflowsPath: require.resolve('./due-ceiling-workflow'),
    ...WORKER_TUNING,
    maxConcurrentLocalActivityExecutions: mainQueueLocalActivitySlots(poolMax),
    activities,
  });
  process.once('SIGTERM', () => worker.shutdown());
  const running = worker.run();
  process.stdout.write(`${JSON.stringify({ msg: READY })}\n`);
  await running;
  await connection.close();
  await pool.end();
}

if (require.main === module) {
  serve().catch((error: unknown) => {
    process.stderr.write(`ceiling worker: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
}
