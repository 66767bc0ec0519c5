/**
 * Agent rules that are not tied to storage (issue 7; docs/decisions/agent-fields-and-channels.md). Pure: imported by
 * the API and, later, by workflows.
 */
import { BUILT_IN_MODEL } from '../tenancy/plans';
export const AGENT_TYPES = ['whatsapp', 'email', 'machine'] as const;
export type AgentType = (typeof AGENT_TYPES)[number];

export const AGENT_STATUSES = ['active', 'inactive', 'error'] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];

/** Statuses a person may set; `error` is the service's, set when the agent's channel fails. */
export const USER_SETTABLE_AGENT_STATUSES = ['active', 'inactive'] as const;

export const MAX_COOLDOWN_MINUTES = 10_080; // 7 days
/** The deterministic engine: on every plan, the default of a new agent. */
export const DEFAULT_MODEL = BUILT_IN_MODEL;
export const DEFAULT_TEMPERATURE = 0.2;

/** `<domain>.<event>`: lower-case words joined by dots, at least two of them (`task.created`). */
export const EVENT_TYPE_PATTERN = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;

export interface TriggerConfig {
  event_types: string[];
  cooldown_minutes: number;
}

/** The channel an agent of each type needs, and the agent column naming it. */
export const CHANNEL_OF_TYPE = {
  whatsapp: { column: 'whatsapp_number_id', table: 'whatsapp_numbers', resource: 'WHATSAPP_NUMBER' },
  email: { column: 'email_account_id', table: 'email_accounts', resource: 'EMAIL_ACCOUNT' },
} as const;
export type ChannelType = keyof typeof CHANNEL_OF_TYPE;
export type ChannelStatus = 'active' | 'inactive';

/**
 * Status transitions an agent takes when its channel changes status (docs/decisions/agent-status-follows-its-channel.md):
 * a channel going inactive moves its `active` agents to `error`; going active again moves its
 * `error` agents back to `active`. `inactive` agents (a person's choice) are left alone.
 */
export function agentStatusAfterChannelChange(channel: ChannelStatus): { from: AgentStatus; to: AgentStatus } {
  return channel === 'inactive' ? { from: 'active', to: 'error' } : { from: 'error', to: 'active' };
}
