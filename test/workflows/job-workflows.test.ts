/**
 * The short job workflows on the time-skipping server (retry backoffs are skipped), with stand-in
 * activities recording their calls: a notification delivered or, after its retries, marked failed;
 * an on-demand report generated or marked failed; a scheduled report's firing (skipped, sent, failed
 * at generation, failed at email); the webhook success-rate check judged at workflow time.
 */
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { recordHistory } from '../support/record-history';
import { createTimeSkippingEnv } from '../support/temporal-env';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTimeSkippingEnv();
}, 60_000);
afterAll(() => env?.teardown());

type Activities = Record<string, (...args: any[]) => Promise<unknown>>;

/** Runs `workflow` to its end; with `history`, records its history under that name (RECORD_HISTORIES=1), ended well or not. */
async function execute(workflow: string, args: unknown[], activities: Activities, history?: string): Promise<unknown> {
  const taskQueue = `jobs-${Math.random().toString(36).slice(2)}`;
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowsPath: require.resolve('../../workflows'), activities });
  return worker.runUntil(async () => {
    const handle = await env.client.workflow.start(workflow, { taskQueue, workflowId: `${workflow}-${taskQueue}`, args });
    try {
      return await handle.result();
    } finally {
      if (history) await recordHistory(history, handle);
    }
  });
}

/** The failure a workflow ended with: its cause's type and message, and the root cause's message. */
async function failureOf(run: Promise<unknown>): Promise<{ type: string | undefined; message: string; root: string }> {
  const err = await run.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkflowFailedError);
  const cause = (err as WorkflowFailedError).cause as ApplicationFailure;
  let root: Error = cause;
  while (root.cause instanceof Error) root = root.cause;
  return { type: cause.type ?? undefined, message: cause.message, root: root.message };
}

const failing = (message: string, counter: { n: number }) => async () => {
  counter.n += 1;
  throw ApplicationFailure.retryable(message, 'SmtpUnavailable');
};

/**
 * Runs `workflow` with activity `failingActivity` failing every attempt with `message`, and
 * `markActivity` recording what it was called with: the attempts made, the marks, the failure.
 */
async function failEveryAttempt(workflow: string, input: unknown, failingActivity: string, message: string, markActivity: string, history: string) {
  const attempts = { n: 0 };
  const marked: unknown[] = [];
  const mark = async (i: unknown) => void marked.push(i);
  const failure = await failureOf(execute(workflow, [input], { [failingActivity]: failing(message, attempts), [markActivity]: mark }, history));
  return { attempts: attempts.n, marked, failure };
}

describe('notificationWorkflow', () => {
  const input = { tenantId: 't1', notificationId: 'n1' };

  it('delivers the notification once', async () => {
    const delivered: unknown[] = [];
    const result = await execute(
      'notificationWorkflow',
      [input],
      {
        async deliverNotification(i: unknown) {
          delivered.push(i);
          return { status: 'sent' };
        },
        async markNotificationFailed() {
          throw new Error('not expected');
        },
      },
      'notification-sent',
    );
    expect(result).toEqual({ status: 'sent' });
    expect(delivered).toEqual([input]);
  });

  it('retries the delivery ten times, then marks the notification failed and fails for good', async () => {
    const { attempts, marked, failure } = await failEveryAttempt(
      'notificationWorkflow',
      input,
      'deliverNotification',
      'mail server down',
      'markNotificationFailed',
      'notification-failed',
    );
    expect(attempts).toBe(10);
    expect(marked).toEqual([input]);
    expect(failure).toMatchObject({ type: 'NotificationFailed', message: 'notification n1 could not be delivered' });
  });
});

describe('reportWorkflow', () => {
  const input = { tenantId: 't1', reportId: 'r1' };

  it('answers the size of the generated file', async () => {
    expect(await execute('reportWorkflow', [input], { generateReportFile: async () => ({ bytes: 2048 }), failReport: async () => undefined }, 'report-generated')).toEqual({
      bytes: 2048,
    });
  });

  it('marks the report failed after eight attempts and fails with the generation error', async () => {
    const { attempts, marked, failure } = await failEveryAttempt('reportWorkflow', input, 'generateReportFile', 'renderer crashed', 'failReport', 'report-failed');
    expect(attempts).toBe(8);
    expect(marked).toEqual([input]);
    // The activity's failure, as the workflow rethrew it.
    expect(failure.root).toBe('renderer crashed');
  });
});

describe('scheduledReportWorkflow', () => {
  const input = { tenantId: 't1', scheduledReportId: 's1' };

  function recorder(overrides: Activities = {}) {
    const calls: Array<[string, unknown]> = [];
    const record = (name: string, answer: unknown) => async (i: unknown) => {
      calls.push([name, i]);
      return answer;
    };
    const activities: Activities = {
      beginScheduledReportRun: record('begin', { runId: 'run-1', reportId: 'r9' }),
      generateReportFile: record('generate', { bytes: 10 }),
      emailScheduledReport: record('email', { status: 'sent', sentTo: 2 }),
      failReport: record('failReport', undefined),
      failScheduledReportRun: record('failRun', undefined),
      ...overrides,
    };
    return { calls, activities };
  }

  it('opens the run at the firing time, generates the report and mails it', async () => {
    const { calls, activities } = recorder();
    const before = await env.currentTimeMs();
    const result = await execute('scheduledReportWorkflow', [input], activities, 'scheduled-report-sent');
    expect(result).toEqual({ status: 'sent', runId: 'run-1', reportId: 'r9', sentTo: 2 });
    expect(calls.map(([name]) => name)).toEqual(['begin', 'generate', 'email']);
    const begin = calls[0]![1] as { at: string; workflowId: string; tenantId: string };
    expect(begin).toMatchObject({ tenantId: 't1', scheduledReportId: 's1', workflowId: expect.stringMatching(/^scheduledReportWorkflow-/) });
    expect(new Date(begin.at).getTime()).toBeGreaterThanOrEqual(before - 1_000);
    expect(calls[1]![1]).toEqual({ tenantId: 't1', reportId: 'r9' });
    expect(calls[2]![1]).toEqual({ tenantId: 't1', runId: 'run-1' });
  });

  it('does nothing more when the run is not opened (a firing already handled, a deleted report)', async () => {
    const { calls, activities } = recorder({ beginScheduledReportRun: async () => null });
    expect(await execute('scheduledReportWorkflow', [input], activities, 'scheduled-report-skipped')).toEqual({ status: 'skipped' });
    expect(calls).toEqual([]);
  });

  it('marks the report and the run failed at the generation stage', async () => {
    const attempts = { n: 0 };
    const { calls, activities } = recorder({ generateReportFile: failing('no data', attempts) });
    await failureOf(execute('scheduledReportWorkflow', [input], activities, 'scheduled-report-failed-generation'));
    expect(attempts.n).toBe(8);
    expect(calls.map(([name, i]) => (name === 'failRun' ? `${name}:${(i as { stage: string }).stage}` : name))).toEqual(['begin', 'failReport', 'failRun:generation']);
  });

  it('marks the run failed at the email stage, keeping the generated report', async () => {
    const attempts = { n: 0 };
    const { calls, activities } = recorder({ emailScheduledReport: failing('SMTP refused', attempts) });
    await failureOf(execute('scheduledReportWorkflow', [input], activities, 'scheduled-report-failed-email'));
    expect(attempts.n).toBe(5);
    expect(calls.map(([name, i]) => (name === 'failRun' ? `${name}:${(i as { stage: string }).stage}` : name))).toEqual(['begin', 'generate', 'failRun:email']);
  });
});

describe('webhook maintenance workflows', () => {
  it('judges the success rates at the workflow time and counts the outcome', async () => {
    const asked: string[] = [];
    const before = await env.currentTimeMs();
    const result = await execute(
      'webhookSuccessRateCheckWorkflow',
      [],
      {
        async checkWebhookSuccessRates(i: { asOf: string }) {
          asked.push(i.asOf);
          return { checked: 5, low: ['w1', 'w2'], alerted: ['w1'], cleared: [] };
        },
        sweepWebhookDeliveries: async () => ({ deleted: 0 }),
      },
      'webhook-success-rate-check',
    );
    expect(result).toEqual({ checked: 5, low: 2, alerted: 1, cleared: 0 });
    // The test server's clock (not the machine's): between the times read before and after the run.
    const asOf = new Date(asked[0]!).getTime();
    expect(asOf).toBeGreaterThanOrEqual(before - 1_000);
    expect(asOf).toBeLessThanOrEqual(await env.currentTimeMs());
  });

  it('sweeps old delivery records', async () => {
    expect(
      await execute(
        'webhookDeliveryRetentionWorkflow',
        [],
        { checkWebhookSuccessRates: async () => null, sweepWebhookDeliveries: async () => ({ deleted: 42 }) },
        'webhook-delivery-retention',
      ),
    ).toEqual({ deleted: 42 });
  });
});
