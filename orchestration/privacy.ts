/**
 * Client side of the privacy workflows: export and erasure starts (idempotent by business id),
 * the export's progress query, and the retention sweep's Schedule (created idempotently at worker
 * start, like the webhook schedules).
 */
import { Client } from '@temporalio/client';
import { TASK_QUEUES } from '../infra/task-queues';
import { ensureIntervalSchedule } from './schedules';
import { startOnce } from './start-once';
import { workflowIds } from '../infra/workflow-ids';
import type { privacyErasureWorkflow, PrivacyErasureInput } from '../workflows/privacy-erasure';
import type { ExportProgress, privacyExportWorkflow } from '../workflows/privacy-export';

export const RETENTION_SCHEDULE = { id: 'privacy-retention-sweep', workflowType: 'retentionSweepWorkflow', every: '24 hours' } as const;

export async function startPrivacyExport(client: Client, tenantId: string, exportId: string): Promise<void> {
  await startOnce<typeof privacyExportWorkflow>(client, {
    workflowType: 'privacyExportWorkflow',
    taskQueue: TASK_QUEUES.main,
    workflowId: workflowIds.privacyExport(tenantId, exportId),
    args: [{ tenantId, exportId }],
    tenantId,
    resourceId: exportId,
  });
}

export async function startPrivacyErasure(client: Client, input: PrivacyErasureInput): Promise<void> {
  await startOnce<typeof privacyErasureWorkflow>(client, {
    workflowType: 'privacyErasureWorkflow',
    taskQueue: TASK_QUEUES.main,
    workflowId: workflowIds.privacyErasure(input.tenantId, input.erasureId),
    args: [input],
    tenantId: input.tenantId,
    resourceId: input.erasureId,
  });
}

/** The running export's progress; null when the workflow cannot be asked (e.g. not found). */
export async function exportProgress(client: Client, tenantId: string, exportId: string): Promise<ExportProgress | null> {
  try {
    return await client.workflow.getHandle(workflowIds.privacyExport(tenantId, exportId)).query<ExportProgress>('progress');
  } catch {
    return null;
  }
}

/** Creates the retention sweep's Schedule when missing; true when it created it. */
export function ensureRetentionSchedule(client: Client): Promise<boolean> {
  return ensureIntervalSchedule(client, RETENTION_SCHEDULE, TASK_QUEUES.main);
}
