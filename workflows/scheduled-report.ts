/**
 * One firing of a scheduled report's Temporal Schedule (`scheduled-report/<tenant>/<id>-<time>`):
 * open the run, generate the report into the object store, mail it to the recipients. The
 * activities read the recipients; input and history carry ids only.
 */
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { ReportActivities } from '../activities/reports';

export interface ScheduledReportInput {
  tenantId: string;
  scheduledReportId: string;
}

export type ScheduledReportResult = { status: 'skipped' } | { status: 'sent' | 'recorded' | 'withheld'; runId: string; reportId: string; sentTo: number };

const { beginScheduledReportRun, failScheduledReportRun, failReport } = proxyActivities<ReportActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 10 },
});
// Content the renderer refuses fails at once (a non-retryable ContentError); what is retried is
// transient: the database, or the tenant over its share of the worker's content sandbox (TenantBusy,
// after 2-60 s), which a burst of one tenant's reports waits out within these attempts.
const { generateReportFile } = proxyActivities<ReportActivities>({
  startToCloseTimeout: '10 minutes',
  retry: { maximumAttempts: 8 },
});
const { emailScheduledReport } = proxyActivities<ReportActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 5, initialInterval: '10 seconds' },
});

export async function scheduledReportWorkflow(input: ScheduledReportInput): Promise<ScheduledReportResult> {
  // Workflow time: the firing's time, the same on replay.
  const at = new Date().toISOString();
  const run = await beginScheduledReportRun({ ...input, workflowId: workflowInfo().workflowId, at });
  if (!run) return { status: 'skipped' };
  const ref = { tenantId: input.tenantId, runId: run.runId };
  try {
    await generateReportFile({ tenantId: input.tenantId, reportId: run.reportId });
  } catch (err) {
    await failReport({ tenantId: input.tenantId, reportId: run.reportId });
    await failScheduledReportRun({ ...ref, stage: 'generation' });
    throw err;
  }
  try {
    const sent = await emailScheduledReport(ref);
    return { status: sent.status, runId: run.runId, reportId: run.reportId, sentTo: sent.sentTo };
  } catch (err) {
    await failScheduledReportRun({ ...ref, stage: 'email' });
    throw err;
  }
}
