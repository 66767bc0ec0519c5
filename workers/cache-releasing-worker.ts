/**
 * A worker that tells the server when it drops a workflow from its cache, so that the workflow's
 * next task goes to the shared task queue instead of this worker's sticky queue.
 *
 * Why: the SDK's core does not (the Go SDK does, and the API documents ResetStickyTaskQueue as
 * "prudent for workers to perform if a workflow has been paged out of their cache"). Without it,
 * every task of a workflow the cache let go is still sent to this worker's sticky queue, where it
 * buys nothing (the worker must fetch the whole history anyway) and, when many fall due together,
 * waits out the sticky queue's 10 s schedule-to-start timeout before going round through the
 * shared queue: measured with 2 000 plans due at one instant and a cache of 500 (`npm run bench --
 * due`), 86 of 100 sampled plans had a timed-out workflow task, each 10 s late and one more task
 * for the server (docs/PERFORMANCE.md, "Plans due: the cache lets go of the sticky queue").
 *
 * What it cannot do: the server keeps a release in its cache of workflow state only (the call is
 * a no-op write, temporalio/temporal's ResetStickyTaskQueue), so a workflow whose state the server
 * let go of reloads its sticky queue from the database. With 4 000 idle plans on the dev server the
 * releases held (0 of 100 sampled plans timed out when all fell due); with 10 000, only about a
 * third did. How many hold is the server's history cache size, an operator's setting.
 *
 * Only a workflow dropped to make room (CACHE_FULL) is released: one that ended needs nothing,
 * and one evicted for an error is retried by the server on its own. A workflow that comes back
 * into the cache before its release is sent keeps its sticky queue. Releases are best effort and
 * paced: RELEASES_PER_SECOND, at most RELEASES_IN_FLIGHT calls at once and RELEASES_WAITING
 * waiting, the oldest dropped first (a dropped release costs what the SDK's default costs, one
 * sticky timeout), so a tenant with many plans cannot grow this worker's memory or its calls to
 * the server without bound.
 */
import { coresdk } from '@temporalio/proto';
import { Worker, WorkerOptions } from '@temporalio/worker';
import { errorSummary, grpcStatusOf } from '../infra/error-chain';

const RELEASES_IN_FLIGHT = 8;
/**
 * Releases a second, at most: each costs the server a load of the workflow's state, and a burst
 * of due plans evicts one workflow per plan, so unpaced a burst's releases would compete with it
 * for the server. (Not shown to be the cause: 10 000 due plans ran at 36.9-39.8 plans/s in three
 * of four runs after releases came, paced or not, against 43-46 in the three runs before; the
 * other floors of the same runs were slower too. docs/PERFORMANCE.md.)
 */
const RELEASES_PER_SECOND = 10;
/** Waiting releases kept, the newest: the server is likelier to still hold their state. */
const RELEASES_WAITING = 1_000;
const RELEASE_DEADLINE_MS = 5_000;
/** gRPC's NOT_FOUND: the run ended (or was deleted) before its release was sent. */
const GRPC_NOT_FOUND = 5;
const CACHE_FULL = coresdk.workflow_activation.RemoveFromCache.EvictionReason.CACHE_FULL;

type HandleActivation = Worker['handleActivation'];

export class CacheReleasingWorker extends Worker {
  /** Released workflows not yet sent, by run id, oldest first (a Map keeps insertion order). */
  private readonly waiting = new Map<string, string>();
  private inFlight = 0;
  private released = 0;
  private lastSentAt = 0;
  private pacing: NodeJS.Timeout | null = null;

  /** Creates the worker (Worker.create builds an instance of the class it is called on). */
  static async createReleasing(options: WorkerOptions): Promise<CacheReleasingWorker> {
    return (await CacheReleasingWorker.create(options)) as CacheReleasingWorker;
  }

  /** Sticky queues released since start (what the tests observe). */
  get releasedCount(): number {
    return this.released;
  }

  protected override async handleActivation(...[workflow, input]: Parameters<HandleActivation>): ReturnType<HandleActivation> {
    const droppedForRoom = input.activation.jobs.some((job) => job.removeFromCache?.reason === CACHE_FULL);
    // Anything but an eviction means the run is (back) in the cache: its sticky queue serves it.
    if (!droppedForRoom) this.waiting.delete(input.activation.runId);
    const result = await super.handleActivation(workflow, input);
    if (droppedForRoom && workflow) this.release(workflow.info.workflowId, input.activation.runId);
    return result;
  }

  private release(workflowId: string, runId: string): void {
    this.waiting.set(runId, workflowId);
    if (this.waiting.size > RELEASES_WAITING) this.waiting.delete(this.waiting.keys().next().value as string);
    this.sendWaiting();
  }

  /** Sends the oldest waiting release, paced to RELEASES_PER_SECOND, and schedules the next. */
  private sendWaiting(): void {
    const connection = this.connection;
    if (!connection || this.pacing || this.inFlight >= RELEASES_IN_FLIGHT || this.waiting.size === 0) return;
    const wait = this.lastSentAt + 1000 / RELEASES_PER_SECOND - Date.now();
    if (wait > 0) {
      this.pacing = setTimeout(() => {
        this.pacing = null;
        this.sendWaiting();
      }, wait).unref();
      return;
    }
    const [runId, workflowId] = this.waiting.entries().next().value as [string, string];
    this.waiting.delete(runId);
    this.inFlight += 1;
    this.lastSentAt = Date.now();
    connection
      // A deadline, so a server that stops answering holds the in-flight slots for seconds, not for good.
      .withDeadline(Date.now() + RELEASE_DEADLINE_MS, () =>
        connection.workflowService.resetStickyTaskQueue({ namespace: this.options.namespace, execution: { workflowId, runId } }),
      )
      .then(
        () => {
          this.released += 1;
        },
        (err: unknown) => {
          // A run that ended meanwhile has nothing to release; anything else costs one sticky timeout.
          if (grpcStatusOf(err) !== GRPC_NOT_FOUND) this.logger.debug('releasing a sticky queue failed', { workflowId, runId, error: errorSummary(err) });
        },
      )
      .finally(() => {
        this.inFlight -= 1;
        this.sendWaiting();
      });
    this.sendWaiting();
  }
}
