/**
 * The row-level security scope of an activity (db/db-scope.ts), applied to every activity by a
 * worker interceptor (workers/options.ts): an activity whose input names its tenant
 * (`{ tenantId, ... }`, the convention of every tenant activity) sees and writes that tenant's rows
 * only, whatever its queries forget; the system jobs (outbox dispatch, retention sweeps, due-plan
 * and reconcile scans), whose input names none, keep the system scope.
 */
import type { ActivityExecuteInput, ActivityInboundCallsInterceptor, ActivityInterceptorsFactory, Next } from '@temporalio/worker';
import { runTenantScope } from '../db/db-scope';
import { isUuid } from '../domain/ids';

/** The tenant an activity's input names, if any. */
export function activityTenant(args: readonly unknown[]): string | null {
  const input = args[0];
  if (typeof input !== 'object' || input === null) return null;
  const tenantId = (input as { tenantId?: unknown }).tenantId;
  return typeof tenantId === 'string' && isUuid(tenantId) ? tenantId : null;
}

class TenantDbScope implements ActivityInboundCallsInterceptor {
  execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    const tenantId = activityTenant(input.args);
    return tenantId ? runTenantScope(tenantId, () => next(input)) : next(input);
  }
}

export const activityDbScope: ActivityInterceptorsFactory = () => ({ inbound: new TenantDbScope() });
