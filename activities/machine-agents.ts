/**
 * The machine agent's one activity with effects: record what the agent did for one event (the
 * reply, and a notification to the tenant's admins), in one transaction, then
 * start the notification's workflow. Idempotent: a redispatched event finds its run and does
 * nothing more; a retry after the commit finds the run too, and the notification is also started
 * by the worker's reconciler for rows left queued. The reply is written by the configured language
 * model with the agent's system prompt, model and temperature, before the transaction (no row lock
 * is held across an HTTP call); without a model, for an agent whose model is `built-in`, or when
 * the model fails, the built-in engine writes it, and the run's `engine` says which.
 */
import { Context } from '@temporalio/activity';
import { Knex } from 'knex';
import { Db } from '../db/knex';
import { createCorrectiveTask } from '../db/queries/corrective-tasks';
import { insertNotification } from '../db/notifications';
import { insertMachineAgentRun } from '../db/queries/machine-agent-runs';
import { tenantAdminEmails } from '../db/queries/webhooks';
import { TriggerConfig } from '../domain/agents/agents';
import { MAX_MODEL_REPLY_LENGTH, machineAgentPrompt, machineAgentReply, NO_ASSET } from '../domain/agents/machine-agent';
import type { LlmProvider } from '../domain/llm/provider';
import { tenantAllowsModel } from '../db/plan-limits';
import { BUILT_IN_MODEL, DEFAULT_PLAN_MODELS, type PlanModels } from '../domain/tenancy/plans';
import { TenantCapacityError } from '../infra/tenant-limiter';
import { isTaskEvent, listsEventType } from '../domain/events/catalogue';

export interface MachineAgentEventRef {
  tenantId: string;
  agentId: string;
  assetKey: string;
  eventId: string;
}

/** What the workflow does next: cool down after a run, or take the next event at once. */
export type MachineAgentOutcome =
  | { kind: 'ran'; runId: string; cooldownMinutes: number; notified: boolean }
  | { kind: 'skipped'; reason: 'agent_not_active' | 'event_not_found' | 'event_type_not_listed' | 'already_ran' };

type Recorded = { kind: 'ran'; runId: string; cooldownMinutes: number; notificationId: string | null } | Extract<MachineAgentOutcome, { kind: 'skipped' }>;

interface MachineAgentRow {
  name: string;
  status: string;
  trigger_config: TriggerConfig;
  tools: string[];
}

/**
 * A corrective task for the event's asset when the agent has the built-in
 * `create_maintenance_task` tool and the asset exists. Events about tasks themselves never open
 * one (an agent listening to `task.created` would otherwise feed itself).
 */
async function openCorrectiveTask(tx: Knex.Transaction, ref: MachineAgentEventRef, agent: MachineAgentRow, eventType: string): Promise<{ id: string; task_code: string } | null> {
  if (ref.assetKey === NO_ASSET || isTaskEvent(eventType) || (agent.tools ?? []).length === 0) return null;
  const tool = await tx('tools').where({ tenant_id: ref.tenantId, kind: 'built_in', builtin: 'create_maintenance_task' }).whereIn('id', agent.tools).first('id');
  if (!tool) return null;
  const asset = await tx('assets').where({ tenant_id: ref.tenantId, id: ref.assetKey }).first('id', 'name');
  if (!asset) return null;
  return createCorrectiveTask(tx, {
    tenantId: ref.tenantId,
    assetId: asset.id,
    title: `Corrective: ${eventType} on ${asset.name}`,
    priority: 'high',
    dueAt: new Date(),
    createdBy: 'machine_agent',
    agentId: ref.agentId,
  });
}

export interface MachineAgentActivityDeps {
  db: Db;
  startNotification(tenantId: string, notificationId: string): Promise<void>;
  /** The configured language model; null: the built-in engine writes every reply. */
  llm: LlmProvider | null;
  /** The models agents may use per plan (default: domain/tenancy/plans.ts): another model is not called, the built-in engine writes the run. */
  planModels?: PlanModels;
}

export function createMachineAgentActivities(deps: MachineAgentActivityDeps) {
  const { db } = deps;

  /** The model's reply for this run, or null when the built-in engine writes it. */
  async function modelReply(ref: MachineAgentEventRef): Promise<string | null> {
    if (!deps.llm) return null;
    const agent = await db('agents').where({ tenant_id: ref.tenantId, id: ref.agentId, type: 'machine', status: 'active' }).first('name', 'system_prompt', 'model', 'temperature');
    if (!agent || agent.model === BUILT_IN_MODEL) return null;
    // Saved under another plan or list: the platform's key does not pay for a model the plan lacks.
    if (!(await tenantAllowsModel(db, ref.tenantId, deps.planModels ?? DEFAULT_PLAN_MODELS, agent.model))) return null;
    // A retry after the run was recorded asks nothing again.
    if (await db('machine_agent_runs').where({ tenant_id: ref.tenantId, agent_id: ref.agentId, event_id: ref.eventId }).first('id')) return null;
    const event = await db('outbox_events').where({ tenant_id: ref.tenantId, id: ref.eventId }).first('type', 'data');
    if (!event) return null;
    const draft = machineAgentReply({ agentName: agent.name, eventType: event.type, assetKey: ref.assetKey, data: event.data, notified: true });
    try {
      const answer = await deps.llm.complete({
        tenantId: ref.tenantId,
        model: agent.model,
        temperature: Number(agent.temperature),
        messages: machineAgentPrompt({ systemPrompt: agent.system_prompt, agentName: agent.name, eventType: event.type, assetKey: ref.assetKey, data: event.data, draft }),
      });
      const text = answer.text.trim();
      return text ? text.slice(0, MAX_MODEL_REPLY_LENGTH) : null;
    } catch (err) {
      if (err instanceof TenantCapacityError) throw err; // retried later (TenantBusy): the tenant has its share of the model's calls
      Context.current().log.warn('language model failed; the built-in engine writes the run', { error: (err as Error).message });
      return null;
    }
  }

  return {
    async runMachineAgent(ref: MachineAgentEventRef): Promise<MachineAgentOutcome> {
      const written = await modelReply(ref);
      const recorded = await db.transaction(async (tx): Promise<Recorded> => {
        const agent: MachineAgentRow | undefined = await tx('agents')
          .where({ tenant_id: ref.tenantId, id: ref.agentId, type: 'machine' })
          .first('name', 'status', 'trigger_config', 'tools');
        if (!agent || agent.status !== 'active') return { kind: 'skipped', reason: 'agent_not_active' };
        const event: { type: string; data: unknown } | undefined = await tx('outbox_events').where({ tenant_id: ref.tenantId, id: ref.eventId }).first('type', 'data');
        if (!event) return { kind: 'skipped', reason: 'event_not_found' };
        // The agent's trigger may have changed since the event was dispatched.
        if (!listsEventType(agent.trigger_config.event_types, event.type)) return { kind: 'skipped', reason: 'event_type_not_listed' };

        const recipients = await tenantAdminEmails(tx, ref.tenantId);
        const notified = recipients.length > 0;
        const replyText = written ?? machineAgentReply({ agentName: agent.name, eventType: event.type, assetKey: ref.assetKey, data: event.data, notified });
        const run = await insertMachineAgentRun(tx, {
          engine: written ? 'openai-compatible' : 'built-in',
          tenantId: ref.tenantId,
          agentId: ref.agentId,
          assetId: ref.assetKey === NO_ASSET ? null : ref.assetKey,
          eventId: ref.eventId,
          eventType: event.type,
          action: notified ? 'notified' : 'recorded',
          replyText,
        });
        if (!run) return { kind: 'skipped', reason: 'already_ran' };
        const cooldownMinutes = agent.trigger_config.cooldown_minutes;
        // While this is set the dispatcher counts this (agent, asset)'s events instead of signalling them.
        if (cooldownMinutes > 0)
          await tx('machine_agent_runs')
            .where({ id: run.id })
            .update({ cooldown_until: tx.raw('now() + make_interval(mins => ?)', [cooldownMinutes]) });
        // In the run's transaction: a retried activity finds the run above and creates nothing.
        const task = await openCorrectiveTask(tx, ref, agent, event.type);
        const runText = task ? `${replyText} Opened corrective task ${task.task_code}.` : replyText;
        if (task) await tx('machine_agent_runs').where({ id: run.id }).update({ task_id: task.id, reply_text: runText });
        let notificationId: string | null = null;
        if (notified) {
          ({ id: notificationId } = await insertNotification(tx, {
            tenantId: ref.tenantId,
            category: 'machine_agent.run',
            recipients,
            subject: `Machine agent "${agent.name}": ${event.type}`,
            body: runText,
            idempotencyKey: `machine-agent-run:${run.id}`,
          }));
          await tx('machine_agent_runs').where({ id: run.id }).update({ notification_id: notificationId });
        }
        return { kind: 'ran', runId: run.id, cooldownMinutes, notificationId };
      });
      if (recorded.kind !== 'ran') return recorded;
      if (recorded.notificationId) await deps.startNotification(ref.tenantId, recorded.notificationId);
      return { kind: 'ran', runId: recorded.runId, cooldownMinutes: recorded.cooldownMinutes, notified: recorded.notificationId !== null };
    },

    /** Sets the number of events a run's cooldown held back (a set, so a retry is harmless). */
    /**
     * The run's cooldown is over: its suppressed count is the events signalled during it plus those
     * the dispatcher counted without a signal, and the dispatcher signals this (agent, asset) again.
     * Idempotent: a retry writes the same values.
     */
    async recordSuppressedEvents(input: { tenantId: string; runId: string; count: number }): Promise<void> {
      await db('machine_agent_runs')
        .where({ tenant_id: input.tenantId, id: input.runId })
        .update({ suppressed_events: db.raw('suppressed_unsignalled + ?', [input.count]), cooldown_until: null });
    },
  };
}

export type MachineAgentActivities = ReturnType<typeof createMachineAgentActivities>;
