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
import { metaRoutes } from './routes/meta';

/**
 * The API's version: `info.version` of the OpenAPI document. A change that breaks existing clients
 * raises it, with a CHANGELOG.md section of that version (docs/DEVELOPING.md, "The OpenAPI document").
 */
export const API_VERSION = '2.0.0';

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

/** Every router of the API in registration order: the features, then the service routes (whose document covers them all). */
export function apiRouters(): ApiRouter[] {
  const routers = featureRouters();
  routers.push(...metaRoutes(() => routers.flatMap((r) => r.routes), API_VERSION));
  return routers;
}
