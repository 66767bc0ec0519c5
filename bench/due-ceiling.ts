/**
 * The plans-due benchmark's same-shape ceiling, in the same run: as many no-op workflows as plans
 * were due, each with a timer firing at one instant and then one local activity doing one INSERT
 * (its own table, through a bare pg pool). Its workers are processes of their own
 * (bench/due-ceiling-worker.ts), as many as the service workers that ran the plans, each shaped
 * as the service's main worker: the same cache of workflows, workflow-task slots and local-activity
 * slots for a pool of the service's default size, so that a due workflow replays (or not) and waits
 * for a slot (or not) as a due plan does, and the ratio measures the plan's code, not a bigger
 * cache or more processes. The CPU it spent is its workers' processes'.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { Pool } from 'pg';
import { mapSettled } from '../orchestration/concurrency';
import { benchDueCeilingWorkflow } from './due-ceiling-workflow';
import { CEILING_QUEUE, CEILING_TABLE, startCeilingWorkers } from './due-ceiling-worker';
import { processesCpuMs, threadCpuSplit, threadsCpuMs } from './process-cpu';
import { ARMED_AHEAD_MS, historyEvents, randomSample, tallyTimedOutTasks, timerArmedAhead } from './report';

const START_CONCURRENCY = 32;
const HISTORY_SAMPLE = 100;

export interface DueCeilingResult {
  started: number;
  inserted: number;
  seconds: number;
  cpuMs: number;
  /** Per workflow, by thread of the ceiling's workers (bench/process-cpu.ts). */
  cpuByThread: string;
  withTimedOutTask: number;
  /** The sample's timed-out workflow tasks by kind (`tallyTimedOutTasks`). */
  timedOutKinds: Map<string, number>;
  /** Sampled workflows whose timer was armed 10 s or more before the instant (in the burst). */
  armedAhead: number;
  sampled: number;
  /** Seconds the starts took (the instant is `leadMs` after their beginning). */
  startSeconds: number;
}

/**
 * `client`: the bench's client of the cluster under test; `databaseUrl`: a user that may create the
 * scratch table (the owner's when the stack gives it); `poolMax`: the service's DATABASE_POOL_MAX,
 * which sizes its pool and local-activity slots; `workers`: how many worker processes.
 */
export async function runDueCeiling(opts: {
  client: Client;
  databaseUrl: string;
  poolMax: number;
  workers: number;
  count: number;
  /**
   * From the first start to the instant. Every timer must be armed (its workflow's first task
   * run) before the instant, as every plan's is, or the ceiling's burst is smeared over its own
   * start backlog: with a fixed 120 s at 10 000, 56 of 100 sampled timers were armed less than
   * 10 s ahead, and none of the ceiling's tasks timed out where 96 of the plans' did.
   */
  leadMs: number;
  deadlineMs: number;
}): Promise<DueCeilingResult> {
  const { client } = opts;
  const pool = new Pool({ connectionString: opts.databaseUrl, max: 2 });
  await pool.query(`create table if not exists ${CEILING_TABLE} (id uuid primary key, run text not null, at timestamptz not null default clock_timestamp())`);
  const run = randomUUID();
  const workers = await startCeilingWorkers(opts.workers, opts.databaseUrl, opts.poolMax);
  const pids = workers.map((worker) => worker.pid);
  try {
    // Starts and first tasks take time: the due instant is placed after them, as the plans' is after their creation.
    const ids = Array.from({ length: opts.count }, () => randomUUID());
    const t0 = Date.now();
    const dueAt = t0 + opts.leadMs;
    const starts = await mapSettled(ids, START_CONCURRENCY, (id) =>
      client.workflow.start(benchDueCeilingWorkflow, { taskQueue: CEILING_QUEUE, workflowId: `bench-due-ceiling/${run}/${id}`, args: [id, dueAt, run] }),
    );
    const started = starts.filter((s) => s.status === 'fulfilled').length;
    const startSeconds = (Date.now() - t0) / 1000;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, dueAt - Date.now())));
    const cpu0 = processesCpuMs(pids);
    const threads0 = threadsCpuMs(pids);
    const read = async () =>
      (await pool.query(`select count(*)::int as n, max(at) as last from ${CEILING_TABLE} where run = $1`, [run])).rows[0] as { n: number; last: Date | null };
    let row = await read();
    for (const deadline = dueAt + opts.deadlineMs; row.n < started && Date.now() < deadline; row = await read()) {
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const cpuMs = processesCpuMs(pids) - cpu0;
    const threads = threadsCpuMs(pids);
    let withTimedOutTask = 0;
    const timedOutKinds = new Map<string, number>();
    let armedAhead = 0;
    // At random, as the plans' sample (bench/plans-due.ts).
    const sample = randomSample(ids, HISTORY_SAMPLE);
    for (const id of sample) {
      const events = await historyEvents(client, `bench-due-ceiling/${run}/${id}`);
      if (tallyTimedOutTasks(events, timedOutKinds) > 0) withTimedOutTask += 1;
      if (timerArmedAhead(events, dueAt, ARMED_AHEAD_MS)) armedAhead += 1;
    }
    return {
      started,
      inserted: row.n,
      seconds: row.last ? (row.last.getTime() - dueAt) / 1000 : NaN,
      cpuMs,
      cpuByThread: threadCpuSplit(threads0, threads, row.n),
      withTimedOutTask,
      timedOutKinds,
      armedAhead,
      sampled: sample.length,
      startSeconds,
    };
  } finally {
    await Promise.all(workers.map((worker) => worker.stop()));
    await pool.query(`delete from ${CEILING_TABLE} where run = $1`, [run]).catch(() => undefined);
    await pool.end();
  }
}
