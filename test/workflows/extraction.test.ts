/**
 * The extraction workflow on the time-skipping server with stand-in activities: a long document's
 * chunks each run once (at most PARALLEL_CHUNKS at a time, a failing chunk retried), then the record
 * is stored; a source error becomes the job's error as written, any other failure a fixed message.
 */
import { ApplicationFailure } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { PARALLEL_CHUNKS } from '../../workflows/extraction';
import { recordHistory } from '../support/record-history';
import { createTimeSkippingEnv } from '../support/temporal-env';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTimeSkippingEnv();
}, 60_000);
afterAll(() => env?.teardown());

async function runWith<T>(activities: Record<string, (...args: any[]) => Promise<unknown>>, fn: (taskQueue: string) => Promise<T>): Promise<T> {
  const taskQueue = `extraction-${Math.random().toString(36).slice(2)}`;
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowsPath: require.resolve('../../workflows'), activities });
  return worker.runUntil(fn(taskQueue));
}

const input = { tenantId: 't1', extractionId: 'x1' };

describe('extractionWorkflow', () => {
  it('extracts every chunk of a long document once, a few at a time, then stores the record', async () => {
    const calls: number[] = [];
    const failedOnce = new Set<number>();
    let inFlight = 0;
    let maxInFlight = 0;
    const stored: string[] = [];
    const result = await runWith(
      {
        async loadExtractionSource() {
          return { chunks: 10 };
        },
        async extractExtractionChunk(arg: { chunk: number; extractionId: string }) {
          inFlight++;
          maxInFlight = Math.max(maxInFlight, inFlight);
          await new Promise((r) => setTimeout(r, 20));
          inFlight--;
          if (arg.chunk === 6 && !failedOnce.has(6)) {
            failedOnce.add(6);
            throw new Error('model timed out');
          }
          calls.push(arg.chunk);
          return { found: 1 };
        },
        async completeExtraction(arg: { extractionId: string }) {
          stored.push(arg.extractionId);
          return { recordId: 'r1' };
        },
        async failExtraction() {
          throw new Error('must not be called');
        },
      },
      async (taskQueue) => {
        const handle = await env.client.workflow.start('extractionWorkflow', { taskQueue, workflowId: 'extraction/t1/x1', args: [input] });
        const out = await handle.result();
        expect(await handle.query('progress')).toEqual({ phase: 'completed', chunks: 10, done: 10 });
        await recordHistory('extraction-completed', handle);
        return out;
      },
    );
    expect(result).toEqual({ recordId: 'r1', chunks: 10 });
    expect([...calls].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(failedOnce).toEqual(new Set([6]));
    expect(maxInFlight).toBeLessThanOrEqual(PARALLEL_CHUNKS);
    expect(maxInFlight).toBeGreaterThan(1);
    expect(stored).toEqual(['x1']);
  });

  it.each([
    [
      'a source error keeps its message',
      ApplicationFailure.nonRetryable('unsupported file type image/png: only application/pdf and text/plain can be extracted', 'ExtractionSourceError'),
      'unsupported file type image/png: only application/pdf and text/plain can be extracted',
      'extraction-failed-source',
    ],
    ['any other failure says only that it failed', ApplicationFailure.nonRetryable('connection to 10.0.0.5 refused', 'Other'), 'the extraction failed', null],
  ])('marks the job failed: %s', async (_name, failure, message, history) => {
    const failed: string[] = [];
    await expect(
      runWith(
        {
          async loadExtractionSource() {
            throw failure;
          },
          async extractExtractionChunk() {
            throw new Error('must not be called');
          },
          async completeExtraction() {
            throw new Error('must not be called');
          },
          async failExtraction(arg: { error: string }) {
            failed.push(arg.error);
          },
        },
        async (taskQueue) => {
          const handle = await env.client.workflow.start('extractionWorkflow', { taskQueue, workflowId: `extraction/t1/${Math.random()}`, args: [input] });
          try {
            return await handle.result();
          } finally {
            if (history) await recordHistory(history, handle);
          }
        },
      ),
    ).rejects.toThrow();
    expect(failed).toEqual([message]);
  });
});
