/**
 * Reading and closing conversations, without HTTP: reads take the tenant's scope, the close a unit
 * of work and Temporal. api/routes/conversations.ts is the HTTP face.
 */
import { findOr404 } from '../db/find-or-404';
import { findAgent } from '../db/queries/agents';
import { closeOpenConversation, ConversationFilter, conversationById, conversationListQuery, ConversationRow } from '../db/queries/conversations';
import { paginate, type Page, type PageRequest } from '../db/pagination';
import type { Db } from '../db/knex';
import { tenantScope, type TenantScope } from '../db/tenant-scope';
import { runUnit, type UnitContext } from '../db/unit-of-work';
import type { AgentType } from '../domain/agents/agents';
import { invalidState } from '../domain/errors';
import type { TemporalGateway } from '../infra/temporal';
import { signalConversationClose } from '../orchestration/conversations';
import { callTemporal } from '../orchestration/temporal-call';

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
 * Closes an open conversation (409 when closed). Its workflow is told first, with the call deadline
 * and no transaction open (Temporal down or late: 503 and nothing changed); then the row is closed
 * in a short unit. The workflow closes the row itself on that signal, so the unit may find it
 * closed already: that is this request's close, not a conflict.
 */
export async function closeConversation(deps: { db: Db; temporal: TemporalGateway }, context: UnitContext, id: string): Promise<ConversationRow> {
  const { tenantId } = context;
  const conversation = await requireConversation(tenantScope(deps.db, tenantId), id);
  if (conversation.status !== 'open') throw invalidState('the conversation is already closed');
  await callTemporal(deps.temporal, 'the conversation workflow could not be signalled', (client) => signalConversationClose(client, { tenantId, conversationId: conversation.id }));
  return runUnit(deps.db, context, async (unit) => {
    await closeOpenConversation(unit.tx, { tenantId, conversationId: conversation.id, reason: 'closed_by_person', at: new Date(), source: 'api' });
    unit.audit({ action: 'conversation.closed', resourceType: 'conversation', resourceId: conversation.id, subjectId: conversation.contact_id });
    return requireConversation(unit.scope, conversation.id);
  });
}
