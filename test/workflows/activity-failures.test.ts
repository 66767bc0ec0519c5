/**
 * The worker's activity failure hygiene (activities/failure-hygiene.ts) on the time-skipping
 * server, with the production interceptors: a programming error fails at once instead of retrying
 * through the whole policy, and a transient error's text is scrubbed of personal data before it
 * reaches the workflow's history (read with the shared scanner).
 */
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { historyText } from '../support/history-text';
import { runNotificationWorkflow } from '../support/notification-run';
import { createTimeSkippingEnv } from '../support/temporal-env';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTimeSkippingEnv();
}, 60_000);
afterAll(() => env?.teardown());

async function runNotification(deliver: () => Promise<unknown>): Promise<{ attempts: number; marked: number; workflowId: string; outcome: unknown }> {
  let attempts = 0;
  let marked = 0;
  const run = await runNotificationWorkflow(env, 't1', {
    async deliverNotification() {
      attempts += 1;
      return deliver();
    },
    async markNotificationFailed() {
      marked += 1;
    },
  });
  return { attempts, marked, ...run };
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
