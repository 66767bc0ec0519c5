/**
 * What email accounts and WhatsApp numbers share as channel records of agents: a status
 * change moves their agents (DECISIONS.md, Agents), and a record in use cannot be deleted.
 */
import { applyChannelStatusToAgents, countAgentsOnChannel } from '../../db/queries/agents';
import { ChannelStatus, ChannelType } from '../../domain/agents/agents';
import { AppError } from '../../domain/errors';
import { MutationUnit } from '../mutation';

/** Applies a channel record's new status to its agents; emits `agent.status_changed` per agent moved. */
export async function propagateChannelStatus(unit: MutationUnit, channel: ChannelType, id: string, before: ChannelStatus, after: ChannelStatus): Promise<string[]> {
  if (before === after) return [];
  const moved = await applyChannelStatusToAgents(unit.scope, channel, id, after);
  const status = after === 'inactive' ? 'error' : 'active';
  for (const agentId of moved) unit.emit('agent.status_changed', { agent_id: agentId, status, reason: `${channel}_channel_${after}` });
  return moved;
}

/**
 * A channel record that stayed active got new credentials (access token, SMTP settings): agents
 * the provider's credentials rejection put in `error` go back to `active`. Emits
 * `agent.status_changed` per agent moved.
 */
export async function restoreAgentsAfterCredentialFix(unit: MutationUnit, channel: ChannelType, id: string): Promise<string[]> {
  const moved = await applyChannelStatusToAgents(unit.scope, channel, id, 'active');
  for (const agentId of moved) unit.emit('agent.status_changed', { agent_id: agentId, status: 'active', reason: `${channel}_credentials_updated` });
  return moved;
}

export async function refuseDeleteInUse(unit: MutationUnit, channel: ChannelType, id: string): Promise<void> {
  const agents = await countAgentsOnChannel(unit.scope, channel, id);
  if (agents > 0) {
    throw new AppError('CONFLICT', `${agents} agent(s) use this ${channel === 'email' ? 'email account' : 'WhatsApp number'}; delete or move them first`, { agents });
  }
}
