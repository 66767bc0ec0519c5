/**
 * Privacy workflows on the time-skipping server with stand-in activities: erasure walks the registry
 * batch by batch in order and completes once; export reports its progress and marks a failure.
 */
import { ApplicationFailure } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { subjectCategories } from '../../domain/privacy/registry';
import { createTimeSkippingEnv } from '../support/temporal-env';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTimeSkippingEnv();
}, 60_000);
afterAll(() => env?.teardown());

async function runWith<T>(activities: Record<string, (...args: any[]) => Promise<unknown>>, fn: (taskQueue: string) => Promise<T>): Promise<T> {
  const taskQueue = `privacy-${Math.random().toString(36).slice(2)}`;
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowsPath: require.resolve('../../workflows'), activities });
  return worker.runUntil(fn(taskQueue));
}

describe('privacyErasureWorkflow', () => {
  it('erases each registry category in order until a batch changes nothing, then completes', async () => {
    const calls: string[] = [];
    const remaining: Record<string, number[]> = { messages: [500, 500, 7], audit_trail: [3] };
    const completed: string[] = [];
    const result = await runWith(
      {
        async eraseSubjectCategoryBatch(input: { category: string; subjectId: string; preserveAudit: boolean }) {
          calls.push(input.category);
          return { changed: remaining[input.category]?.shift() ?? 0 };
        },
        async completeErasure(input: { erasureId: string }) {
          completed.push(input.erasureId);
        },
      },
      (taskQueue) =>
        env.client.workflow.execute('privacyErasureWorkflow', {
          taskQueue,
          workflowId: 'privacy-erasure/t1/e1',
          args: [{ tenantId: 't1', erasureId: 'e1', subjectId: 's1', preserveAudit: true }],
        }),
    );
    const order = subjectCategories().map((c) => c.name);
    const expected = order.flatMap((name) => (name === 'messages' ? [name, name, name, name] : name === 'audit_trail' ? [name, name] : [name]));
    expect(calls).toEqual(expected);
    expect(completed).toEqual(['e1']);
    expect(result).toEqual({ batches: expected.length });
  });
});

describe('privacyExportWorkflow', () => {
  it('builds then publishes, and answers its progress', async () => {
    const steps: string[] = [];
    const result = await runWith(
      {
        async buildSubjectExport() {
          steps.push('build');
          return { parts: 3, rows: 12, bytes: 3456 };
        },
        async publishSubjectExport() {
          steps.push('publish');
        },
        async failSubjectExport() {
          steps.push('fail');
        },
      },
      async (taskQueue) => {
        const handle = await env.client.workflow.start('privacyExportWorkflow', { taskQueue, workflowId: 'privacy-export/t1/x1', args: [{ tenantId: 't1', exportId: 'x1' }] });
        const out = await handle.result();
        expect(await handle.query('progress')).toEqual({ phase: 'ready', percent: 100 });
        return out;
      },
    );
    expect(steps).toEqual(['build', 'publish']);
    expect(result).toEqual({ rows: 12, bytes: 3456 });
  });

  it('marks the export failed when building fails for good', async () => {
    const steps: string[] = [];
    await expect(
      runWith(
        {
          async buildSubjectExport() {
            steps.push('build');
            throw ApplicationFailure.nonRetryable('bucket gone', 'Test');
          },
          async publishSubjectExport() {
            steps.push('publish');
          },
          async failSubjectExport() {
            steps.push('fail');
          },
        },
        (taskQueue) => env.client.workflow.execute('privacyExportWorkflow', { taskQueue, workflowId: 'privacy-export/t1/x2', args: [{ tenantId: 't1', exportId: 'x2' }] }),
      ),
    ).rejects.toThrow();
    expect(steps).toEqual(['build', 'fail']);
  });
});
