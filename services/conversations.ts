/**
 * Reading and closing conversations, without HTTP: reads take the tenant's scope, the close a unit
 * of work and Temporal. api/routes/conversations.ts is the HTTP face.
 */
import { findOr404 } from '../db/find-or-404';
import { findAgent } from '../db/queries/agents';
import { closeOpenConversation, ConversationFilter, conversationById, conversationListQuery, ConversationRow } from '../db/queries/conversations';
import { paginate, type Page, type PageRequest } from '../db/pagination';
import type { TenantScope } from '../db/tenant-scope';
import type { Unit } from '../db/unit-of-work';
import type { AgentType } from '../domain/agents/agents';
import { dependencyUnavailable, invalidState } from '../domain/errors';
import { errorSummary } from '../infra/error-chain';
import type { TemporalGateway } from '../infra/temporal';
import { signalConversationClose } from '../orchestration/conversations';

export type { ConversationFilter };

/** Newest first; conversations outlive their agent, so a deleted agent's are still listed by agent_id. */
export function listConversations(scope: TenantScope, filter: ConversationFilter, page: PageRequest): Promise<Page<ConversationRow>> {
  return paginate(conversationListQuery(scope, filter), page);
}

/** An agent's conversations (404 for an unknown agent, or one not of `type` on a typed agents router). */
export async function listAgentConversations(
  scope: TenantScope,
  agentId: string,
  type: AgentType | undefined,
  filter: ConversationFilter,
  page: PageRequest,
): Promise<Page<ConversationRow>> {
  const agent = await findOr404('agent', agentId, () => findAgent(scope, agentId, type));
  return listConversations(scope, { ...filter, agent_id: agent.id }, page);
}

export function requireConversation(scope: TenantScope, id: string): Promise<ConversationRow> {
  return findOr404('conversation', id, () => conversationById(scope, id));
}

/**
 * Closes an open conversation (409 when closed) and signals its workflow before the commit: if
 * the workflow cannot be told, nothing changes (503).
 */
export async function closeConversation(unit: Unit, temporal: TemporalGateway, id: string): Promise<ConversationRow> {
  const { tenantId } = unit.scope;
  const conversation = await requireConversation(unit.scope, id);
  const changed = await closeOpenConversation(unit.tx, { tenantId, conversationId: conversation.id, reason: 'closed_by_person', at: new Date(), source: 'api' });
  if (!changed) throw invalidState('the conversation is already closed');
  unit.audit({ action: 'conversation.closed', resourceType: 'conversation', resourceId: conversation.id, subjectId: conversation.contact_id });
  try {
    await signalConversationClose(await temporal.client(), { tenantId, conversationId: conversation.id });
  } catch (err) {
    throw dependencyUnavailable('temporal', `the conversation workflow could not be signalled: ${errorSummary(err)}`);
  }
  return requireConversation(unit.scope, conversation.id);
}
