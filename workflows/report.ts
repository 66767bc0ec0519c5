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

const { generateReportFile } = proxyActivities<ReportActivities>({
  startToCloseTimeout: '10 minutes',
  retry: { maximumAttempts: 3 },
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
