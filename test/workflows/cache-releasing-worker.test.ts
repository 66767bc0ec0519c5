/**
 * workers/cache-releasing-worker.ts on a real dev server: when the worker's cache (of two
 * workflows here, the SDK's least) drops an idle workflow to make room for another, the dropped workflow's next
 * task is scheduled on the shared task queue, not on the worker's sticky queue. With the SDK's
 * own Worker, the same steps schedule it on the sticky queue (which is why the product's workers
 * release it: a burst of due plans otherwise times out there, docs/PERFORMANCE.md).
 */
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { NativeConnection, Worker } from '@temporalio/worker';
import { CacheReleasingWorker } from '../../workers/cache-releasing-worker';
import { pokeSignal, waitsForPokes } from '../fixtures/workflows/waits-for-pokes';
import { DevServerForTest, startDevServerForTest } from '../support/temporal-env';
import { until } from '../support/until';

jest.setTimeout(120_000);

const { TaskQueueKind } = temporal.api.enums.v1;
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

let server: DevServerForTest;
let connection: NativeConnection;
let clientConnection: Connection;
let client: Client;

beforeAll(async () => {
  server = await startDevServerForTest();
  connection = await NativeConnection.connect({ address: server.address });
  clientConnection = await Connection.connect({ address: server.address });
  client = new Client({ connection: clientConnection, namespace: server.namespace });
});
afterAll(async () => {
  await clientConnection?.close();
  await connection?.close();
  await server?.stop();
});

const history = async (workflowId: string): Promise<HistoryEvent[]> => (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
const completedTasks = (events: HistoryEvent[]) => events.filter((e) => e.workflowTaskCompletedEventAttributes).length;
const scheduledKinds = (events: HistoryEvent[]) => events.filter((e) => e.workflowTaskScheduledEventAttributes).map((e) => e.workflowTaskScheduledEventAttributes?.taskQueue?.kind);

/**
 * Starts A and lets its first task complete (A is cached), then B and C one after the other (the
 * cache of two drops A, the least recently used, for C), then signals A: the kinds of the queues
 * A's workflow tasks were scheduled on.
 */
async function dropThenWake(create: (taskQueue: string) => Promise<Worker>, droppedSeen: (worker: Worker) => boolean): Promise<Array<number | null | undefined>> {
  const taskQueue = `cache-release-${randomUUID()}`;
  const worker = await create(taskQueue);
  return worker.runUntil(async () => {
    const a = await client.workflow.start(waitsForPokes, { taskQueue, workflowId: `a-${taskQueue}` });
    await until(
      () => history(a.workflowId),
      (events) => completedTasks(events) === 1,
      'A cached after its first task',
    );
    const others = [];
    for (const name of ['b', 'c']) {
      const other = await client.workflow.start(waitsForPokes, { taskQueue, workflowId: `${name}-${taskQueue}` });
      await until(
        () => history(other.workflowId),
        (events) => completedTasks(events) === 1,
        `${name} cached`,
      );
      others.push(other);
    }
    await until(async () => droppedSeen(worker), Boolean, 'A dropped from the cache (and released, for the releasing worker)');
    await a.signal(pokeSignal);
    const events = await until(
      () => history(a.workflowId),
      (e) => completedTasks(e) === 2,
      'A woken by the signal',
    );
    await a.signal(pokeSignal);
    for (const other of others) for (const _ of [1, 2]) await other.signal(pokeSignal);
    for (const workflow of [a, ...others]) expect(await workflow.result()).toBe(2);
    return scheduledKinds(events);
  });
}

const options = (taskQueue: string) => ({
  connection,
  namespace: server.namespace,
  taskQueue,
  workflowsPath: require.resolve('../fixtures/workflows/waits-for-pokes'),
  maxCachedWorkflows: 2,
});

it('schedules a workflow the cache dropped on the shared queue once the worker released it', async () => {
  const kinds = await dropThenWake(
    (taskQueue) => CacheReleasingWorker.createReleasing(options(taskQueue)),
    (worker) => (worker as CacheReleasingWorker).releasedCount >= 1,
  );
  // The first task (a new workflow) and the signal's both on the shared queue.
  expect(kinds).toEqual([TaskQueueKind.TASK_QUEUE_KIND_NORMAL, TaskQueueKind.TASK_QUEUE_KIND_NORMAL]);
});

it('schedules it on the sticky queue with the SDK’s own worker (what the release changes)', async () => {
  // Core evicts A before it hands C's first task over, so A is out of the cache once C's task completed.
  const kinds = await dropThenWake(
    (taskQueue) => Worker.create(options(taskQueue)),
    () => true,
  );
  expect(kinds).toEqual([TaskQueueKind.TASK_QUEUE_KIND_NORMAL, TaskQueueKind.TASK_QUEUE_KIND_STICKY]);
});
