/**
 * Reading conversations: `/api/v1/conversations` (filters agent_id, contact_id, channel,
 * status), one conversation, its messages, and `<agents prefix>/{agent_id}/conversations`.
 * Conversations outlive their agent (SPEC.md, Agents rule 3): after a DELETE they are still
 * listed here by `agent_id`.
 */
import Joi from '../../domain/joi';
import { temporalUnavailableResponse } from '../../orchestration/temporal-call';
import { ConversationRow, MESSAGE_COLUMNS, MessageRow } from '../../db/queries/conversations';
import { closeConversation, ConversationFilter, listAgentConversations, listConversations, requireConversation } from '../../services/conversations';
import { AgentType } from '../../domain/agents/agents';
import { tenantScopeOf, userOf } from '../context';
import { unitContextOf } from '../mutation';
import { pageQuery, pageOf } from '../pagination';
import { mapPage, PageRequest } from '../../db/pagination';
import { ApiRouter } from '../route';
import { agentParams } from '../resources/agent';
import { idRef } from '../validation';
import { resourceRoutes } from '../resource-routes';
import { isoTime } from '../../domain/time';

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
  delivery_status: Joi.string().valid('pending', 'sent', 'failed').allow(null).description('Outbound messages only'),
  no_reply_reason: Joi.string()
    .allow(null)
    .description(
      'Inbound messages only: why the agent did not answer it (spf_fail, dkim_fail, dmarc_fail, sender_unauthenticated, system_sender, auto_submitted, auto_reply_suppressed, bulk_precedence, mailing_list, contact_reply_limit); null when answered or awaiting its answer',
    ),
  sent_at: Joi.string().isoDate().allow(null),
  created_at: Joi.string().isoDate(),
});
const toolCallSchema = Joi.object({
  id: Joi.string(),
  conversation_id: Joi.string(),
  message_id: Joi.string().allow(null).description('The inbound message the call answered'),
  tool_id: Joi.string().allow(null),
  name: Joi.string(),
  arguments: Joi.object().unknown(true),
  result: Joi.object().unknown(true).allow(null),
  status: Joi.string().valid('succeeded', 'failed'),
  duration_ms: Joi.number().integer(),
  created_at: Joi.string().isoDate(),
});

const toConversation = (row: ConversationRow) => ({
  id: row.id,
  agent_id: row.agent_id,
  contact_id: row.contact_id,
  channel: row.channel,
  status: row.status,
  started_at: isoTime(row.started_at),
  closed_at: isoTime(row.closed_at),
});
const toMessage = (row: MessageRow) => ({
  id: row.id,
  conversation_id: row.conversation_id,
  direction: row.direction,
  body: row.body,
  delivery_status: row.delivery_status,
  no_reply_reason: row.no_reply_reason,
  sent_at: isoTime(row.sent_at),
  created_at: isoTime(row.created_at),
});
const TOOL_CALL_COLUMNS = ['id', 'conversation_id', 'message_id', 'tool_id', 'name', 'arguments', 'result', 'status', 'duration_ms', 'created_at'] as const;
const toToolCall = (row: Record<(typeof TOOL_CALL_COLUMNS)[number], any>) => ({ ...row, created_at: isoTime(row.created_at) });

const filterQuery = {
  ...pageQuery,
  contact_id: idRef,
  channel: Joi.string().valid(...CHANNELS),
  status: Joi.string().valid(...CONVERSATION_STATUSES),
};

/** `GET {agents prefix}/{agent_id}/conversations`, on every agents router. */
export function registerAgentConversationsRoute(api: ApiRouter, fixedType?: AgentType): void {
  api.route<{ agent_id: string }, PageRequest & ConversationFilter>({
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
      ctx.body = mapPage(await listAgentConversations(tenantScopeOf(ctx), params.agent_id, fixedType, query, query), toConversation);
    },
  });
}

export function conversationRoutes(): ApiRouter {
  const api = new ApiRouter('/api/v1/conversations');
  const tags = ['conversations'];
  const conversationParams = Joi.object({ conversation_id: idRef.required() });

  api.route<unknown, PageRequest & ConversationFilter>({
    method: 'get',
    path: '/',
    summary: 'List conversations, newest first; filter by agent (also a deleted one) or contact',
    tags,
    auth: 'user',
    permission: 'view_agents',
    query: Joi.object({ ...filterQuery, agent_id: idRef }),
    responses: { 200: { description: 'A page of conversations', schema: pageOf(conversationSchema) } },
    handler: async (ctx, { query }) => {
      ctx.body = mapPage(await listConversations(tenantScopeOf(ctx), query, query), toConversation);
    },
  });

  const conversation = resourceRoutes(api, {
    path: '/:conversation_id',
    tags,
    view: 'view_agents',
    schema: conversationSchema,
    find: requireConversation,
    present: toConversation,
  });
  conversation.get({ summary: 'Get a conversation', found: 'Conversation' });
  conversation.children({
    sub: 'messages',
    summary: "A conversation's messages, oldest first",
    found: 'A page of messages',
    item: messageSchema,
    table: 'messages',
    foreignKey: 'conversation_id',
    columns: MESSAGE_COLUMNS,
    orderBy: [{ column: 'created_at' }, { column: 'id' }],
    present: toMessage,
  });
  conversation.children({
    sub: 'tool-calls',
    summary: 'The tool calls the agent made in a conversation, oldest first',
    found: 'A page of tool calls',
    item: toolCallSchema,
    table: 'tool_calls',
    foreignKey: 'conversation_id',
    columns: TOOL_CALL_COLUMNS,
    orderBy: [{ column: 'created_at' }, { column: 'id' }],
    present: toToolCall,
  });

  api.route<{ conversation_id: string }>({
    method: 'post',
    path: '/:conversation_id/close',
    summary: 'Close an open conversation',
    description: 'Emits `conversation.closed`; the conversation workflow then sends the CSAT invitation when a survey applies. A closed conversation answers 409.',
    tags,
    auth: 'user',
    permission: 'manage_agents',
    params: conversationParams,
    responses: {
      200: { description: 'The closed conversation', schema: conversationSchema },
      404: { description: 'Not found' },
      409: { description: 'Already closed' },
      503: temporalUnavailableResponse('nothing changed'),
    },
    handler: async (ctx, { params }) => {
      const closed = await closeConversation(ctx.deps, unitContextOf(ctx, userOf(ctx).tenantId), params.conversation_id);
      ctx.body = toConversation(closed);
    },
  });

  return api;
}
