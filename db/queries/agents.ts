/** Storage of agents and their channels (issue 7). Every query goes through a TenantScope. */
import { agentStatusAfterChannelChange, AgentStatus, AgentType, CHANNEL_OF_TYPE, ChannelStatus, ChannelType, TriggerConfig } from '../../domain/agents/agents';
import type { Knex } from 'knex';
import { TenantScope } from '../tenant-scope';

export interface AgentRow {
  id: string;
  name: string;
  type: AgentType;
  system_prompt: string;
  model: string;
  temperature: number;
  tools: string[];
  whatsapp_number_id: string | null;
  email_account_id: string | null;
  trigger_config: TriggerConfig | null;
  status: AgentStatus;
  created_at: Date;
  updated_at: Date;
}

export const AGENT_COLUMNS = [
  'id',
  'name',
  'type',
  'system_prompt',
  'model',
  'temperature',
  'tools',
  'whatsapp_number_id',
  'email_account_id',
  'trigger_config',
  'status',
  'created_at',
  'updated_at',
] as const;

export async function findAgent(scope: TenantScope, id: string, type?: AgentType): Promise<AgentRow | undefined> {
  const q = scope
    .table('agents')
    .where('id', id)
    .first([...AGENT_COLUMNS]);
  if (type) q.where('type', type);
  return q;
}

/** The tenant's agents, oldest first, of one type and status when given. */
export function agentListQuery(scope: TenantScope, filter: { type?: AgentType; status?: string }): Knex.QueryBuilder {
  const q = scope
    .table('agents')
    .select([...AGENT_COLUMNS])
    .orderBy([{ column: 'created_at' }, { column: 'id' }]);
  if (filter.type) q.where('type', filter.type);
  if (filter.status) q.where('status', filter.status);
  return q;
}

/** Takes a deleted tool out of every agent's list; answers the agents changed. */
export async function removeToolFromAgents(scope: TenantScope, toolId: string): Promise<string[]> {
  const agents: { id: string }[] = await scope
    .table('agents')
    .whereRaw('? = any(tools)', [toolId])
    .update({ tools: scope.db.raw('array_remove(tools, ?::uuid)', [toolId]), updated_at: new Date() })
    .returning('id');
  return agents.map((a) => a.id);
}

/** Status of a tenant's channel record, or undefined when the tenant has no such record. */
export async function channelStatus(scope: TenantScope, channel: ChannelType, id: string): Promise<ChannelStatus | undefined> {
  const row = await scope.table(CHANNEL_OF_TYPE[channel].table).where('id', id).first('status');
  return row?.status;
}

/** Ids among `ids` that are not tools of the tenant. */
export async function unknownToolIds(scope: TenantScope, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const found = await scope.table('tools').whereIn('id', ids).pluck('id');
  const known = new Set<string>(found);
  return ids.filter((id) => !known.has(id));
}

/**
 * Moves the agents of one channel record after the record's status changed (docs/decisions/agent-status-follows-its-channel.md). Returns the ids of the agents moved.
 */
export async function applyChannelStatusToAgents(scope: TenantScope, channel: ChannelType, channelId: string, channelStatusNow: ChannelStatus): Promise<string[]> {
  const { from, to } = agentStatusAfterChannelChange(channelStatusNow);
  return scope
    .table('agents')
    .where({ [CHANNEL_OF_TYPE[channel].column]: channelId, status: from })
    .update({ status: to, updated_at: new Date() })
    .returning('id')
    .then((rows: { id: string }[]) => rows.map((r) => r.id));
}

/** Number of the tenant's agents that use a channel record (a record in use cannot be deleted). */
export async function countAgentsOnChannel(scope: TenantScope, channel: ChannelType, channelId: string): Promise<number> {
  const [{ count }] = await scope.table('agents').where(CHANNEL_OF_TYPE[channel].column, channelId).count({ count: '*' });
  return Number(count);
}
