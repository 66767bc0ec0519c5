/**
 * One machine agent watching one asset (`machine-agent/<tenant>/<agent>/<asset>`): events arrive
 * by signal-with-start from the outbox dispatcher. An event outside the cooldown runs the agent
 * (an activity records the run and starts its notification); the workflow then sleeps
 * `cooldown_minutes` on a timer, and every event arriving meanwhile is counted as suppressed, not
 * run. Idle after a cooldown, the workflow ends; the next event starts it again. History holds
 * event ids only.
 */
import { continueAsNew, defineQuery, defineSignal, patched, proxyActivities, setHandler, sleep, workflowInfo } from '@temporalio/workflow';
import type { MachineAgentActivities } from '../activities/machine-agents';

export interface MachineAgentWorkflowInput {
  tenantId: string;
  agentId: string;
  assetKey: string;
  /** Events carried over a continue-as-new. */
  pendingEventIds?: string[];
}

export interface MachineAgentState {
  runs: number;
  suppressed: number;
  coolingDown: boolean;
  pending: number;
}

/** Patch id: the end of every cooldown is recorded, not only one that suppressed a signal. */
const COOLDOWN_ENDS_IN_DATABASE = 'cooldown-ends-in-database';

export const machineEventSignal = defineSignal<[{ eventId: string }]>('machineEvent');
export const machineAgentStateQuery = defineQuery<MachineAgentState>('machineAgentState');

const { runMachineAgent, recordSuppressedEvents } = proxyActivities<MachineAgentActivities>({
  startToCloseTimeout: '1 minute',
  // Database outages are retried without end: an event is never dropped by a transient failure.
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

export async function machineAgentWorkflow(input: MachineAgentWorkflowInput): Promise<{ runs: number; suppressed: number }> {
  const pending: string[] = [...(input.pendingEventIds ?? [])];
  let coolingDown = false;
  let runs = 0;
  let suppressed = 0;
  let suppressedThisCooldown = 0;

  setHandler(machineEventSignal, ({ eventId }) => {
    if (coolingDown) {
      suppressed += 1;
      suppressedThisCooldown += 1;
    } else {
      pending.push(eventId);
    }
  });
  setHandler(machineAgentStateQuery, () => ({ runs, suppressed, coolingDown, pending: pending.length }));

  for (;;) {
    const eventId = pending.shift();
    if (eventId === undefined) return { runs, suppressed };
    const outcome = await runMachineAgent({ tenantId: input.tenantId, agentId: input.agentId, assetKey: input.assetKey, eventId });
    if (outcome.kind === 'ran') {
      runs += 1;
      if (outcome.cooldownMinutes > 0) {
        // Events that came in while the run was being recorded fall in its cooldown too.
        coolingDown = true;
        suppressedThisCooldown = pending.length;
        suppressed += pending.length;
        pending.length = 0;
        await sleep(outcome.cooldownMinutes * 60_000);
        coolingDown = false;
        // Always, since the dispatcher stops signalling during a cooldown: this call ends it in the
        // database too (runs recorded before that change only wrote a non-zero count).
        if (patched(COOLDOWN_ENDS_IN_DATABASE) || suppressedThisCooldown > 0) {
          await recordSuppressedEvents({ tenantId: input.tenantId, runId: outcome.runId, count: suppressedThisCooldown });
        }
        suppressedThisCooldown = 0;
      }
    }
    if (workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof machineAgentWorkflow>({ tenantId: input.tenantId, agentId: input.agentId, assetKey: input.assetKey, pendingEventIds: [...pending] });
    }
  }
}
