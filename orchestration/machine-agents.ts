/**
 * Client side of machine agents: the outbox dispatcher hands each batch of events here, and every
 * event that an active machine agent of its tenant listens to is signalled, with signal-with-start,
 * to that agent's workflow for the event's asset (workflows/machine-agent.ts). Events of one
 * workflow are signalled in order; different workflows in parallel.
 *
 * An (agent, asset) in its cooldown gets no signal at all: its events are counted on the run that
 * started the cooldown (`suppressed_unsignalled`), so a flapping sensor cannot grow the
 * workflow's history whatever its event rate (issue 23).
 */
import type { Client } from '@temporalio/client';
import { Queryable } from '../db/knex';
import { MachineAgentSignal, MachineAgentTrigger, NO_ASSET, planMachineAgentSignals, TriggeringEvent } from '../domain/agents/machine-agent';
import { resourceSearchAttributes } from '../infra/search-attributes';
import { tenantPriority } from '../infra/task-fairness';
import { TASK_QUEUES } from '../infra/task-queues';
import { workflowIds } from '../infra/workflow-ids';
import { machineEventSignal, type machineAgentWorkflow } from '../workflows/machine-agent';
import { mapSettled } from './concurrency';

const SIGNAL_CONCURRENCY = 16;

export async function signalMachineAgent(client: Client, signal: MachineAgentSignal): Promise<void> {
  await client.workflow.signalWithStart<typeof machineAgentWorkflow, [{ eventId: string }]>('machineAgentWorkflow', {
    taskQueue: TASK_QUEUES.main,
    workflowId: workflowIds.machineAgent(signal.tenantId, signal.agentId, signal.assetKey),
    args: [{ tenantId: signal.tenantId, agentId: signal.agentId, assetKey: signal.assetKey }],
    signal: machineEventSignal,
    signalArgs: [{ eventId: signal.eventId }],
    typedSearchAttributes: resourceSearchAttributes(signal.tenantId, signal.agentId),
    priority: tenantPriority(signal.tenantId),
  });
}

export interface MachineAgentSignalPlan {
  /** Signals to send, in event order. */
  signals: MachineAgentSignal[];
  /** Events counted instead of signalled, per run whose cooldown they fall in. */
  suppressedByRun: Map<string, number>;
}

/** Which agents a batch of events triggers, and which of those are cooling down. */
export async function planAgentSignals(db: Queryable, events: readonly TriggeringEvent[]): Promise<MachineAgentSignalPlan> {
  if (events.length === 0) return { signals: [], suppressedByRun: new Map() };
  const tenantIds = [...new Set(events.map((e) => e.tenant_id))];
  const agents: MachineAgentTrigger[] = await db('agents')
    .whereIn('tenant_id', tenantIds)
    .where({ type: 'machine', status: 'active' })
    .select('id', 'tenant_id', 'trigger_config', 'created_at');
  const planned = planMachineAgentSignals(events, agents);
  if (planned.length === 0) return { signals: [], suppressedByRun: new Map() };
  const cooling: Array<{ id: string; agent_id: string; asset_id: string | null }> = await db('machine_agent_runs')
    .distinctOn('agent_id', 'asset_id')
    .whereIn('tenant_id', tenantIds)
    .whereIn('agent_id', [...new Set(planned.map((s) => s.agentId))])
    .where('cooldown_until', '>', db.fn.now())
    .orderBy([{ column: 'agent_id' }, { column: 'asset_id' }, { column: 'created_at', order: 'desc' }])
    .select('id', 'agent_id', 'asset_id');
  const coolingRun = new Map(cooling.map((run) => [`${run.agent_id}/${run.asset_id ?? NO_ASSET}`, run.id]));
  const signals: MachineAgentSignal[] = [];
  const suppressedByRun = new Map<string, number>();
  for (const signal of planned) {
    const runId = coolingRun.get(`${signal.agentId}/${signal.assetKey}`);
    if (runId === undefined) signals.push(signal);
    else suppressedByRun.set(runId, (suppressedByRun.get(runId) ?? 0) + 1);
  }
  return { signals, suppressedByRun };
}

/** Adds the counted events to their runs (the dispatcher does it in its outbox transaction). */
export async function recordUnsignalledEvents(db: Queryable, suppressedByRun: ReadonlyMap<string, number>): Promise<void> {
  for (const [runId, count] of suppressedByRun) {
    await db('machine_agent_runs')
      .where({ id: runId })
      .update({ suppressed_unsignalled: db.raw('suppressed_unsignalled + ?', [count]), suppressed_events: db.raw('suppressed_events + ?', [count]) });
  }
}

/**
 * Sends the signals, each workflow's in event order, workflows in parallel. Returns the failure
 * of each event that could not be signalled; after a workflow's first failure its later events
 * are not sent (they fail with the same error), so an agent never sees them out of order.
 */
export async function sendAgentSignals(
  client: Client,
  signals: readonly MachineAgentSignal[],
  /** Wraps each call (the dispatcher gives each its own deadline). */
  eachCall: <T>(call: () => Promise<T>) => Promise<T> = (call) => call(),
): Promise<Map<string, unknown>> {
  const byWorkflow = new Map<string, MachineAgentSignal[]>();
  for (const s of signals) {
    const id = workflowIds.machineAgent(s.tenantId, s.agentId, s.assetKey);
    byWorkflow.set(id, [...(byWorkflow.get(id) ?? []), s]);
  }
  const failures = new Map<string, unknown>();
  await mapSettled([...byWorkflow.values()], SIGNAL_CONCURRENCY, async (queue) => {
    for (const [index, signal] of queue.entries()) {
      try {
        await eachCall(() => signalMachineAgent(client, signal));
      } catch (err) {
        for (const later of queue.slice(index)) failures.set(later.eventId, err);
        return;
      }
    }
  });
  return failures;
}

/** Plans, counts and signals a batch of events in one go (tests and tools); returns the signals sent. */
export async function signalMachineAgents(db: Queryable, client: Client, events: readonly TriggeringEvent[]): Promise<number> {
  const plan = await planAgentSignals(db, events);
  await recordUnsignalledEvents(db, plan.suppressedByRun);
  const failures = await sendAgentSignals(client, plan.signals);
  for (const failure of failures.values()) throw failure;
  return plan.signals.length;
}
