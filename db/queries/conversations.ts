/** Storage of contacts, conversations and messages (issue 7). */
import { redactPii, AUTO_REDACT_TYPES } from '../../domain/privacy/pii';
import { Knex } from 'knex';
import type { NoReplyReason } from '../../domain/agents/auto-reply-policy';
import { appendEvent } from '../outbox';
import { tenantScope, TenantScope } from '../tenant-scope';
import { listQuery, whereUuidFilters } from './list-query';

export type MessageDirection = 'inbound' | 'outbound';

/** Outbound only: pending until the provider accepted it (sent) or refused it for good (failed). */
export type DeliveryStatus = 'pending' | 'sent' | 'failed';

export interface MessageRow {
  id: string;
  conversation_id: string;
  direction: MessageDirection;
  body: string;
  delivery_status: DeliveryStatus | null;
  /** Inbound only: why the agent did not answer (domain/agents/auto-reply-policy.ts). */
  no_reply_reason: NoReplyReason | null;
  sent_at: Date | null;
  created_at: Date;
}

export const MESSAGE_COLUMNS = ['id', 'conversation_id', 'direction', 'body', 'delivery_status', 'no_reply_reason', 'sent_at', 'created_at'] as const;

export interface ConversationRow {
  id: string;
  agent_id: string;
  contact_id: string;
  channel: 'whatsapp' | 'email' | 'machine';
  status: 'open' | 'closed';
  started_at: Date;
  closed_at: Date | null;
}

export const CONVERSATION_COLUMNS = ['id', 'agent_id', 'contact_id', 'channel', 'status', 'started_at', 'closed_at'] as const;

/** The tenant's `pii.auto_redact` setting; off when the tenant never set it. */
export async function piiAutoRedact(scope: TenantScope): Promise<boolean> {
  const row = await scope.table('tenant_settings').first('pii_auto_redact');
  return row?.pii_auto_redact === true;
}

export type StoredMessage =
  | { direction: 'inbound'; providerMessageId?: string; noReplyReason?: NoReplyReason | null }
  /** Written pending; `idempotencyKey` names what it answers, so a retried write finds it. */
  | { direction: 'outbound'; idempotencyKey?: string };

/** Replaces the PII of a text (domain/privacy/pii.ts): here, or off the event loop (infra/redaction-pool.ts). */
export type Redact = (text: string) => Promise<string>;

const redactHere: Redact = async (text) => redactPii(text, { types: AUTO_REDACT_TYPES }).text;

declare const prepared: unique symbol;

/** A message body (and an e-mail subject) as it may be stored: only `textForStorage` makes one. */
export interface StorableText {
  readonly body: string;
  readonly subject: string | null;
  readonly [prepared]: true;
}

/**
 * A message's texts as they are stored: redacted (e-mail, phone, identity number and card values,
 * SPEC.md's `pii.auto_redact`) when the tenant turned redaction on, as received otherwise. Called
 * before the message's unit of work, so a long text is not scanned while a connection is held.
 */
export async function textForStorage(scope: TenantScope, text: { body: string; subject?: string | null }, redact: Redact = redactHere): Promise<StorableText> {
  const subject = text.subject ?? null;
  if (!(await piiAutoRedact(scope))) return { body: text.body, subject } as StorableText;
  return { body: await redact(text.body), subject: subject === null ? null : await redact(subject) } as StorableText;
}

/**
 * The one way a message is stored: with its texts from `textForStorage`, or with a short `body`
 * (and `subject`) that it passes through `textForStorage` here. An inbound message whose provider
 * message id is already stored (a redelivered webhook), or an outbound one whose idempotency key
 * is, is not stored again: null.
 */
export async function storeMessageBody(
  scope: TenantScope,
  message: StoredMessage & { conversationId: string; createdAt?: Date } & ({ text: StorableText } | { body: string; subject?: string | null }),
): Promise<MessageRow | null> {
  const text = 'text' in message ? message.text : await textForStorage(scope, message);
  const row = {
    conversation_id: message.conversationId,
    direction: message.direction,
    body: text.body,
    tenant_id: scope.tenantId,
    ...(message.createdAt ? { created_at: message.createdAt } : {}),
    ...(message.direction === 'inbound'
      ? { provider_message_id: message.providerMessageId ?? null, subject: text.subject, no_reply_reason: message.noReplyReason ?? null }
      : { idempotency_key: message.idempotencyKey ?? null, delivery_status: 'pending' }),
  };
  const key = message.direction === 'inbound' ? 'provider_message_id' : 'idempotency_key';
  const [stored] = await scope
    .db('messages')
    .insert(row)
    .onConflict(['tenant_id', key])
    .ignore()
    .returning([...MESSAGE_COLUMNS]);
  return (stored as MessageRow | undefined) ?? null;
}

/** An outbound message by its idempotency key (the one a previous attempt stored). */
/** The oldest active agent of a channel on the record that received a message (a WhatsApp number or an e-mail account). */
export function receivingAgent(scope: TenantScope, channel: 'whatsapp' | 'email', receiverId: string): Promise<{ id: string } | undefined> {
  const column = channel === 'whatsapp' ? 'whatsapp_number_id' : 'email_account_id';
  return scope
    .table('agents')
    .where({ [column]: receiverId, type: channel, status: 'active' })
    .orderBy([{ column: 'created_at' }, { column: 'id' }])
    .first('id');
}

/** The message a provider's message id was first stored as (possibly in an older conversation). */
export function messageByProviderId(scope: TenantScope, providerMessageId: string): Promise<{ id: string; conversation_id: string } | undefined> {
  return scope.table('messages').where({ provider_message_id: providerMessageId }).first('id', 'conversation_id');
}

export async function outboundByKey(scope: TenantScope, idempotencyKey: string): Promise<{ id: string } | undefined> {
  return scope.table('messages').where({ idempotency_key: idempotencyKey }).first('id');
}

/** The tenant's contact with this phone number, created (with the name given) when new. */
export async function contactByPhone(scope: TenantScope, phone: string, name: string | null): Promise<{ id: string; created: boolean }> {
  const { rows } = await scope.db.raw(
    `insert into contacts (tenant_id, phone, name) values (?, ?, ?)
     on conflict (tenant_id, phone) where phone is not null do update set updated_at = contacts.updated_at
     returning id, (xmax = 0) as created`,
    [scope.tenantId, phone, name],
  );
  return rows[0];
}

/** The tenant's contact with this e-mail address (case-insensitive), created (with the name given) when new. */
export async function contactByEmail(scope: TenantScope, email: string, name: string | null): Promise<{ id: string; created: boolean }> {
  const { rows } = await scope.db.raw(
    `insert into contacts (tenant_id, email, name) values (?, ?, ?)
     on conflict (tenant_id, lower(email)) where email is not null do update set updated_at = contacts.updated_at
     returning id, (xmax = 0) as created`,
    [scope.tenantId, email, name],
  );
  return rows[0];
}

/** The open conversation of an agent with a contact on a channel, started when there is none. */
export async function openConversation(
  scope: TenantScope,
  key: { agentId: string; contactId: string; channel: ConversationRow['channel']; startedAt: Date },
): Promise<{ conversation: ConversationRow; started: boolean }> {
  // Two messages of one contact arriving together start one conversation (callers run in a transaction).
  await scope.db.raw('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`conversation:${key.agentId}:${key.contactId}:${key.channel}`]);
  const existing = await scope
    .table('conversations')
    .where({ agent_id: key.agentId, contact_id: key.contactId, channel: key.channel, status: 'open' })
    .orderBy('started_at', 'desc')
    .first([...CONVERSATION_COLUMNS]);
  if (existing) return { conversation: existing, started: false };
  const [conversation] = await scope.insert('conversations', { agent_id: key.agentId, contact_id: key.contactId, channel: key.channel, started_at: key.startedAt }, [
    ...CONVERSATION_COLUMNS,
  ]);
  return { conversation, started: true };
}

/**
 * Closes an open conversation and emits `conversation.closed` (ids and the reason) in the caller's
 * transaction; false when it was already closed. The conversation workflow's idle close and a
 * person's close both come here.
 */
export async function closeOpenConversation(
  tx: Knex.Transaction,
  input: { tenantId: string; conversationId: string; reason: 'idle' | 'closed_by_person'; at: Date; source: 'api' | 'worker' },
): Promise<boolean> {
  const rows = await tenantScope(tx, input.tenantId)
    .table('conversations')
    .where({ id: input.conversationId, status: 'open' })
    .update({ status: 'closed', closed_at: input.at })
    .returning(['id', 'agent_id', 'contact_id', 'channel']);
  if (rows.length === 0) return false;
  const [row] = rows;
  await appendEvent(tx, {
    tenantId: input.tenantId,
    type: 'conversation.closed',
    source: input.source,
    occurredAt: input.at,
    data: { conversation_id: row.id, agent_id: row.agent_id, contact_id: row.contact_id, channel: row.channel, reason: input.reason },
  });
  return true;
}

export interface ConversationFilter {
  agent_id?: string;
  contact_id?: string;
  channel?: string;
  status?: string;
}

/** The tenant's conversations, newest first; an id filter that is not a UUID matches nothing. */
export function conversationListQuery(scope: TenantScope, filter: ConversationFilter): Knex.QueryBuilder {
  const q = listQuery(scope, 'conversations', CONVERSATION_COLUMNS, [{ column: 'started_at', order: 'desc' }, { column: 'id' }]);
  whereUuidFilters(q, filter, { agent_id: 'agent_id', contact_id: 'contact_id' });
  if (filter.channel) q.where('channel', filter.channel);
  if (filter.status) q.where('status', filter.status);
  return q;
}

export function conversationById(scope: TenantScope, id: string): Promise<ConversationRow | undefined> {
  return scope
    .table('conversations')
    .where('id', id)
    .first([...CONVERSATION_COLUMNS]);
}
