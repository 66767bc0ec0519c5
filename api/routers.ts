import { ApiRouter } from './route';
import { assetRoutes } from './routes/assets';
import { auditRoutes } from './routes/audit';
import { authRoutes } from './routes/auth';
import { internalRoutes } from './routes/internal';

/** Every feature router of the API. A new prefix is added here and nowhere else. */
export function featureRouters(): ApiRouter[] {
  return [authRoutes(), auditRoutes(), internalRoutes(), assetRoutes()];
}
