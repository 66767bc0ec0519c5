import type { Context } from '@temporalio/activity';
import { OpenTelemetryActivityInboundInterceptor, OpenTelemetryActivityOutboundInterceptor } from '@temporalio/interceptors-opentelemetry';
import { WorkerOptions } from '@temporalio/worker';
import { activityDbScope } from '../activities/db-scope';
import { activityFailureHygiene } from '../activities/failure-hygiene';
import { activityTestFault, activityWorkContext } from '../activities/work-context';
import type { TestFaults } from '../infra/config';

type WorkerInterceptors = NonNullable<WorkerOptions['interceptors']>;

/**
 * On every worker: activity failures are classified and scrubbed before they reach history, a
 * tenant's activity sees that tenant's rows only (row-level security, activities/db-scope.ts), and
 * a crash on an activity's path names it (activities/work-context.ts).
 */
export const WORKER_INTERCEPTORS: WorkerInterceptors = { activity: [activityFailureHygiene, activityDbScope, activityWorkContext] };

/** The test stack's injected fault, innermost, inside the activity's work context (config.testFaults). */
export function withTestFaults(interceptors: WorkerInterceptors, faults: TestFaults | null): WorkerInterceptors {
  return faults?.activity ? { ...interceptors, activity: [...(interceptors.activity ?? []), activityTestFault(faults.activity)] } : interceptors;
}

/** With traces on (infra/tracing.ts): each activity runs in a span joined to its workflow's trace, and its log lines carry the trace id. */
export function withTracing(interceptors: WorkerInterceptors): WorkerInterceptors {
  const traced = (ctx: Context) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx), outbound: new OpenTelemetryActivityOutboundInterceptor(ctx) });
  return { ...interceptors, activity: [traced, ...(interceptors.activity ?? [])] };
}

/**
 * Explicit sizing (the defaults scale with the machine's memory): a bounded workflow cache keeps
 * memory flat with many idle entity workflows, which are replayed from history when evicted.
 * Measured with 10 000 idle maintenance plans (npm run bench): a cache of 2 000 grew the worker to
 * 1.6 GiB RSS, a cache of 500 held it at about 660 MiB. Idle plans wake at most a few times a day,
 * so the replay an eviction costs is cheap next to the memory.
 */
/**
 * Activity slots of the main queue, from the process's pool: its activities are database-bound,
 * so more slots than connections only queue inside knex (and time out there under a burst).
 * A few connections stay free for the outbox dispatcher and the reconcilers.
 * Measured (npm run bench -- pool: 800 activities holding a connection 100 ms, pool of 20, two
 * rounds): 100 slots finish the burst in 5.0-5.6 s but another user of the pool waits 100-360 ms
 * (p99) for a connection; 16 slots take 7.6-7.8 s and the other user waits 10-18 ms. We keep the
 * dispatcher and reconcilers responsive; a deployment that needs burst throughput raises
 * DATABASE_POOL_MAX, and the slots follow.
 */
export function mainQueueActivitySlots(poolMax: number): number {
  return Math.max(2, poolMax - POOL_RESERVE);
}
const POOL_RESERVE = 4;

/**
 * Local-activity slots of the main queue (issue 19: a plan's due execution and a counter reading
 * run as local activities, each one transaction), from the pool for the same reason as the
 * activity slots: the SDK's default of 100 lets a minute's due plans queue for connections
 * inside knex, each holding its workflow task open meanwhile. A local activity holds a
 * workflow-task slot too, so the 40 of WORKER_TUNING leave room for the plans' other tasks.
 * Measured with `npm run bench -- due` (500 plans due at once, one run each at load average 11-14,
 * docs/PERFORMANCE.md): 16 slots 14.6 tasks/s, last task 34 s after the due instant; the default
 * 100 slots 12.4/s, 40 s. Within this machine's noise, so the reason is the pool, not the figure.
 */
export const mainQueueLocalActivitySlots = mainQueueActivitySlots;

/**
 * The sticky queue's schedule-to-start timeout stays at the SDK's 10 s, on purpose. When a minute's
 * plans fell due together, most of their tasks waited longer than that on this worker's sticky
 * queue and went round through the shared queue (86-96 of 100 sampled plans at 2 000 due, `npm run
 * bench -- due`). 60 s avoided that and gained 11 %, but a worker killed without shutting down then
 * held its queued tasks, and so the users' requests behind them, for a minute (scale-out test:
 * slowest request 60 s, against 10-31 s). docs/decisions/sticky-queues-left-to-the-sdk.md. Releasing the sticky queue of each workflow the cache drops (ResetStickyTaskQueue) was
 * tried and removed: the server keeps a release only while it caches the workflow's state (at most
 * its 1 h TTL), so it never reaches a plan's next due date, and at 10 000 due plans it cost the
 * burst a tenth of its rate (docs/decisions/sticky-queues-left-to-the-sdk.md).
 */
export const WORKER_TUNING: Pick<WorkerOptions, 'maxCachedWorkflows' | 'maxConcurrentActivityTaskExecutions' | 'maxConcurrentWorkflowTaskExecutions' | 'shutdownGraceTime'> = {
  maxCachedWorkflows: 500,
  maxConcurrentActivityTaskExecutions: 100,
  maxConcurrentWorkflowTaskExecutions: 40,
  shutdownGraceTime: '10 seconds',
};

/**
 * The webhook queue's worker: an attempt is an I/O wait (or a short wait for its webhook's
 * in-flight limit), so many run at once; a slow receiver holds at most 16 running + 16 waiting,
 * a fast one 16 running + as many waiting as it serves within 2 s, at most 200 (half the slots;
 * activities/webhooks/lease-waiters.ts), and one tenant, whatever its webhooks, at most 64
 * running + 64 waiting (WEBHOOK_ATTEMPTS_PER_TENANT, WEBHOOK_WAITING_PER_TENANT).
 * Since issue 19 an attempt is a local activity, which keeps its workflow task open while it runs
 * (measured: 1 workflow task and 6 history events per delivery, against 2 workflow tasks, 1
 * activity task and 11 events before, and 1 task and 5 events for an empty workflow): the
 * workflow-task and local-activity slots now bound the attempts in flight, so they get the 400
 * the activity slots had (with 40, one slow receiver's running and waiting attempts would hold
 * every slot and stall the other webhooks). The activity slots stay for the rare activities
 * (failing, recovered, disabled) and deliveries started before the change.
 */
export const WEBHOOK_WORKER_TUNING: typeof WORKER_TUNING & Pick<WorkerOptions, 'maxConcurrentLocalActivityExecutions'> = {
  ...WORKER_TUNING,
  maxConcurrentActivityTaskExecutions: 400,
  maxConcurrentWorkflowTaskExecutions: 400,
  maxConcurrentLocalActivityExecutions: 400,
};
