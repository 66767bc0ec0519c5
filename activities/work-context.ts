/**
 * The work context of every activity (infra/work-context.ts), applied by a worker interceptor
 * (workers/options.ts): a crash on an activity's path is logged with its workflow, run and
 * activity ids and its tenant when its input names one. Ids only.
 */
import { Context } from '@temporalio/activity';
import type { ActivityExecuteInput, ActivityInboundCallsInterceptor, ActivityInterceptorsFactory, Next } from '@temporalio/worker';
import { runWithWorkContext } from '../infra/work-context';
import { fireFault } from '../infra/test-faults';
import type { FaultKind } from '../infra/config';
import { activityTenant } from './db-scope';

class ActivityWorkContext implements ActivityInboundCallsInterceptor {
  execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    const { info } = Context.current();
    const tenantId = activityTenant(input.args);
    return runWithWorkContext(
      {
        // A standalone activity has no workflow.
        workflow_id: info.workflowExecution?.workflowId,
        run_id: info.workflowExecution?.runId,
        activity_id: info.activityId,
        activity_type: info.activityType,
        attempt: info.attempt,
        ...(tenantId ? { tenant_id: tenantId } : {}),
      },
      () => next(input),
    );
  }
}

export const activityWorkContext: ActivityInterceptorsFactory = () => ({ inbound: new ActivityWorkContext() });

/**
 * The test stack's fault (config.testFaults.activity, APP_ENV=test only): fired once, in the
 * context of the first activity of `type` this process runs, which then goes on as usual.
 */
export function activityTestFault(fault: { type: string; kind: FaultKind }): ActivityInterceptorsFactory {
  let fired = false;
  return () => ({
    inbound: {
      execute(input, next) {
        if (!fired && Context.current().info.activityType === fault.type) {
          fired = true;
          fireFault(fault.kind);
        }
        return next(input);
      },
    },
  });
}
