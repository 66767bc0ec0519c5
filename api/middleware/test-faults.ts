import type { Middleware } from 'koa';
import { fireFault, isFaultKind } from '../../infra/test-faults';
import type { AppState } from '../context';

/**
 * The test stack's fault trigger (config.testFaults.requestHeader, APP_ENV=test only; not mounted
 * anywhere else): once the request has been answered, the fault its `X-Test-Fault` header names
 * fires inside its context (request id, tenant), as a parser's stray callback would.
 */
export const testFaultHeader: Middleware<AppState> = async (ctx, next) => {
  await next();
  const kind = ctx.get('X-Test-Fault');
  if (isFaultKind(kind)) fireFault(kind);
};
