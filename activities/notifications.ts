import { Context } from '@temporalio/activity';
import type { Transporter } from 'nodemailer';
import { Db } from '../db/knex';
import { findNotification } from '../db/notifications';
import { mailingTenant } from '../db/tenants';
import { tenantMailMarks, withFooter } from '../domain/mail/on-behalf';
import { scrubbedMailFailure } from '../infra/smtp-send';

export interface NotificationDeps {
  db: Db;
  /** null when no SMTP server is configured: the notification is then only recorded. */
  mailer: Transporter | null;
  from: string;
}

/**
 * Sent from the platform's address marked with the tenant (domain/mail/on-behalf.ts).
 * Idempotent: a notification already sent or recorded is not sent again, and the SMTP Message-ID
 * is derived from the notification id so a receiving server can drop a duplicate of a retry
 * that raced a timeout.
 */
export function createNotificationActivities(deps: NotificationDeps) {
  return {
    async deliverNotification(input: { tenantId: string; notificationId: string }): Promise<{ status: 'sent' | 'recorded' }> {
      const row = await findNotification(deps.db, input.tenantId, input.notificationId);
      if (!row) throw new Error(`notification ${input.notificationId} not found`);
      if (row.status === 'sent' || row.status === 'recorded') return { status: row.status };
      await deps.db('notifications').where({ id: row.id }).increment('attempts', 1);
      if (!deps.mailer) {
        await deps.db('notifications').where({ id: row.id }).update({ status: 'recorded', delivered_via: 'record', processed_at: new Date(), last_error: null });
        return { status: 'recorded' };
      }
      const marks = tenantMailMarks(await mailingTenant(deps.db, input.tenantId), deps.from);
      try {
        await deps.mailer.sendMail({
          from: marks.from,
          headers: marks.headers,
          to: row.recipients,
          subject: row.subject,
          text: withFooter(row.body, marks),
          messageId: `<${row.id}@industrial-ops.local>`,
        });
      } catch (err) {
        // Only the code leaves here: the server's text names recipients (history, rows, logs).
        const failure = scrubbedMailFailure(err);
        await deps.db('notifications').where({ id: row.id }).update({ last_error: failure.message });
        Context.current().log.warn('notification send failed', { notificationId: row.id, error: failure.message });
        throw failure;
      }
      await deps.db('notifications').where({ id: row.id }).update({ status: 'sent', delivered_via: 'smtp', processed_at: new Date(), last_error: null });
      return { status: 'sent' };
    },

    async markNotificationFailed(input: { tenantId: string; notificationId: string }): Promise<void> {
      await deps
        .db('notifications')
        .where({ tenant_id: input.tenantId, id: input.notificationId })
        .whereNotIn('status', ['sent', 'recorded'])
        .update({ status: 'failed', processed_at: new Date() });
    },
  };
}

export type NotificationActivities = ReturnType<typeof createNotificationActivities>;
