/**
 * Client side of machine agents: the outbox dispatcher hands each batch of events here, and every
 * event that an active machine agent of its tenant listens to is signalled, with signal-with-start,
 * to that agent's workflow for the event's asset (workflows/machine-agent.ts). Events of one
 * workflow are signalled in order; different workflows in parallel.
 */
import type { Client } from '@temporalio/client';
import { Queryable } from '../db/knex';
import { MachineAgentSignal, MachineAgentTrigger, planMachineAgentSignals, TriggeringEvent } from '../domain/agents/machine-agent';
import { resourceSearchAttributes } from '../infra/search-attributes';
import { TASK_QUEUES } from '../infra/task-queues';
import { workflowIds } from '../infra/workflow-ids';
import { machineEventSignal, type machineAgentWorkflow } from '../workflows/machine-agent';

const SIGNAL_CONCURRENCY = 16;

export async function signalMachineAgent(client: Client, signal: MachineAgentSignal): Promise<void> {
  await client.workflow.signalWithStart<typeof machineAgentWorkflow, [{ eventId: string }]>('machineAgentWorkflow', {
    taskQueue: TASK_QUEUES.main,
    workflowId: workflowIds.machineAgent(signal.tenantId, signal.agentId, signal.assetKey),
    args: [{ tenantId: signal.tenantId, agentId: signal.agentId, assetKey: signal.assetKey }],
    signal: machineEventSignal,
    signalArgs: [{ eventId: signal.eventId }],
    typedSearchAttributes: resourceSearchAttributes(signal.tenantId, signal.agentId),
  });
}

/** Signals the machine agents a batch of outbox events triggers; returns the number of signals. */
export async function signalMachineAgents(db: Queryable, client: Client, events: readonly TriggeringEvent[]): Promise<number> {
  if (events.length === 0) return 0;
  const agents: MachineAgentTrigger[] = await db('agents')
    .whereIn('tenant_id', [...new Set(events.map((e) => e.tenant_id))])
    .where({ type: 'machine', status: 'active' })
    .select('id', 'tenant_id', 'trigger_config', 'created_at');
  const signals = planMachineAgentSignals(events, agents);
  const byWorkflow = new Map<string, MachineAgentSignal[]>();
  for (const s of signals) {
    const id = workflowIds.machineAgent(s.tenantId, s.agentId, s.assetKey);
    byWorkflow.set(id, [...(byWorkflow.get(id) ?? []), s]);
  }
  const queues = [...byWorkflow.values()];
  let next = 0;
  const lanes = Array.from({ length: Math.min(SIGNAL_CONCURRENCY, queues.length) }, async () => {
    while (next < queues.length) {
      for (const s of queues[next++]) await signalMachineAgent(client, s);
    }
  });
  await Promise.all(lanes);
  return signals.length;
}
