/**
 * The conversation workflow's activities (workflows/conversation.ts). Each is idempotent: an
 * answer is stored under `reply:<inbound id>` (or `ack:<inbound id>` for a CSAT score reply), the
 * survey under `survey:<conversation id>`, so a retry finds what a previous attempt wrote; a sent
 * message is not sent again.
 */
import { Db } from '../db/knex';
import { recordReplyScore, openSurveyInvitation } from '../db/queries/csat';
import { closeOpenConversation, outboundByKey, storeMessageBody } from '../db/queries/conversations';
import { tenantScope } from '../db/tenant-scope';
import { appendEvent } from '../db/outbox';
import { secretContexts } from '../domain/agents/channel-secrets';
import { CREDENTIAL_BINDINGS, unboundFields } from '../domain/credentials/destination-binding';
import { AgentTool, composeReply, planReply, ReplyPlan, ToolOutcome } from '../domain/agents/reply-engine';
import type { LlmProvider } from '../domain/llm/provider';
import { tenantAllowsModel } from '../db/plan-limits';
import { BUILT_IN_MODEL, DEFAULT_PLAN_MODELS, type PlanModels } from '../domain/tenancy/plans';
import { TenantCapacityError, tenantLimiter } from '../infra/tenant-limiter';
import { decryptSecret } from '../domain/credentials/encryption';
import { ChannelSendResult, sendEmail, sendWhatsappText } from './channel-delivery';
import { runToolCall } from './conversation-tools';
import { grantAutoReply } from '../db/queries/auto-replies';
import type { NoReplyReason } from '../domain/agents/auto-reply-policy';

export interface ConversationActivityDeps {
  db: Db;
  dataEncryptionKey: Buffer;
  whatsappApiBaseUrl: string;
  /** Development setting: SMTP hosts on private/loopback addresses. */
  allowPrivateDestinations: boolean;
  /** The configured language model; null: the built-in engine answers. */
  llm: LlmProvider | null;
  /** The models agents may use per plan (default: domain/tenancy/plans.ts): another model is not called, the built-in engine answers. */
  planModels?: PlanModels;
  /** One tenant's share of this process's sends through tenants' SMTP servers and of its agent HTTP tool calls (defaults 4 and 8). */
  smtpSendsPerTenant?: number;
  toolCallsPerTenant?: number;
  now?: () => Date;
}

/** Waiting for a share of SMTP sends or tool calls holds an activity slot: a short wait, then a retry later (TenantBusy). */
const TENANT_SHARE_WAIT_MS = 2_000;

export type AnswerOutcome =
  { kind: 'reply'; replyId: string } | { kind: 'score_recorded'; replyId: string } | { kind: 'skipped'; reason: 'message_not_found' | 'agent_not_active' | NoReplyReason };

export type DeliveryOutcome = 'sent' | 'failed' | 'credentials_rejected';

const SCORE_ACK = 'Thank you for your feedback!';

/**
 * The channel's stored credential was given for another destination than the record's (changed
 * behind the API's back): it is not sent, and the message fails saying why.
 */
const CREDENTIAL_MOVED: ChannelSendResult = { kind: 'rejected', reason: 'credential_destination_changed' };

type Channel = 'whatsapp' | 'email';

export function createConversationActivities(deps: ConversationActivityDeps) {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());
  const share = (pool: string, perTenant: number) => tenantLimiter(pool, { maxInFlight: perTenant, maxWaiting: perTenant, maxWaitMs: TENANT_SHARE_WAIT_MS });
  const smtpSends = share('smtp_sends', deps.smtpSendsPerTenant ?? 4);
  const toolCalls = share('tool_calls', deps.toolCallsPerTenant ?? 8);

  async function agentTools(tenantId: string, ids: string[]): Promise<AgentTool[]> {
    if (ids.length === 0) return [];
    const rows = await tenantScope(db, tenantId).table('tools').whereIn('id', ids).orderBy('name').select('id', 'name', 'kind', 'builtin', 'url', 'parameters');
    return rows as AgentTool[];
  }

  /** The reply text: the configured model writes it when the agent uses one, the built-in engine otherwise (and on failure). */
  async function replyText(
    tenantId: string,
    agent: { name: string; system_prompt: string; model: string; temperature: number },
    inbound: string,
    plan: ReplyPlan,
    outcome: ToolOutcome | null,
    tools: AgentTool[],
  ): Promise<string> {
    const builtIn = composeReply(plan, outcome, agent.name, tools);
    if (!deps.llm || agent.model === BUILT_IN_MODEL) return builtIn;
    // Saved under another plan or list: the platform's key does not pay for a model the plan lacks.
    if (!(await tenantAllowsModel(db, tenantId, deps.planModels ?? DEFAULT_PLAN_MODELS, agent.model))) return builtIn;
    try {
      const toolNote = outcome ? `Tool ${'call' in plan && plan.call ? plan.call.tool.name : ''} returned: ${JSON.stringify(outcome)}` : 'No tool was called.';
      const result = await deps.llm.complete({
        tenantId,
        model: agent.model,
        temperature: agent.temperature,
        messages: [
          { role: 'system', content: `${agent.system_prompt}\n\n${toolNote}\nA draft answer: ${builtIn}` },
          { role: 'user', content: inbound },
        ],
      });
      return result.text.trim() || builtIn;
    } catch (err) {
      if (err instanceof TenantCapacityError) throw err; // retried later (TenantBusy): the tenant has its share of the model's calls
      return builtIn;
    }
  }

  async function deliveryTarget(tenantId: string, messageId: string) {
    const scope = tenantScope(db, tenantId);
    const message = await scope.table('messages').where({ id: messageId, direction: 'outbound' }).first('id', 'conversation_id', 'body', 'delivery_status', 'created_at');
    if (!message) return null;
    const conversation = await scope.table('conversations').where({ id: message.conversation_id }).first('id', 'agent_id', 'contact_id', 'channel');
    const agent = await scope.table('agents').where({ id: conversation.agent_id }).first('id', 'status', 'whatsapp_number_id', 'email_account_id');
    const contact = await scope.table('contacts').where({ id: conversation.contact_id }).first('phone', 'email');
    return { scope, message, conversation, agent, contact };
  }

  async function sendThroughChannel(target: NonNullable<Awaited<ReturnType<typeof deliveryTarget>>>): Promise<ChannelSendResult> {
    const { scope, message, conversation, agent, contact } = target;
    const key = deps.dataEncryptionKey;
    if (conversation.channel === 'whatsapp') {
      const number = await scope
        .table('whatsapp_numbers')
        .where({ id: agent.whatsapp_number_id })
        .first('id', 'phone_number_id', 'access_token_encrypted', 'access_token_destination', 'status');
      if (!number || number.status !== 'active' || !contact.phone) return { kind: 'rejected', reason: 'channel_unavailable' };
      if (unboundFields(CREDENTIAL_BINDINGS.whatsappAccessToken, number).length > 0) return CREDENTIAL_MOVED;
      return sendWhatsappText({
        apiBaseUrl: deps.whatsappApiBaseUrl,
        phoneNumberId: number.phone_number_id,
        accessToken: decryptSecret(number.access_token_encrypted, key, secretContexts.whatsappAccessToken(number.id)),
        to: contact.phone,
        body: message.body,
      });
    }
    const account = await scope.table('email_accounts').where({ id: agent.email_account_id }).first();
    if (!account || account.status !== 'active' || !contact.email) return { kind: 'rejected', reason: 'channel_unavailable' };
    if (account.password_encrypted && unboundFields(CREDENTIAL_BINDINGS.emailPassword, account).length > 0) return CREDENTIAL_MOVED;
    // The inbound message this one follows: its Message-ID threads the reply.
    const inbound = await scope
      .table('messages')
      .where({ conversation_id: conversation.id, direction: 'inbound' })
      .where('created_at', '<=', message.created_at)
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .first('provider_message_id', 'subject');
    const domain = String(account.email_address).split('@')[1] ?? 'localhost';
    const subject = inbound?.subject ? (/^re:/i.test(inbound.subject) ? inbound.subject : `Re: ${inbound.subject}`) : 'Re: your message';
    const threadId = inbound?.provider_message_id && inbound.provider_message_id.startsWith('<') ? inbound.provider_message_id : undefined;
    return smtpSends.run(scope.tenantId, () =>
      sendEmail(
        {
          host: account.smtp_host,
          port: account.smtp_port,
          secure: account.smtp_secure,
          username: account.username,
          password: account.password_encrypted ? decryptSecret(account.password_encrypted, key, secretContexts.emailPassword(account.id)) : null,
        },
        deps.allowPrivateDestinations,
        {
          from: account.email_address,
          to: contact.email,
          subject,
          text: message.body,
          messageId: `<${message.id}@${domain}>`,
          ...(threadId ? { inReplyTo: threadId, references: [threadId] } : {}),
        },
      ),
    );
  }

  return {
    /**
     * Answers one inbound message: a CSAT score reply is recorded and acknowledged (not answered by
     * the agent); anything else goes to the agent's engine, its tool call runs and is logged, and
     * the reply is stored pending. Returns the id of the message to deliver. Not answered: a
     * message stored with a no-reply reason, and e-mail from a contact past its hourly replies.
     */
    async answerInboundMessage(input: { tenantId: string; conversationId: string; messageId: string }): Promise<AnswerOutcome> {
      const scope = tenantScope(db, input.tenantId);
      for (const [prefix, kind] of [
        ['reply', 'reply'],
        ['ack', 'score_recorded'],
      ] as const) {
        const existing = await outboundByKey(scope, `${prefix}:${input.messageId}`);
        if (existing) return { kind, replyId: existing.id };
      }
      const inbound = await scope
        .table('messages')
        .where({ id: input.messageId, conversation_id: input.conversationId, direction: 'inbound' })
        .first('id', 'body', 'no_reply_reason');
      if (!inbound) return { kind: 'skipped', reason: 'message_not_found' };
      // Automatic, bulk or unauthenticated mail (the reason was stored on arrival): no reply.
      if (inbound.no_reply_reason) return { kind: 'skipped', reason: inbound.no_reply_reason };
      const conversation = await scope.table('conversations').where({ id: input.conversationId }).first('agent_id', 'contact_id', 'channel');
      const channel = conversation.channel as Channel;
      const at = now();
      // E-mail replies per contact are limited, the stop for a loop with a machine that marks nothing.
      if (channel === 'email' && !(await grantAutoReply(db, { tenantId: input.tenantId, contactId: conversation.contact_id, messageId: inbound.id, at }))) {
        return { kind: 'skipped', reason: 'contact_reply_limit' };
      }

      // A score reply to a CSAT invitation: recorded and acknowledged in one transaction.
      const ack = await db.transaction(async (tx) => {
        const txScope = scope.within(tx);
        const score = await recordReplyScore(txScope, { contactId: conversation.contact_id, channel, body: inbound.body, now: at });
        if (!score) return null;
        return storeMessageBody(txScope, { conversationId: input.conversationId, direction: 'outbound', body: SCORE_ACK, idempotencyKey: `ack:${input.messageId}` });
      });
      if (ack) return { kind: 'score_recorded', replyId: ack.id };

      const agent = await scope.table('agents').where({ id: conversation.agent_id }).first('id', 'name', 'status', 'system_prompt', 'model', 'temperature', 'tools');
      if (!agent || agent.status !== 'active') return { kind: 'skipped', reason: 'agent_not_active' };
      const tools = await agentTools(input.tenantId, agent.tools ?? []);
      const plan = planReply(inbound.body, tools);
      const call = 'call' in plan ? plan.call : null;
      const outcome = call
        ? await runToolCall(
            db,
            { tenantId: input.tenantId, conversationId: input.conversationId, messageId: input.messageId, agentId: agent.id, contactId: conversation.contact_id, now: at },
            call,
            toolCalls,
          )
        : null;
      const text = await replyText(input.tenantId, agent, inbound.body, plan, outcome, tools);
      const stored = await storeMessageBody(scope, { conversationId: input.conversationId, direction: 'outbound', body: text, idempotencyKey: `reply:${input.messageId}` });
      // Null: a concurrent attempt stored it first.
      const replyId = stored?.id ?? (await outboundByKey(scope, `reply:${input.messageId}`))!.id;
      return { kind: 'reply', replyId };
    },

    /**
     * The provider could not be reached for the whole of the delivery's time budget: the message
     * is failed with `provider_unavailable` so the conversation goes on (and the failure shows in
     * the message), unless it was sent meanwhile.
     */
    async markMessageUndelivered(input: { tenantId: string; messageId: string }): Promise<void> {
      await db('messages')
        .where({ tenant_id: input.tenantId, id: input.messageId })
        .whereNot('delivery_status', 'sent')
        .update({ delivery_status: 'failed', failure_reason: 'provider_unavailable' });
    },

    /**
     * Sends a pending outbound message through its conversation's channel and records the result.
     * A credentials rejection fails the message and moves an active agent to `error`
     * (docs/decisions/agent-status-follows-its-channel.md); transient failures throw and are retried.
     */
    async deliverMessage(input: { tenantId: string; messageId: string }): Promise<DeliveryOutcome> {
      const target = await deliveryTarget(input.tenantId, input.messageId);
      if (!target) return 'failed';
      if (target.message.delivery_status === 'sent') return 'sent';
      if (target.message.delivery_status === 'failed') return 'failed';
      const messages = () => target.scope.table('messages').where({ id: input.messageId });
      if (!target.agent) {
        await messages().update({ delivery_status: 'failed', failure_reason: 'agent_deleted' });
        return 'failed';
      }
      const result = await sendThroughChannel(target);
      if (result.kind === 'sent') {
        await messages().update({ delivery_status: 'sent', provider_message_id: result.providerMessageId, sent_at: now() });
        return 'sent';
      }
      if (result.kind === 'rejected') {
        await messages().update({ delivery_status: 'failed', failure_reason: result.reason });
        return 'failed';
      }
      await db.transaction(async (tx) => {
        const txScope = tenantScope(tx, input.tenantId);
        await txScope.table('messages').where({ id: input.messageId }).update({ delivery_status: 'failed', failure_reason: 'credentials_rejected' });
        const moved = await txScope.table('agents').where({ id: target.agent.id, status: 'active' }).update({ status: 'error', updated_at: now() }).returning('id');
        if (moved.length > 0) {
          await appendEvent(tx, {
            tenantId: input.tenantId,
            type: 'agent.status_changed',
            source: 'worker',
            data: { agent_id: target.agent.id, status: 'error', reason: `${target.conversation.channel}_credentials_rejected` },
          });
        }
      });
      return 'credentials_rejected';
    },

    /** Closes the conversation if still open; `conversation.closed` only for the close that happened. */
    async closeConversation(input: { tenantId: string; conversationId: string; reason: 'idle' | 'closed_by_person' }): Promise<{ closed: boolean }> {
      return db.transaction(async (tx) => {
        const closed = await closeOpenConversation(tx, { tenantId: input.tenantId, conversationId: input.conversationId, reason: input.reason, at: now(), source: 'worker' });
        return { closed };
      });
    },

    /**
     * The CSAT invitation of a closed conversation the agent answered in, stored as a pending
     * outbound message (with the invitation, in one transaction). Null when no survey applies.
     */
    async prepareSurvey(input: { tenantId: string; conversationId: string }): Promise<{ messageId: string | null }> {
      const scope = tenantScope(db, input.tenantId);
      const key = `survey:${input.conversationId}`;
      const existing = await outboundByKey(scope, key);
      if (existing) return { messageId: existing.id };
      const conversation = await scope.table('conversations').where({ id: input.conversationId }).first('agent_id', 'contact_id', 'channel');
      if (!conversation || conversation.channel === 'machine') return { messageId: null };
      const answered = await scope.table('messages').where({ conversation_id: input.conversationId }).whereLike('idempotency_key', 'reply:%').first('id');
      if (!answered) return { messageId: null };
      const stored = await db.transaction(async (tx) => {
        const txScope = scope.within(tx);
        const invitation = await openSurveyInvitation(txScope, {
          conversationId: input.conversationId,
          agentId: conversation.agent_id,
          contactId: conversation.contact_id,
          channel: conversation.channel,
          now: now(),
        });
        if (!invitation) return null;
        return storeMessageBody(txScope, { conversationId: input.conversationId, direction: 'outbound', body: invitation.text, idempotencyKey: key });
      });
      return { messageId: stored?.id ?? null };
    },
  };
}

export type ConversationActivities = ReturnType<typeof createConversationActivities>;
