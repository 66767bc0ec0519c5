/**
 * `privacy-export/<tenant>/<export>`: builds a subject's ZIP in MinIO, marks the export ready (its
 * signed link, which the API computes, then serves the ZIP), and deletes the ZIP when the link
 * expires, 24 h after the export was requested: a durable timer, so to the minute, not at the next
 * sweep. Input, results and history hold ids, counts and the expiry only, never the link.
 */
import { defineQuery, patched, proxyActivities, setHandler, sleep } from '@temporalio/workflow';
import type { PrivacyExportActivities } from '../activities/privacy/exports';

export interface PrivacyExportInput {
  tenantId: string;
  exportId: string;
}

export type ExportPhase = 'queued' | 'building' | 'publishing' | 'ready' | 'failed';
export interface ExportProgress {
  phase: ExportPhase;
  percent: number;
}

export const exportProgressQuery = defineQuery<ExportProgress>('progress');

const { buildSubjectExport } = proxyActivities<PrivacyExportActivities>({
  startToCloseTimeout: '1 hour',
  heartbeatTimeout: '2 minutes',
  retry: { maximumAttempts: 5 },
});
const { publishSubjectExport, failSubjectExport, deleteSubjectExportArchive } = proxyActivities<PrivacyExportActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 10 },
});

/** Histories of runs that ended once the export was published (before archives were deleted at expiry) replay without the timer. */
export const DELETE_ARCHIVE_AT_EXPIRY_PATCH = 'privacy-export-delete-archive-at-expiry';

const PERCENT: Record<ExportPhase, number> = { queued: 0, building: 10, publishing: 90, ready: 100, failed: 100 };

export async function privacyExportWorkflow(input: PrivacyExportInput): Promise<{ rows: number; bytes: number }> {
  let phase: ExportPhase = 'queued';
  setHandler(exportProgressQuery, () => ({ phase, percent: PERCENT[phase] }));
  try {
    phase = 'building';
    const built = await buildSubjectExport(input);
    phase = 'publishing';
    const published = await publishSubjectExport(input);
    phase = 'ready';
    if (patched(DELETE_ARCHIVE_AT_EXPIRY_PATCH)) {
      // Workflow time: the timer survives restarts and fires once, when the link stops working.
      await sleep(Math.max(0, Date.parse(published.expiresAt) - Date.now()));
      await deleteSubjectExportArchive(input);
    }
    return { rows: built.rows, bytes: built.bytes };
  } catch (err) {
    phase = 'failed';
    await failSubjectExport(input);
    throw err;
  }
}
