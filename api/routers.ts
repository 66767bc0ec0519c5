import { ApiRouter } from './route';
import { agentRoutes, emailAgentRoutes, whatsappAgentRoutes } from './routes/agents';
import { assetRoutes } from './routes/assets';
import { auditRoutes } from './routes/audit';
import { authRoutes } from './routes/auth';
import { collectionRoutes } from './routes/collections';
import { conversationRoutes } from './routes/conversations';
import { csatRoutes } from './routes/csat';
import { dashboardRoutes } from './routes/dashboard';
import { emailAccountRoutes } from './routes/email-accounts';
import { extractionTemplateRoutes } from './routes/extraction-templates';
import { extractionRoutes } from './routes/extractions';
import { emailInboundRoutes } from './routes/email-inbound';
import { fileRoutes } from './routes/files';
import { internalRoutes } from './routes/internal';
import { machineRoutes } from './routes/machine';
import { maintenanceRoutes } from './routes/maintenance';
import { predictiveConfigRoutes } from './routes/predictive-config';
import { privacyRoutes } from './routes/privacy';
import { promptRoutes } from './routes/prompts';
import { toolRoutes } from './routes/tools';
import { webhookRoutes } from './routes/webhooks';
import { brandingRoutes } from './routes/brandings';
import { reportRoutes } from './routes/reports';
import { scheduledReportRoutes } from './routes/scheduled-reports';
import { whatsappNumberRoutes } from './routes/whatsapp-numbers';
import { whatsappWebhookRoutes } from './routes/whatsapp-webhook';

/** Every feature router of the API. A new prefix is added here and nowhere else. */
export function featureRouters(): ApiRouter[] {
  return [
    authRoutes(),
    auditRoutes(),
    internalRoutes(),
    assetRoutes(),
    webhookRoutes(),
    machineRoutes(),
    predictiveConfigRoutes(),
    dashboardRoutes(),
    maintenanceRoutes(),
    privacyRoutes(),
    // Agents: /email/accounts before /email, whose /:agent_id would otherwise take "accounts".
    agentRoutes(),
    emailAccountRoutes(),
    emailInboundRoutes(),
    emailAgentRoutes(),
    whatsappNumberRoutes(),
    whatsappAgentRoutes(),
    whatsappWebhookRoutes(),
    toolRoutes(),
    conversationRoutes(),
    promptRoutes(),
    fileRoutes(),
    collectionRoutes(),
    csatRoutes(),
    extractionTemplateRoutes(),
    extractionRoutes(),
    reportRoutes(),
    scheduledReportRoutes(),
    brandingRoutes(),
  ];
}
