/**
 * The per-contact limit of automatic replies (AUTO_REPLIES_PER_CONTACT_PER_HOUR): each answered
 * inbound message records when its reply was granted, and a new grant counts the contact's grants
 * of the last hour under a transaction-scoped advisory lock per contact, so workers on any
 * process grant one after the other and the limit holds.
 */
import type { Knex } from 'knex';
import { AUTO_REPLIES_PER_CONTACT_PER_HOUR } from '../../domain/agents/auto-reply-policy';

const HOUR_MS = 3_600_000;

/**
 * Whether the inbound message may get an automatic reply: true once granted (a retry finds the
 * grant); false, recording `contact_reply_limit` on the message, when the contact had its
 * replies for the hour.
 */
export async function grantAutoReply(db: Knex, input: { tenantId: string; contactId: string; messageId: string; at: Date }): Promise<boolean> {
  return db.transaction(async (tx) => {
    await tx.raw('select pg_advisory_xact_lock(hashtextextended(?, 11))', [`auto-reply:${input.tenantId}:${input.contactId}`]);
    const message = tx('messages').where({ tenant_id: input.tenantId, id: input.messageId });
    const current: { auto_reply_granted_at: Date | null; no_reply_reason: string | null } = await message.clone().first('auto_reply_granted_at', 'no_reply_reason');
    if (current.auto_reply_granted_at) return true;
    if (current.no_reply_reason) return false;
    const [{ count }] = await tx('messages as m')
      .join('conversations as c', function () {
        this.on('c.id', 'm.conversation_id').andOn('c.tenant_id', 'm.tenant_id');
      })
      .where({ 'm.tenant_id': input.tenantId, 'c.contact_id': input.contactId })
      .where('m.auto_reply_granted_at', '>', new Date(input.at.getTime() - HOUR_MS))
      .count({ count: '*' });
    if (Number(count) >= AUTO_REPLIES_PER_CONTACT_PER_HOUR) {
      await message.clone().update({ no_reply_reason: 'contact_reply_limit' });
      return false;
    }
    await message.clone().update({ auto_reply_granted_at: input.at });
    return true;
  });
}
