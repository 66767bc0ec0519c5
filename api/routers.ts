import { ApiRouter } from './route';
import { assetRoutes } from './routes/assets';
import { auditRoutes } from './routes/audit';
import { authRoutes } from './routes/auth';
import { dashboardRoutes } from './routes/dashboard';
import { internalRoutes } from './routes/internal';
import { machineRoutes } from './routes/machine';
import { predictiveConfigRoutes } from './routes/predictive-config';
import { webhookRoutes } from './routes/webhooks';

/** Every feature router of the API. A new prefix is added here and nowhere else. */
export function featureRouters(): ApiRouter[] {
  return [authRoutes(), auditRoutes(), internalRoutes(), assetRoutes(), webhookRoutes(), machineRoutes(), predictiveConfigRoutes(), dashboardRoutes()];
}
