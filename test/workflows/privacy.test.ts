/**
 * Privacy workflows on the time-skipping server with stand-in activities: erasure walks the registry
 * batch by batch in order and completes once; export reports its progress and marks a failure.
 */
import { ApplicationFailure } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { retentionCategories, subjectCategories } from '../../domain/privacy/registry';
import { recordHistory } from '../support/record-history';
import { createTimeSkippingEnv } from '../support/temporal-env';
import { untilValue } from '../support/until';

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
      async (taskQueue) => {
        const handle = await env.client.workflow.start('privacyErasureWorkflow', {
          taskQueue,
          workflowId: 'privacy-erasure/t1/e1',
          args: [{ tenantId: 't1', erasureId: 'e1', subjectId: 's1', preserveAudit: true }],
        });
        const out = await handle.result();
        await recordHistory('privacy-erasure-completed', handle);
        return out;
      },
    );
    const order = subjectCategories().map((c) => c.name);
    const expected = order.flatMap((name) => (name === 'messages' ? [name, name, name, name] : name === 'audit_trail' ? [name, name] : [name]));
    expect(calls).toEqual(expected);
    expect(completed).toEqual(['e1']);
    expect(result).toEqual({ batches: expected.length });
  });
});

/** Follows a workflow's chain of runs from its first: each run's history length, in order. */
async function runChain(workflowId: string, firstRunId: string): Promise<number[]> {
  const lengths: number[] = [];
  for (let runId: string | undefined = firstRunId; runId;) {
    const history: temporal.api.history.v1.IHistory = await env.client.workflow.getHandle(workflowId, runId).fetchHistory();
    const events = history.events ?? [];
    lengths.push(events.length);
    runId = events[events.length - 1].workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  return lengths;
}

describe('continue-as-new in the batch loops (issue 23)', () => {
  it('an erasure with many batches continues as new within its history limit and erases exactly as in one run', async () => {
    const calls: string[] = [];
    const remaining: Record<string, number[]> = { messages: Array.from({ length: 12 }, () => 1000), conversations: [1, 1] };
    const completed: string[] = [];
    const { workflowId, firstRunId, result } = await runWith(
      {
        async eraseSubjectCategoryBatch(input: { category: string; subjectId: string; erasureId: string; preserveAudit: boolean }) {
          expect(input).toEqual({ tenantId: 't1', erasureId: 'e-long', subjectId: 's1', preserveAudit: false, category: input.category });
          calls.push(input.category);
          return { changed: remaining[input.category]?.shift() ?? 0 };
        },
        async completeErasure(input: { erasureId: string }) {
          completed.push(input.erasureId);
        },
      },
      async (taskQueue) => {
        const handle = await env.client.workflow.start('privacyErasureWorkflow', {
          taskQueue,
          workflowId: 'privacy-erasure/t1/e-long',
          args: [{ tenantId: 't1', erasureId: 'e-long', subjectId: 's1', preserveAudit: false, historyLimit: 30 }],
        });
        const result = await handle.result();
        await recordHistory('privacy-erasure-continued-as-new', env.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId));
        await recordHistory('privacy-erasure-last-run', handle);
        return { workflowId: handle.workflowId, firstRunId: handle.firstExecutionRunId, result };
      },
    );
    const order = subjectCategories().map((c) => c.name);
    const expected = order.flatMap((name) => (name === 'messages' ? Array(13).fill(name) : name === 'conversations' ? Array(3).fill(name) : [name]));
    expect(calls).toEqual(expected);
    expect(completed).toEqual(['e-long']);
    expect(result).toEqual({ batches: expected.length });
    const runs = await runChain(workflowId, firstRunId);
    expect(runs.length).toBeGreaterThan(2);
    // Each run stops at its limit (plus the batch it finishes and the continue-as-new itself).
    expect(Math.max(...runs)).toBeLessThanOrEqual(40);
  });

  it('the retention sweep continues as new inside one tenant with many batches, keeping its reference time and total', async () => {
    const calls: Array<{ tenantId: string; category: string; now: string }> = [];
    const archiveSweeps: string[] = [];
    let expiredOfT1 = 25;
    const { workflowId, firstRunId, result } = await runWith(
      {
        // The backstop for export archives past their links' expiry: two batches, once per sweep.
        async deleteExpiredExportArchives(input: { now: string }) {
          archiveSweeps.push(input.now);
          return { deleted: archiveSweeps.length === 1 ? 100 : 3, more: archiveSweeps.length === 1 };
        },
        async listTenantIds() {
          expect(archiveSweeps).toHaveLength(2);
          return ['t1', 't2'];
        },
        async sweepRetentionBatch(input: { tenantId: string; category: string; now: string }) {
          calls.push(input);
          const first = retentionCategories()[0].name;
          if (input.tenantId === 't1' && input.category === first && expiredOfT1 > 0) {
            expiredOfT1 -= 1;
            return { deleted: 1000 };
          }
          return { deleted: 0 };
        },
      },
      async (taskQueue) => {
        const handle = await env.client.workflow.start('retentionSweepWorkflow', {
          taskQueue,
          workflowId: `retention-sweep-${Math.random().toString(36).slice(2)}`,
          args: [{ now: '2026-11-25T00:00:00.000Z', historyLimit: 30 }],
        });
        const result = await handle.result();
        await recordHistory('retention-sweep-continued-as-new', env.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId));
        await recordHistory('retention-sweep-last-run', handle);
        return { workflowId: handle.workflowId, firstRunId: handle.firstExecutionRunId, result };
      },
    );
    const categories = retentionCategories().map((c) => c.name);
    expect(result).toEqual({ tenants: 2, deleted: 25_000 });
    expect(calls).toHaveLength(26 + (categories.length - 1) + categories.length);
    expect(new Set(calls.map((c) => c.now))).toEqual(new Set(['2026-11-25T00:00:00.000Z']));
    expect(archiveSweeps).toEqual(['2026-11-25T00:00:00.000Z', '2026-11-25T00:00:00.000Z']);
    expect(calls.filter((c) => c.tenantId === 't2').map((c) => c.category)).toEqual(categories);
    const runs = await runChain(workflowId, firstRunId);
    expect(runs.length).toBeGreaterThan(2);
    expect(Math.max(...runs)).toBeLessThanOrEqual(40);
  });
});

describe('privacyExportWorkflow', () => {
  const DAY_MS = 24 * 3_600_000;

  it('builds, publishes, answers its progress, and deletes the ZIP when the link expires (24 h after the request, within the hour)', async () => {
    const steps: string[] = [];
    let expiresAt = 0;
    let deletedAt = 0;
    const result = await runWith(
      {
        async buildSubjectExport() {
          steps.push('build');
          return { parts: 3, rows: 12, bytes: 3456 };
        },
        async publishSubjectExport() {
          steps.push('publish');
          // The export was requested a moment ago: its link runs 24 h from then (the test server's clock).
          expiresAt = (await env.currentTimeMs()) + DAY_MS - 60_000;
          return { expiresAt: new Date(expiresAt).toISOString() };
        },
        async deleteSubjectExportArchive() {
          steps.push('delete');
          deletedAt = await env.currentTimeMs();
        },
        async failSubjectExport() {
          steps.push('fail');
        },
      },
      async (taskQueue) => {
        const handle = await env.client.workflow.start('privacyExportWorkflow', { taskQueue, workflowId: 'privacy-export/t1/x1', args: [{ tenantId: 't1', exportId: 'x1' }] });
        // Published, the ZIP still there until its link expires.
        await untilValue(async () => (await handle.query<{ phase: string }>('progress')).phase === 'ready', 'the export to be ready', { pause: () => env.sleep(1_000) });
        expect(steps).toEqual(['build', 'publish']);
        const out = await handle.result();
        expect(await handle.query('progress')).toEqual({ phase: 'ready', percent: 100 });
        await recordHistory('privacy-export-published', handle);
        return out;
      },
    );
    expect(steps).toEqual(['build', 'publish', 'delete']);
    expect(result).toEqual({ rows: 12, bytes: 3456 });
    // Not before the link expired, and within the hour after (the timer fires at the expiry).
    expect(deletedAt).toBeGreaterThanOrEqual(expiresAt);
    expect(deletedAt - expiresAt).toBeLessThan(3_600_000);
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
            return { expiresAt: new Date().toISOString() };
          },
          async deleteSubjectExportArchive() {
            steps.push('delete');
          },
          async failSubjectExport() {
            steps.push('fail');
          },
        },
        async (taskQueue) => {
          const handle = await env.client.workflow.start('privacyExportWorkflow', { taskQueue, workflowId: 'privacy-export/t1/x2', args: [{ tenantId: 't1', exportId: 'x2' }] });
          try {
            return await handle.result();
          } finally {
            await recordHistory('privacy-export-failed', handle);
          }
        },
      ),
    ).rejects.toThrow();
    expect(steps).toEqual(['build', 'fail']);
  });
});
