/**
 * Workflow ids are business keys (DESIGN.md): a duplicate start is refused by Temporal, and an
 * operator finds a resource's workflow in the UI by typing its id. They carry ids, never
 * personal data.
 */
import { withoutTrailingSlashes } from '../domain/urls';

export const workflowIds = {
  notification: (tenantId: string, notificationId: string) => `notification/${tenantId}/${notificationId}`,
  maintenancePlan: (tenantId: string, planId: string) => `maintenance-plan/${tenantId}/${planId}`,
  webhookDelivery: (tenantId: string, deliveryId: string) => `webhook-delivery/${tenantId}/${deliveryId}`,
  machineAgent: (tenantId: string, agentId: string, assetKey: string) => `machine-agent/${tenantId}/${agentId}/${assetKey}`,
  privacyExport: (tenantId: string, exportId: string) => `privacy-export/${tenantId}/${exportId}`,
  conversation: (tenantId: string, conversationId: string) => `conversation/${tenantId}/${conversationId}`,
  privacyErasure: (tenantId: string, erasureId: string) => `privacy-erasure/${tenantId}/${erasureId}`,
  extraction: (tenantId: string, extractionId: string) => `extraction/${tenantId}/${extractionId}`,
  report: (tenantId: string, reportId: string) => `report/${tenantId}/${reportId}`,
  /** The Schedule's id, and the workflow id prefix of its runs (Temporal appends the scheduled time). */
  scheduledReport: (tenantId: string, scheduledReportId: string) => `scheduled-report/${tenantId}/${scheduledReportId}`,
} as const;

/**
 * Where the Temporal Web UI at `uiBase` (TEMPORAL_UI_URL) shows a workflow: its run's history when
 * the run is known, else the namespace's list filtered on the id (every run of it, the latest first).
 */
export function temporalUiUrl(uiBase: string, namespace: string, workflowId: string, runId?: string | null): string {
  const base = `${withoutTrailingSlashes(uiBase)}/namespaces/${encodeURIComponent(namespace)}/workflows`;
  if (runId) return `${base}/${encodeURIComponent(workflowId)}/${encodeURIComponent(runId)}/history`;
  return `${base}?query=${encodeURIComponent(`WorkflowId="${workflowId}"`)}`;
}
