/**
 * `report/<tenant>/<report>`: renders one on-demand report into the object store. Input and
 * history carry ids only.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { ReportActivities } from '../activities/reports';

export interface ReportInput {
  tenantId: string;
  reportId: string;
}

// Content the renderer refuses fails at once (a non-retryable ContentError); what is retried is
// transient: the database, or the tenant over its share of the worker's content sandbox (TenantBusy,
// after 2-60 s), which a burst of one tenant's reports waits out within these attempts.
const { generateReportFile } = proxyActivities<ReportActivities>({
  startToCloseTimeout: '10 minutes',
  retry: { maximumAttempts: 8 },
});
const { failReport } = proxyActivities<ReportActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 10 },
});

export async function reportWorkflow(input: ReportInput): Promise<{ bytes: number }> {
  try {
    return await generateReportFile(input);
  } catch (err) {
    await failReport(input);
    throw err;
  }
}
