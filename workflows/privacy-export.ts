/**
 * `privacy-export/<tenant>/<export>`: builds a subject's ZIP in MinIO and publishes its presigned
 * URL on the export row. Input, results and history hold ids and counts only.
 */
import { defineQuery, proxyActivities, setHandler } from '@temporalio/workflow';
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
const { publishSubjectExport, failSubjectExport } = proxyActivities<PrivacyExportActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 10 },
});

const PERCENT: Record<ExportPhase, number> = { queued: 0, building: 10, publishing: 90, ready: 100, failed: 100 };

export async function privacyExportWorkflow(input: PrivacyExportInput): Promise<{ rows: number; bytes: number }> {
  let phase: ExportPhase = 'queued';
  setHandler(exportProgressQuery, () => ({ phase, percent: PERCENT[phase] }));
  try {
    phase = 'building';
    const built = await buildSubjectExport(input);
    phase = 'publishing';
    await publishSubjectExport(input);
    phase = 'ready';
    return { rows: built.rows, bytes: built.bytes };
  } catch (err) {
    phase = 'failed';
    await failSubjectExport(input);
    throw err;
  }
}
