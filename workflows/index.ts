// Entry of the worker's workflow bundle: every workflow type the worker runs.
export { notificationWorkflow } from './notification';
export { webhookDeliveryWorkflow, webhookDeliveryWorkflowV2, webhookDeliveryWorkflowV3 } from './webhook-delivery';
export { webhookDeliveryRetentionWorkflow, webhookSuccessRateCheckWorkflow } from './webhook-maintenance';
export { maintenancePlanWorkflow } from './maintenance-plan';
export { machineAgentWorkflow } from './machine-agent';
export { privacyExportWorkflow } from './privacy-export';
export { privacyErasureWorkflow } from './privacy-erasure';
export { retentionSweepWorkflow } from './retention-sweep';
export { reportWorkflow } from './report';
export { scheduledReportWorkflow } from './scheduled-report';
export { conversationWorkflow } from './conversation';
export { extractionWorkflow } from './extraction';
