/** Storage of contacts, conversations and messages (issue 7). */
import { redactPii, SPEC_AUTO_REDACT_TYPES } from '../../domain/privacy/pii';
import { TenantScope } from '../tenant-scope';

export type MessageDirection = 'inbound' | 'outbound';

export interface MessageRow {
  id: string;
  conversation_id: string;
  direction: MessageDirection;
  body: string;
  created_at: Date;
}

export const MESSAGE_COLUMNS = ['id', 'conversation_id', 'direction', 'body', 'created_at'] as const;

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

/**
 * The one way a message body is stored: redacted (e-mail and phone values, SPEC.md's
 * `pii.auto_redact`) when the tenant turned redaction on, as received otherwise. With a
 * provider message id already stored (a redelivered webhook), nothing is stored: null.
 */
export async function storeMessageBody(
  scope: TenantScope,
  message: { conversationId: string; direction: MessageDirection; body: string; createdAt?: Date; providerMessageId?: string },
): Promise<MessageRow | null> {
  const body = (await piiAutoRedact(scope)) ? redactPii(message.body, { types: SPEC_AUTO_REDACT_TYPES }).text : message.body;
  const row = {
    conversation_id: message.conversationId,
    direction: message.direction,
    body,
    tenant_id: scope.tenantId,
    ...(message.createdAt ? { created_at: message.createdAt } : {}),
    ...(message.providerMessageId ? { provider_message_id: message.providerMessageId } : {}),
  };
  const [stored] = await scope.db('messages').insert(row).onConflict(['tenant_id', 'provider_message_id']).ignore().returning([...MESSAGE_COLUMNS]);
  return (stored as MessageRow | undefined) ?? null;
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
  const [conversation] = await scope.insert(
    'conversations',
    { agent_id: key.agentId, contact_id: key.contactId, channel: key.channel, started_at: key.startedAt },
    [...CONVERSATION_COLUMNS],
  );
  return { conversation, started: true };
}
