/**
 * The worker's activity failure hygiene (activities/failure-hygiene.ts) on the time-skipping
 * server, with the production interceptors: a programming error fails at once instead of retrying
 * through the whole policy, and a transient error's text is scrubbed of personal data before it
 * reaches the workflow's history (read with the shared scanner).
 */
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { WORKER_INTERCEPTORS } from '../../workers/options';
import { historyText } from '../support/history-text';
import { createTimeSkippingEnv } from '../support/temporal-env';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTimeSkippingEnv();
}, 60_000);
afterAll(() => env?.teardown());

async function runNotification(deliver: () => Promise<unknown>): Promise<{ attempts: number; marked: number; workflowId: string; outcome: unknown }> {
  const taskQueue = `hygiene-${Math.random().toString(36).slice(2)}`;
  let attempts = 0;
  let marked = 0;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowsPath: require.resolve('../../workflows'),
    interceptors: WORKER_INTERCEPTORS,
    activities: {
      async deliverNotification() {
        attempts += 1;
        return deliver();
      },
      async markNotificationFailed() {
        marked += 1;
      },
    },
  });
  const workflowId = `notification/t1/${taskQueue}`;
  const outcome = await worker.runUntil(
    env.client.workflow.execute('notificationWorkflow', { taskQueue, workflowId, args: [{ tenantId: 't1', notificationId: taskQueue }] }).catch((err: unknown) => err),
  );
  return { attempts, marked, workflowId, outcome };
}

it('a programming error in an activity fails at once: one attempt, not the ten of the retry policy', async () => {
  const run = await runNotification(async () => {
    const row = undefined as unknown as { recipients: string[] };
    return row.recipients.length; // TypeError
  });
  expect(run).toMatchObject({ attempts: 1, marked: 1 });
  const history = await historyText(env.client, run.workflowId);
  expect(history).toContain('ProgrammingError');
});

it('a transient error is retried through the policy, and its text reaches history without the address it quoted', async () => {
  const run = await runNotification(async () => {
    throw new Error('451 4.7.1 <maria.schmidt@plant.example.com>: try again later, or call +49 170 1234567');
  });
  expect(run).toMatchObject({ attempts: 10, marked: 1 });
  const history = await historyText(env.client, run.workflowId);
  expect(history).toContain('try again later'); // the scanner reads the failures
  expect(history).toContain('[redacted:email]');
  expect(history).not.toContain('maria.schmidt');
  expect(history).not.toContain('1234567');
});
