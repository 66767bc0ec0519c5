/**
 * What email accounts and WhatsApp numbers share as channel records of agents, without HTTP: the
 * lookup, the list, a status change that moves their agents (docs/decisions/agent-status-follows-its-channel.md), and the
 * delete of a record no agent uses. services/email-accounts.ts and services/whatsapp-numbers.ts
 * add what each record does on its own.
 */
import { findOr404 } from '../db/find-or-404';
import { applyChannelStatusToAgents, countAgentsOnChannel } from '../db/queries/agents';
import { listQuery } from '../db/queries/list-query';
import { deleteRecord, recordById } from '../db/queries/records';
import { paginate, type Page, type PageRequest } from '../db/pagination';
import type { TenantScope } from '../db/tenant-scope';
import type { Unit } from '../db/unit-of-work';
import { CHANNEL_OF_TYPE, ChannelStatus, ChannelType } from '../domain/agents/agents';
import { AppError } from '../domain/errors';

/** How each channel record is named in errors and in the audit trail. */
const RECORD_OF_CHANNEL: Readonly<Record<ChannelType, { what: string; audit: string }>> = {
  email: { what: 'email account', audit: 'email_account' },
  whatsapp: { what: 'WhatsApp number', audit: 'whatsapp_number' },
};

/** The audit resource type of a channel's records (`email_account.updated`...). */
export const channelAuditType = (channel: ChannelType): string => RECORD_OF_CHANNEL[channel].audit;

/** The tenant's record of the channel, all its columns, or 404. */
export function requireChannelRecord<Row>(scope: TenantScope, channel: ChannelType, id: string): Promise<Row> {
  return findOr404(RECORD_OF_CHANNEL[channel].what, id, () => recordById<Row>(scope, CHANNEL_OF_TYPE[channel].table, id));
}

/** The tenant's records of the channel, oldest first, of one status when given. */
export function listChannelRecords<Row>(scope: TenantScope, channel: ChannelType, filter: { status?: ChannelStatus }, page: PageRequest): Promise<Page<Row>> {
  const q = listQuery(scope, CHANNEL_OF_TYPE[channel].table, ['*'], [{ column: 'created_at' }, { column: 'id' }]);
  if (filter.status !== undefined) q.where('status', filter.status);
  return paginate(q, page);
}

/** Applies a channel record's new status to its agents; emits `agent.status_changed` per agent moved. */
async function propagateChannelStatus(unit: Unit, channel: ChannelType, id: string, before: ChannelStatus, after: ChannelStatus): Promise<string[]> {
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
async function restoreAgentsAfterCredentialFix(unit: Unit, channel: ChannelType, id: string): Promise<string[]> {
  const moved = await applyChannelStatusToAgents(unit.scope, channel, id, 'active');
  for (const agentId of moved) unit.emit('agent.status_changed', { agent_id: agentId, status: 'active', reason: `${channel}_credentials_updated` });
  return moved;
}

/**
 * After a record's update: a status change moves its agents, and new credentials on a record that
 * stayed active end a credentials rejection. Answers the agents moved.
 */
export async function moveAgentsAfterChannelUpdate(
  unit: Unit,
  channel: ChannelType,
  before: { id: string; status: ChannelStatus },
  after: { status: ChannelStatus },
  newCredentials: boolean,
): Promise<string[]> {
  return [
    ...(await propagateChannelStatus(unit, channel, before.id, before.status, after.status)),
    ...(newCredentials && before.status === 'active' && after.status === 'active' ? await restoreAgentsAfterCredentialFix(unit, channel, before.id) : []),
  ];
}

/** Deletes a record no agent uses (409 while one does). */
export async function deleteChannelRecord(unit: Unit, channel: ChannelType, id: string): Promise<void> {
  const row = await requireChannelRecord<{ id: string }>(unit.scope, channel, id);
  const agents = await countAgentsOnChannel(unit.scope, channel, row.id);
  if (agents > 0) {
    throw new AppError('CONFLICT', `${agents} agent(s) use this ${RECORD_OF_CHANNEL[channel].what}; delete or move them first`, { agents });
  }
  await deleteRecord(unit.scope, CHANNEL_OF_TYPE[channel].table, row.id);
  unit.audit({ action: `${channelAuditType(channel)}.deleted`, resourceType: channelAuditType(channel), resourceId: row.id });
}
