/**
 * What every inbound channel does with one message (WhatsApp webhook, inbound e-mail): route it
 * to the receiving record's oldest active agent of the channel, find or create the contact,
 * store the message once per provider message id in the open conversation (started when none),
 * emit `conversation.started` / `conversation.message.received` (ids only) and audit it with the
 * contact as subject, all in one unit of work. After the commit the conversation's workflow is
 * signalled (signal-with-start), also for a redelivered message: if Temporal is unreachable the
 * caller answers 503, the provider redelivers, and the duplicate is signalled then. A suspended
 * tenant's message is stored and not signalled: its agent does not answer.
 */
import type { Logger } from 'pino';
import type { Db } from '../db/knex';
import { contactByEmail, contactByPhone, messageByProviderId, openConversation, receivingAgent, storeMessageBody, textForStorage } from '../db/queries/conversations';
import { tenantScope } from '../db/tenant-scope';
import { isTenantSuspended } from '../db/tenants';
import { runUnit, type UnitContext } from '../db/unit-of-work';
import { ChannelStatus } from '../domain/agents/agents';
import type { NoReplyReason } from '../domain/agents/auto-reply-policy';
import { dependencyUnavailable } from '../domain/errors';
import { storableOrNull, storableText } from '../domain/text';
import { errorSummary } from '../infra/error-chain';
import { storedTextRedactor } from '../infra/redaction-pool';
import type { TemporalGateway } from '../infra/temporal';
import { callTemporal } from '../orchestration/temporal-call';
import { signalInboundMessage } from '../orchestration/conversations';

export type InboundChannel = 'whatsapp' | 'email';

export interface InboundMessage {
  channel: InboundChannel;
  tenantId: string;
  /** The receiving record: a `whatsapp_numbers` or `email_accounts` row of the tenant. */
  receiver: { id: string; status: ChannelStatus };
  /** The sender: an E.164 phone (WhatsApp) or an e-mail address. */
  from: string;
  senderName: string | null;
  body: string;
  subject?: string | null;
  providerMessageId: string;
  sentAt: Date;
  /** Why the agent must not answer it (e-mail: domain/agents/auto-reply-policy.ts); stored with the message. */
  noReplyReason?: NoReplyReason | null;
}

export type InboundOutcome = 'stored' | 'duplicate' | 'unrouted';

const RECEIVER_TYPE = { whatsapp: 'whatsapp_number', email: 'email_account' } as const;

type Routed = { outcome: 'unrouted' } | { outcome: 'stored' | 'duplicate'; conversationId: string; messageId: string };

export async function receiveInboundMessage(
  deps: { db: Db; temporal: TemporalGateway; log: Pick<Logger, 'error'> },
  /** Who relays it, in which request; the tenant is the receiving record's. */
  origin: Omit<UnitContext, 'tenantId'>,
  received: InboundMessage,
): Promise<InboundOutcome> {
  // What a provider relays is kept as sent, less what PostgreSQL cannot store.
  const message: InboundMessage = {
    ...received,
    from: storableText(received.from),
    senderName: storableOrNull(received.senderName),
    body: storableText(received.body),
    subject: storableOrNull(received.subject),
    providerMessageId: storableText(received.providerMessageId),
  };
  // Redacted before the unit of work: a long text is scanned off the event loop, holding no connection.
  const redactor = storedTextRedactor();
  const text = await textForStorage(tenantScope(deps.db, message.tenantId), message, (t) => redactor.redact(message.tenantId, t));
  const routed = await runUnit(deps.db, { ...origin, tenantId: message.tenantId }, async (unit): Promise<Routed> => {
    const agent = message.receiver.status === 'active' ? await receivingAgent(unit.scope, message.channel, message.receiver.id) : undefined;
    if (!agent) {
      unit.audit({ action: `${message.channel}.message_unrouted`, resourceType: RECEIVER_TYPE[message.channel], resourceId: message.receiver.id });
      return { outcome: 'unrouted' };
    }
    const contact =
      message.channel === 'whatsapp' ? await contactByPhone(unit.scope, message.from, message.senderName) : await contactByEmail(unit.scope, message.from, message.senderName);
    const { conversation, started } = await openConversation(unit.scope, { agentId: agent.id, contactId: contact.id, channel: message.channel, startedAt: message.sentAt });
    const stored = await storeMessageBody(unit.scope, {
      conversationId: conversation.id,
      direction: 'inbound',
      text,
      createdAt: message.sentAt,
      providerMessageId: message.providerMessageId,
      noReplyReason: message.noReplyReason ?? null,
    });
    const ids = { conversation_id: conversation.id, agent_id: agent.id, contact_id: contact.id, channel: message.channel };
    if (started) unit.emit('conversation.started', ids);
    if (stored) unit.emit('conversation.message.received', { ...ids, message_id: stored.id });
    unit.audit({
      action: stored ? 'conversation.message_received' : 'conversation.message_duplicate',
      resourceType: 'conversation',
      resourceId: conversation.id,
      subjectId: contact.id,
      details: stored ? { message_id: stored.id, conversation_started: started } : {},
    });
    if (stored) return { outcome: 'stored', conversationId: conversation.id, messageId: stored.id };
    // The first delivery's row (possibly in an older conversation): signalled again below.
    const first = (await messageByProviderId(unit.scope, message.providerMessageId))!;
    return { outcome: 'duplicate', conversationId: first.conversation_id, messageId: first.id };
  });
  if (routed.outcome === 'unrouted') return 'unrouted';
  // A suspended tenant's agents do not answer: the message is stored (the sender's words are not
  // lost) and its conversation is not signalled, now or when the tenant is resumed.
  if (await isTenantSuspended(deps.db, message.tenantId)) return routed.outcome;
  try {
    await callTemporal(deps.temporal, 'the conversation workflow could not be signalled', (client) =>
      signalInboundMessage(client, { tenantId: message.tenantId, conversationId: routed.conversationId, messageId: routed.messageId }),
    );
  } catch (err) {
    deps.log.error({ err: errorSummary(err) }, 'conversation workflow not signalled');
    throw dependencyUnavailable('temporal', 'the message is stored but its answer could not be scheduled; deliver it again');
  }
  return routed.outcome;
}
