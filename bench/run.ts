/**
 * Runs the benchmarks against the stack whose addresses are in the environment (scripts/bench.mjs
 * starts one) and prints their figures. `npm run bench -- http pii` runs a subset.
 */
import os from 'node:os';
import path from 'node:path';
import { createDeps } from '../api/deps';
import { loadConfig } from '../infra/config';
import { temporalConnectionOptions } from '../infra/temporal';
import { runAssetsBenchOn } from './assets';
import { runCapacityBench } from './capacity';
import { writeRatioChart } from './chart';
import { runHttpBench } from './http';
import { runMaintenanceBenchOn } from './maintenance';
import { runPiiBench } from './pii';
import { runPlansDueBenchOn } from './plans-due';
import { runPoolSizingBench } from './pool-sizing';
import { runPrivacyExportBench } from './privacy-export';
import { runPrognosticsBench } from './prognostics';
import { runReadingsPlansBenchOn } from './readings-plans';
import { runWebhookBench } from './webhooks';
import { runWorkerKillBench } from './worker-kill';

/** `stack: false`: a bench of pure functions, run without the throwaway stack (scripts/bench.mjs asks with --needs-stack). */
type Bench = { name: string; target: string; run: () => Promise<unknown>; stack?: false };

async function main(): Promise<void> {
  let created: ReturnType<typeof createDeps> | undefined;
  const stackDeps = () => (created ??= createDeps(loadConfig()));
  const webhookDeps = () => {
    const deps = stackDeps();
    return {
      db: deps.db,
      temporal: deps.temporal,
      dataEncryptionKey: deps.config.secrets.dataEncryptionKey,
      temporalConnection: temporalConnectionOptions(deps.config.temporal),
      namespace: deps.config.temporal.namespace,
    };
  };
  // Each target names its same-work floor or ceiling, measured in the same run (docs/PERFORMANCE.md).
  const benches: Bench[] = [
    {
      name: 'http',
      target: 'authenticated list p99 <= 1.25x a bare Koa + pg handler running its page and count queries, one request at a time',
      run: () => runHttpBench(stackDeps()),
    },
    {
      name: 'assets',
      target: 'gateway ingest >= 0.7 of a bare Koa + pg handler running the same statements; GET /dashboard p99 with 100 000 readings',
      run: () => runAssetsBenchOn(stackDeps()),
    },
    {
      name: 'webhooks',
      target: 'deliveries/s >= 0.7 of the no-op workflow ceiling (5 of 5 runs); burst first-attempt p99 <= 1.2x its drain time; paced first-attempt p99 < 1 s',
      run: () => runWebhookBench(webhookDeps()),
    },
    {
      name: 'kill',
      target: 'a worker SIGKILLed after a third of a burst to one webhook: nothing lost or doubled, the burst <= 1.5x the same burst without the kill',
      run: () => runWorkerKillBench(webhookDeps()),
    },
    { name: 'pool', target: 'activity slots from the pool (pool - 4): the burst no slower, other users of the pool keep their latency', run: () => runPoolSizingBench() },
    { name: 'prognostics', target: 'general model on synthetic series: median relative RUL error <= 0.2, 90 % interval coverage >= 0.85', run: async () => runPrognosticsBench() },
    {
      name: 'readings-plans',
      target: 'gateway readings/s into pumps watched by condition and predictive plans against unwatched ones; signals and history events of one plan in a 10 000-reading flood',
      run: () => runReadingsPlansBenchOn(stackDeps()),
    },
    { name: 'export', target: 'subject export of 100 000 rows under 30 s, memory flat (streamed)', run: () => runPrivacyExportBench(stackDeps()) },
    {
      name: 'pii',
      target:
        'on text never seen (two held-out sets written blind, each and together) beside the tidy fixture, the generated corpus and five hand-written development sets, the redactor and Presidio side by side: recall >= 0.95 per type, precision >= 0.97, at most 2 % of look-alikes lost',
      run: () => runPiiBench(),
      stack: false,
    },
    {
      name: 'due',
      target: '10 000 plans due at one instant: each work order once, >= 0.7 of the same-shape ceiling (no-op workflows, same timer, one local INSERT), 0 timed-out workflow tasks',
      run: () => runPlansDueBenchOn(stackDeps()),
    },
    {
      name: 'capacity',
      target: 'the per-unit costs of docs/CAPACITY.md (a due plan, a delivery, a reading, an exported row), written to bench/capacity-inputs.json and the document',
      run: () => runCapacityBench(stackDeps(), webhookDeps()),
    },
    // Last: it leaves 10 000 idle plan workflows on the stack, which would load the others. The
    // target's 100 000: BENCH_IDLE_PLANS=100000 BENCH_IDLE_SECONDS=2400 BENCH_TEMPORAL_DB_FILE=/dev/shm/t.db
    // (the dev server's in-memory SQLite crashes past 80 000 running workflows).
    {
      name: 'maintenance',
      target:
        'execute p50 and p99 <= 1.25x the floor (a raw Update, then the same transaction from bare pg; part_* say where the time goes); worker RSS < 1 GiB with 100 000 idle plans (10 000 by default)',
      run: () => runMaintenanceBenchOn(stackDeps()),
    },
  ];
  const wanted = process.argv.slice(2).filter((arg) => arg !== '--needs-stack');
  const selected = wanted.length ? benches.filter((b) => wanted.includes(b.name)) : benches;
  if (process.argv.includes('--needs-stack')) {
    process.stdout.write(selected.some((b) => b.stack !== false) ? 'yes\n' : 'no\n');
    return;
  }
  const started = Date.now();
  const figures = new Map<string, Record<string, unknown>>();
  try {
    for (const bench of selected) {
      const t0 = Date.now();
      process.stdout.write(`\n## ${bench.name}  (target: ${bench.target})\n`);
      const result = await bench.run();
      if (typeof result === 'string') process.stdout.write(`${result}\n`);
      else {
        figures.set(bench.name, result as Record<string, unknown>);
        for (const [k, v] of Object.entries(result as Record<string, number | string>)) process.stdout.write(`${k.padEnd(32)} ${v}\n`);
      }
      process.stdout.write(`(${((Date.now() - t0) / 1000).toFixed(1)} s)\n`);
    }
  } finally {
    await created?.close();
  }
  process.stdout.write(`\nbench finished in ${((Date.now() - started) / 1000).toFixed(0)} s on ${os.cpus().length} cores\n`);
  // The chart of a full run is the committed one (docs/PERFORMANCE.md); a subset's goes beside the stack's logs.
  const chart = path.resolve(process.env.BENCH_CHART || (wanted.length ? '.run/bench/ratios.svg' : 'docs/performance-ratios.svg'));
  const caption = `npm run bench${wanted.length ? ` -- ${wanted.join(' ')}` : ''}, ${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores`;
  if (await writeRatioChart(chart, figures, caption)) process.stdout.write(`chart of the ratios: ${chart}\n`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
