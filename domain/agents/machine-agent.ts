/**
 * Machine agents (issue 7; SPEC.md, Machine agent triggers): which agents an outbox event
 * triggers, the key of their cooldown, and the built-in engine's reply. Pure: imported by the
 * outbox dispatcher and the worker's activities.
 */
import type { TriggerConfig } from './agents';
import { listsEventType } from '../events/catalogue';
import type { ChatMessage } from '../llm/provider';
import { isUuid } from '../ids';

/** The cooldown key of events that name no asset: one cooldown per agent for all of them. */
export const NO_ASSET = 'none';

export interface TriggeringEvent {
  id: string;
  tenant_id: string;
  type: string;
  data: unknown;
  created_at: Date;
}

export interface MachineAgentTrigger {
  id: string;
  tenant_id: string;
  trigger_config: TriggerConfig;
  created_at: Date;
}

/** One event for one agent's (asset) workflow. */
export interface MachineAgentSignal {
  tenantId: string;
  agentId: string;
  assetKey: string;
  eventId: string;
}

/** The asset an event is about (`data.asset_id`), or NO_ASSET. */
export function assetKeyOf(data: unknown): string {
  const id = typeof data === 'object' && data !== null ? (data as Record<string, unknown>).asset_id : undefined;
  return isUuid(id) ? id.toLowerCase() : NO_ASSET;
}

/**
 * Each event to every active machine agent of its tenant that lists its type and existed when
 * the event was stored (an agent created later does not act on older events). In event order.
 */
export function planMachineAgentSignals(events: readonly TriggeringEvent[], agents: readonly MachineAgentTrigger[]): MachineAgentSignal[] {
  return events.flatMap((event) =>
    agents
      .filter((a) => a.tenant_id === event.tenant_id && a.created_at <= event.created_at && listsEventType(a.trigger_config.event_types, event.type))
      .map((a) => ({ tenantId: event.tenant_id, agentId: a.id, assetKey: assetKeyOf(event.data), eventId: event.id })),
  );
}

/** Scalar fields of the event worth quoting: numbers, booleans and short identifiers (never free text). */
function quotableFields(data: unknown): string[] {
  if (typeof data !== 'object' || data === null) return [];
  return Object.entries(data as Record<string, unknown>)
    .filter(([key, v]) => key !== 'asset_id' && (typeof v === 'number' || typeof v === 'boolean' || (typeof v === 'string' && /^[\w.:-]{1,64}$/.test(v))))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, v]) => `${key}=${String(v)}`);
}

/** The built-in engine's account of a run: what happened and what the agent did, from the event alone. */
export function machineAgentReply(input: { agentName: string; eventType: string; assetKey: string; data: unknown; notified: boolean }): string {
  const where = input.assetKey === NO_ASSET ? 'with no asset' : `on asset ${input.assetKey}`;
  const fields = quotableFields(input.data);
  const details = fields.length > 0 ? ` (${fields.join(', ')})` : '';
  const action = input.notified ? "notified the tenant's administrators" : 'recorded the event (no administrator to notify)';
  return `[built-in engine] Event ${input.eventType} ${where}${details}. Agent "${input.agentName}" ${action}; further events of this asset wait for the cooldown.`;
}

/** Longest reply a model may write for a run (it becomes a notification body). */
export const MAX_MODEL_REPLY_LENGTH = 4_000;

/**
 * What the configured language model is asked for a run: the agent's own system prompt, then the
 * event as the built-in engine sees it (type, asset, scalar fields only: no free text of the
 * event reaches the model), and the built-in account as a draft it may rewrite.
 */
export function machineAgentPrompt(input: { systemPrompt: string; agentName: string; eventType: string; assetKey: string; data: unknown; draft: string }): ChatMessage[] {
  const fields = quotableFields(input.data);
  return [
    {
      role: 'system',
      content:
        `${input.systemPrompt}\n\nYou are the machine agent "${input.agentName}". Write a short account (at most a few sentences) for the ` +
        `plant's staff of what this event means and what to check. A draft answer: ${input.draft}`,
    },
    {
      role: 'user',
      content: `Event ${input.eventType} ${input.assetKey === NO_ASSET ? 'with no asset' : `on asset ${input.assetKey}`}${fields.length > 0 ? `: ${fields.join(', ')}` : ''}.`,
    },
  ];
}
