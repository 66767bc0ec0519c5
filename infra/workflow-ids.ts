/**
 * Workflow ids are business keys (DESIGN.md): a duplicate start is refused by Temporal, and an
 * operator finds a resource's workflow in the UI by typing its id. They carry ids, never
 * personal data.
 */
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
