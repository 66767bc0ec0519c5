/**
 * The inputs of the capacity model (bench/capacity-model.ts, docs/CAPACITY.md), measured at small
 * sizes: what one due plan, one webhook delivery, one reading and one exported row cost each part
 * of the stack. Each unit runs alone in a window, and every part is read before and after it:
 *
 * - CPU of the service workers, of an API process from dist/ (the readings' gateway), of the
 *   Temporal dev server and of PostgreSQL's processes, from /proc (bench/process-cpu.ts);
 * - the dev server's own counters (/metrics): Temporal Cloud's billable `action`s and its
 *   persistence requests by operation;
 * - the service's statements, rows and WAL from pg_stat_statements, for the app's role only (the
 *   bench reads as the owner), and the database's size;
 * - history events and their bytes, from sampled histories.
 *
 * Each part's idle rate, read over the seconds just before the window, is taken off, so the
 * pollers and sweeps that run anyway are not charged to the unit. It writes the figures to
 * bench/capacity-inputs.json and the model's tables into docs/CAPACITY.md.
 */
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { temporal } from '@temporalio/proto';
import { Pool } from 'pg';
import { createPrivacyExportActivities } from '../activities/privacy/exports';
import type { AppDeps } from '../api/context';
import { deliveryIdFor } from '../domain/webhooks/delivery-id';
import { workflowIds } from '../infra/workflow-ids';
import { startServiceProcess } from '../scripts/service-process';
import { benchTenantOn, withBenchTenant } from './bench-tenant';
import { writeCapacityDocument } from './capacity-document';
import type { CapacityInputs, Unit, UnitCost } from './capacity-model';
import { terminateTenantWorkflows } from './maintenance';
import { createPlans } from './plans-due';
import { subjectWithMessages } from './privacy-export';
import { benchWorkerPids, processCpuMs, processesCpuMs, processTreeCpuMs } from './process-cpu';
import { flood, watchedPumps } from './readings-plans';
import { historyEvents, randomSample, tallyTimedOutTasks, timedOutKindsLine, type HistoryEvent } from './report';
import { benchWebhook, sendEvents, startReceiver, untilDeliveriesClosed, type WebhookBenchDeps } from './webhooks';
import { counterSum, isWriteOperation } from './server-metrics';

const PLANS = Number(process.env.BENCH_CAPACITY_PLANS ?? 200);
/**
 * The plans fall due in groups this far apart, and the deliveries go to this many webhooks: the
 * cost of a unit in the steady state, not of a burst that overruns one worker's sticky queue (a
 * task that times out there is run twice) or one webhook's attempts in flight (refused attempts
 * retry). A burst's own cost is the due bench's to measure.
 */
const PLAN_GROUPS = 4;
const PLAN_GROUP_GAP_MS = 10_000;
const DELIVERIES = Number(process.env.BENCH_CAPACITY_DELIVERIES ?? 500);
const WEBHOOKS = 5;
const EXPORT_ROWS = 10_000;
const IDLE_MS = 6_000;
const HISTORY_SAMPLE = 40;
/** After the last unit is seen done: the workflow tasks that close it still complete. */
const SETTLE_MS = 2_000;
/** After the plans are created, before the idle reading: their first workflow tasks arm their timers. */
const SETTLE_PLANS_MS = 15_000;
const ROOT = path.resolve(__dirname, '..', '..');

/** One reading of every counter: the unit's figures before they are per unit, and this process's CPU. */
interface Reading extends Omit<UnitCost, 'count' | 'historyEvents' | 'historyBytes' | 'objectBytes'> {
  at: number;
  benchCpuMs: number;
}
type Counter = Exclude<keyof Reading, 'at'>;

/** Reads every part of the stack scripts/bench.mjs started (its pids and the dev server's metrics URL come in the environment). */
class StackMeter {
  readonly workerPids = benchWorkerPids();
  private readonly postgresPid = Number(process.env.BENCH_POSTGRES_PID) || undefined;
  private readonly temporalPid = Number(process.env.BENCH_TEMPORAL_PID) || undefined;
  private readonly metricsUrl = process.env.BENCH_TEMPORAL_METRICS_URL || null;
  apiPid: number | undefined;

  constructor(
    private readonly owner: Pool,
    private readonly appRole: string,
    private readonly namespace: string,
  ) {}

  async read(): Promise<Reading> {
    const [sql, metrics] = await Promise.all([
      this.owner.query(
        `select coalesce(sum(calls), 0)::float8 as statements, coalesce(sum(rows), 0)::float8 as rows, coalesce(sum(wal_bytes), 0)::float8 as wal,
                pg_database_size(current_database())::float8 as size
         from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database())
          and userid = (select oid from pg_roles where rolname = $1)`,
        [this.appRole],
      ),
      this.metricsUrl ? fetch(this.metricsUrl).then((res) => res.text()) : Promise.resolve(null),
    ]);
    const row = sql.rows[0] as { statements: number; rows: number; wal: number; size: number };
    const persistence = (keep: (op: string) => boolean) => (metrics === null ? null : counterSum(metrics, 'persistence_requests', (l) => keep(l.operation ?? '')));
    const cpu = process.cpuUsage();
    return {
      at: performance.now(),
      workerCpuMs: processesCpuMs(this.workerPids),
      benchCpuMs: (cpu.user + cpu.system) / 1000,
      apiCpuMs: this.apiPid ? processCpuMs(this.apiPid) : 0,
      temporalCpuMs: this.temporalPid ? processTreeCpuMs(this.temporalPid) : null,
      postgresCpuMs: processTreeCpuMs(this.postgresPid),
      temporalActions: metrics === null ? null : (counterSum(metrics, 'action', (l) => l.namespace === this.namespace) ?? 0),
      persistenceRequests: persistence(() => true),
      persistenceWrites: persistence(isWriteOperation),
      sqlStatements: row.statements,
      sqlRows: row.rows,
      walBytes: row.wal,
      databaseBytes: row.size,
    };
  }

  /**
   * Runs `work` (which answers how many units it did and their history) after `idleMs` of idle
   * reading; answers the cost per unit with the idle rate taken off. `benchIsWorker`: the unit's
   * work runs in this process (an export's activity), so its CPU counts as a worker's.
   */
  async window(
    idleMs: number,
    work: () => Promise<{ count: number; historyEvents: number; historyBytes: number; objectBytes?: number }>,
    benchIsWorker = false,
  ): Promise<UnitCost> {
    const r0 = await this.read();
    await new Promise((resolve) => setTimeout(resolve, idleMs));
    const r1 = await this.read();
    const done = await work();
    const r2 = await this.read();
    const scale = (r2.at - r1.at) / (r1.at - r0.at);
    const net = (key: Counter): number | null => {
      const [a, b, c] = [r0[key], r1[key], r2[key]];
      if (a === null || b === null || c === null) return null;
      return Math.max(0, c - b - (b - a) * scale) / Math.max(done.count, 1);
    };
    const must = (key: Counter) => net(key) ?? NaN;
    return {
      count: done.count,
      workerCpuMs: must('workerCpuMs') + (benchIsWorker ? must('benchCpuMs') : 0),
      apiCpuMs: must('apiCpuMs'),
      temporalCpuMs: net('temporalCpuMs'),
      postgresCpuMs: must('postgresCpuMs'),
      temporalActions: net('temporalActions'),
      historyEvents: done.historyEvents / Math.max(done.count, 1),
      historyBytes: done.historyBytes / Math.max(done.count, 1),
      persistenceRequests: net('persistenceRequests'),
      persistenceWrites: net('persistenceWrites'),
      sqlStatements: must('sqlStatements'),
      sqlRows: must('sqlRows'),
      walBytes: must('walBytes'),
      // Pages are allocated 8 kB at a time: at small sizes a unit's share is coarse.
      databaseBytes: must('databaseBytes'),
      objectBytes: (done.objectBytes ?? 0) / Math.max(done.count, 1),
    };
  }
}

const historyBytesOf = (events: HistoryEvent[]) => temporal.api.history.v1.History.encode({ events }).finish().length;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Plans due in a few groups: from the first instant to every work order, the plans' histories from their timer on. */
async function duePlans(deps: AppDeps, meter: StackMeter, owner: Pool, notes: Record<string, string | number>): Promise<UnitCost> {
  return withBenchTenant(deps, 'Capacity-plans', async (api) => {
    const dueAt = Date.now() + 45_000 + (PLANS / 8) * 1000;
    const groups = await Promise.all(Array.from({ length: PLAN_GROUPS }, (_, i) => createPlans(api, Math.ceil(PLANS / PLAN_GROUPS), dueAt + i * PLAN_GROUP_GAP_MS)));
    const created = { count: groups.reduce((n, g) => n + g.count, 0) };
    try {
      // The plans' first tasks (arming their timers) settle before the idle reading, which ends well
      // before the instant: its reads take seconds on a loaded machine.
      await sleep(Math.max(0, Math.min(SETTLE_PLANS_MS, dueAt - Date.now() - IDLE_MS - 5_000)));
      return await meter.window(Math.max(IDLE_MS, dueAt - Date.now() - 5_000), async () => {
        await sleep(Math.max(0, dueAt - Date.now()));
        const count = async () => Number((await owner.query('select count(*)::int as n from maintenance_tasks where tenant_id = $1', [api.tenantId])).rows[0].n);
        let tasks = await count();
        for (const deadline = Date.now() + 300_000; tasks < created.count && Date.now() < deadline; tasks = await count()) await sleep(500);
        await sleep(SETTLE_MS);
        const client = await deps.temporal.client();
        const plans = (await owner.query('select id from maintenance_plans where tenant_id = $1', [api.tenantId])).rows as Array<{ id: string }>;
        let events = 0;
        let bytes = 0;
        const timedOut = new Map<string, number>();
        const sample = randomSample(plans, HISTORY_SAMPLE);
        for (const plan of sample) {
          const history = await historyEvents(client, workflowIds.maintenancePlan(api.tenantId, plan.id));
          const fired = history.findIndex((e) => e.timerFiredEventAttributes);
          const due = fired < 0 ? [] : history.slice(fired);
          events += due.length;
          bytes += historyBytesOf(due);
          tallyTimedOutTasks(due, timedOut);
        }
        // A timed-out workflow task runs twice: a figure with some is above the steady cost.
        notes['duePlan.sampled_timed_out_workflow_tasks'] = `${timedOutKindsLine(timedOut)} in ${sample.length}`;
        const per = tasks / Math.max(sample.length, 1);
        return { count: tasks, historyEvents: events * per, historyBytes: bytes * per };
      });
    } finally {
      await terminateTenantWorkflows(await deps.temporal.client(), deps.config.temporal.namespace, api.tenantId).catch(() => undefined);
    }
  });
}

/** Events appended to the outbox (100 a transaction) for a few webhooks of their own tenants, to every first attempt and the delivery workflows closed. */
async function deliveries(deps: WebhookBenchDeps, meter: StackMeter): Promise<UnitCost> {
  const receiver = await startReceiver();
  try {
    const webhooks = await Promise.all(Array.from({ length: WEBHOOKS }, () => benchWebhook(deps, receiver.url)));
    await Promise.all(webhooks.map(({ tenantId }) => sendEvents(deps.db, tenantId, 1, 1)));
    await receiver.waitForCount(WEBHOOKS, 30_000);
    await untilDeliveriesClosed(await deps.temporal.client(), deps.namespace, 60_000);
    receiver.reset();
    const cost = await meter.window(IDLE_MS, async () => {
      // Which webhook each event went to, for its delivery's workflow id.
      const sent = await Promise.all(webhooks.map(async (webhook) => ({ webhook, events: await sendEvents(deps.db, webhook.tenantId, Math.ceil(DELIVERIES / WEBHOOKS), 100) })));
      const webhookOf = new Map(sent.flatMap(({ webhook, events }) => [...events.keys()].map((eventId) => [eventId, webhook] as const)));
      await receiver.waitForCount(webhookOf.size, 300_000);
      await untilDeliveriesClosed(await deps.temporal.client(), deps.namespace, 120_000);
      await sleep(SETTLE_MS);
      const client = await deps.temporal.client();
      let events = 0;
      let bytes = 0;
      const sample = randomSample([...receiver.firstArrivals.keys()], HISTORY_SAMPLE);
      for (const eventId of sample) {
        const { tenantId, webhookId } = webhookOf.get(eventId)!;
        const history = await historyEvents(client, workflowIds.webhookDelivery(tenantId, deliveryIdFor(eventId, webhookId)));
        events += history.length;
        bytes += historyBytesOf(history);
      }
      const per = receiver.firstArrivals.size / Math.max(sample.length, 1);
      return { count: receiver.firstArrivals.size, historyEvents: events * per, historyBytes: bytes * per };
    });
    for (const { webhookId } of webhooks) await deps.db('webhooks').where({ id: webhookId }).update({ status: 'disabled', disabled_reason: 'bench finished' });
    return cost;
  } finally {
    await receiver.close();
  }
}

/** Readings through an API process of its own into pumps each watched by a condition and a predictive plan, to the plans' histories at rest. */
async function readings(deps: AppDeps, meter: StackMeter): Promise<UnitCost> {
  const apiProcess = await startServiceProcess('api', {}, path.join(ROOT, '.run', 'bench', 'capacity-api.log'));
  meter.apiPid = apiProcess.pid;
  try {
    const api = await benchTenantOn(deps, apiProcess.url, 'Capacity-readings');
    const { assetIds: watched, plans } = await watchedPumps(api);
    const client = await deps.temporal.client();
    const histories = () => Promise.all(plans.map((id) => historyEvents(client, workflowIds.maintenancePlan(api.tenantId, id))));
    try {
      return await meter.window(IDLE_MS, async () => {
        const before = await histories();
        const stored = await flood(api, watched, `cap-${randomUUID().slice(0, 8)}`);
        // The plans' histories at rest: unchanged for 2 s (at most 60 s).
        let after = await histories();
        for (let stableSince = Date.now(), until = Date.now() + 60_000; Date.now() - stableSince < 2_000 && Date.now() < until;) {
          await sleep(500);
          const now = await histories();
          if (now.some((h, i) => h.length !== after[i].length)) stableSince = Date.now();
          after = now;
        }
        const added = after.map((h, i) => h.slice(before[i].length));
        return { count: stored.readings, historyEvents: added.reduce((n, h) => n + h.length, 0), historyBytes: added.reduce((n, h) => n + historyBytesOf(h), 0) };
      });
    } finally {
      await terminateTenantWorkflows(client, deps.config.temporal.namespace, api.tenantId).catch(() => undefined);
    }
  } finally {
    meter.apiPid = undefined;
    await apiProcess.stop();
  }
}

/** One subject export of 10 000 rows by the real activity, in this process (a worker runs it in production). */
async function exportRows(deps: AppDeps, meter: StackMeter): Promise<UnitCost> {
  const ref = await subjectWithMessages(deps, EXPORT_ROWS);
  const activities = createPrivacyExportActivities({ db: deps.db, objectStore: deps.objectStore });
  return meter.window(
    IDLE_MS,
    async () => {
      const result = await activities.buildSubjectExport(ref);
      return { count: result.rows, historyEvents: 0, historyBytes: 0, objectBytes: result.bytes };
    },
    true,
  );
}

export async function runCapacityBench(deps: AppDeps, webhookDeps: WebhookBenchDeps): Promise<Record<string, string | number>> {
  const ownerUrl = process.env.DATABASE_MIGRATION_URL;
  if (!ownerUrl) throw new Error('the capacity bench reads pg_stat_statements as the owner: DATABASE_MIGRATION_URL (npm run bench gives it)');
  const owner = new Pool({ connectionString: ownerUrl, max: 2 });
  try {
    await owner.query('create extension if not exists pg_stat_statements');
    const meter = new StackMeter(owner, decodeURIComponent(new URL(deps.config.databaseUrl).username), deps.config.temporal.namespace);
    const notes: Record<string, string | number> = {};
    const units: Record<Unit, UnitCost> = {
      duePlan: await duePlans(deps, meter, owner, notes),
      delivery: await deliveries(webhookDeps, meter),
      reading: await readings(deps, meter),
      exportRow: await exportRows(deps, meter),
    };
    const inputs: CapacityInputs = {
      measured: `${new Date().toISOString().slice(0, 10)} by \`npm run bench -- capacity\` on ${meter.workerPids.length} service worker(s) and ${process.env.BENCH_TEMPORAL_METRICS_URL ? 'the Temporal dev server' : `the Temporal cluster at ${deps.config.temporal.address}`}, on a shared 2-core machine`,
      units: roundedUnits(units),
    };
    const written = writeCapacityDocument(inputs);
    const figures: Record<string, string | number> = {};
    for (const unit of Object.keys(units) as Unit[])
      for (const [key, value] of Object.entries(inputs.units[unit])) figures[`${unit}.${key}`] = value === null ? 'not measured' : value;
    Object.assign(figures, notes);
    figures.written = written.join(', ');
    return figures;
  } finally {
    await owner.end();
  }
}

/** Three significant digits: the figures are not better than that on a shared machine. */
function roundedUnits(units: Record<Unit, UnitCost>): Record<Unit, UnitCost> {
  const round = (value: number | null) => (value === null || !Number.isFinite(value) ? null : value === 0 ? 0 : Number(value.toPrecision(3)));
  return Object.fromEntries(
    Object.entries(units).map(([unit, cost]) => [
      unit,
      Object.fromEntries(Object.entries(cost).map(([key, value]) => [key, key === 'count' ? value : round(value as number | null)])),
    ]),
  ) as Record<Unit, UnitCost>;
}
