/**
 * Reading conversations: `/api/v1/conversations` (filters agent_id, contact_id, channel,
 * status), one conversation, its messages, and `<agents prefix>/{agent_id}/conversations`.
 * Conversations outlive their agent (SPEC.md, Agents rule 3): after a DELETE they are still
 * listed here by `agent_id`.
 */
import Joi from 'joi';
import { CONVERSATION_COLUMNS, ConversationRow, MESSAGE_COLUMNS, MessageRow } from '../../db/queries/conversations';
import { isUuid, tenantScope, TenantScope } from '../../db/tenant-scope';
import { AgentType } from '../../domain/agents/agents';
import { AppContext, userOf } from '../context';
import { notFound } from '../errors';
import { pageQuery, paginate, PageRequest } from '../pagination';
import { ApiRouter } from '../route';
import { agentParams, requireAgent } from './agent-resource';

const CHANNELS = ['whatsapp', 'email', 'machine'] as const;
const CONVERSATION_STATUSES = ['open', 'closed'] as const;

export const conversationSchema = Joi.object({
  id: Joi.string(),
  agent_id: Joi.string(),
  contact_id: Joi.string(),
  channel: Joi.string().valid(...CHANNELS),
  status: Joi.string().valid(...CONVERSATION_STATUSES),
  started_at: Joi.string().isoDate(),
  closed_at: Joi.string().isoDate().allow(null),
});
const messageSchema = Joi.object({
  id: Joi.string(),
  conversation_id: Joi.string(),
  direction: Joi.string().valid('inbound', 'outbound'),
  body: Joi.string().allow('').description('Redacted when the tenant turned pii.auto_redact on'),
  created_at: Joi.string().isoDate(),
});
const pageOf = (item: Joi.Schema) => Joi.object({ items: Joi.array().items(item), total: Joi.number(), skip: Joi.number(), limit: Joi.number() });

const toConversation = (row: ConversationRow) => ({
  id: row.id,
  agent_id: row.agent_id,
  contact_id: row.contact_id,
  channel: row.channel,
  status: row.status,
  started_at: new Date(row.started_at).toISOString(),
  closed_at: row.closed_at ? new Date(row.closed_at).toISOString() : null,
});
const toMessage = (row: MessageRow) => ({
  id: row.id,
  conversation_id: row.conversation_id,
  direction: row.direction,
  body: row.body,
  created_at: new Date(row.created_at).toISOString(),
});

interface ConversationFilters {
  agent_id?: string;
  contact_id?: string;
  channel?: string;
  status?: string;
}

const filterQuery = {
  ...pageQuery,
  contact_id: Joi.string().max(64),
  channel: Joi.string().valid(...CHANNELS),
  status: Joi.string().valid(...CONVERSATION_STATUSES),
};

/** Newest first. A filter id that is not a UUID matches nothing. */
async function listConversations(ctx: AppContext, filters: ConversationFilters, page: PageRequest): Promise<void> {
  const q = tenantScope(ctx.deps.db, userOf(ctx).tenantId)
    .table('conversations')
    .select([...CONVERSATION_COLUMNS])
    .orderBy([{ column: 'started_at', order: 'desc' }, { column: 'id' }]);
  for (const key of ['agent_id', 'contact_id'] as const) {
    const id = filters[key];
    if (id === undefined) continue;
    if (isUuid(id)) q.where(key, id);
    else q.whereRaw('false');
  }
  if (filters.channel) q.where('channel', filters.channel);
  if (filters.status) q.where('status', filters.status);
  ctx.body = await paginate(q, page, toConversation);
}

async function requireConversation(scope: TenantScope, id: string): Promise<ConversationRow> {
  const row = isUuid(id) ? await scope.table('conversations').where('id', id).first([...CONVERSATION_COLUMNS]) : undefined;
  if (!row) throw notFound('conversation');
  return row;
}

/** `GET {agents prefix}/{agent_id}/conversations`, on every agents router. */
export function registerAgentConversationsRoute(api: ApiRouter, fixedType?: AgentType): void {
  api.route<{ agent_id: string }, PageRequest & ConversationFilters>({
    method: 'get',
    path: '/:agent_id/conversations',
    summary: "List an agent's conversations, newest first",
    tags: ['conversations'],
    auth: 'user',
    permission: 'view_agents',
    params: agentParams,
    query: Joi.object(filterQuery),
    responses: { 200: { description: 'A page of conversations', schema: pageOf(conversationSchema) }, 404: { description: 'Agent not found' } },
    handler: async (ctx, { params, query }) => {
      const agent = await requireAgent(tenantScope(ctx.deps.db, userOf(ctx).tenantId), params.agent_id, fixedType);
      await listConversations(ctx, { ...query, agent_id: agent.id }, query);
    },
  });
}

export function conversationRoutes(): ApiRouter {
  const api = new ApiRouter('/api/v1/conversations');
  const tags = ['conversations'];
  const conversationParams = Joi.object({ conversation_id: Joi.string().max(64).required() });

  api.route<unknown, PageRequest & ConversationFilters>({
    method: 'get',
    path: '/',
    summary: 'List conversations, newest first; filter by agent (also a deleted one) or contact',
    tags,
    auth: 'user',
    permission: 'view_agents',
    query: Joi.object({ ...filterQuery, agent_id: Joi.string().max(64) }),
    responses: { 200: { description: 'A page of conversations', schema: pageOf(conversationSchema) } },
    handler: async (ctx, { query }) => listConversations(ctx, query, query),
  });

  api.route<{ conversation_id: string }>({
    method: 'get',
    path: '/:conversation_id',
    summary: 'Get a conversation',
    tags,
    auth: 'user',
    permission: 'view_agents',
    params: conversationParams,
    responses: { 200: { description: 'Conversation', schema: conversationSchema }, 404: { description: 'Not found' } },
    handler: async (ctx, { params }) => {
      ctx.body = toConversation(await requireConversation(tenantScope(ctx.deps.db, userOf(ctx).tenantId), params.conversation_id));
    },
  });

  api.route<{ conversation_id: string }, PageRequest>({
    method: 'get',
    path: '/:conversation_id/messages',
    summary: "A conversation's messages, oldest first",
    tags,
    auth: 'user',
    permission: 'view_agents',
    params: conversationParams,
    query: Joi.object(pageQuery),
    responses: { 200: { description: 'A page of messages', schema: pageOf(messageSchema) }, 404: { description: 'Not found' } },
    handler: async (ctx, { params, query }) => {
      const scope = tenantScope(ctx.deps.db, userOf(ctx).tenantId);
      const conversation = await requireConversation(scope, params.conversation_id);
      const q = scope
        .table('messages')
        .where('conversation_id', conversation.id)
        .select([...MESSAGE_COLUMNS])
        .orderBy([{ column: 'created_at' }, { column: 'id' }]);
      ctx.body = await paginate(q, query, toMessage);
    },
  });

  return api;
}
