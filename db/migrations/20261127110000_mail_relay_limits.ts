import type { Knex } from 'knex';

/**
 * Mail the platform sends for a tenant is bounded (docs/DECISIONS.md, Tenants as adversaries).
 *
 * Scheduled report runs record whom they mail: `recipients_sent` is decided once, at the first
 * send attempt (a retry mails the same addresses and takes no quota again), and
 * `recipients_withheld` holds `{address, reason}` for each recipient the plan's limits kept from
 * it. A run that mailed nobody is `withheld`.
 *
 * `outside_recipient_days` counts per tenant and UTC day the outside addresses (not users of the
 * tenant) reports were mailed to; the send takes from it under its row lock.
 *
 * Inbound messages carry why the agent did not answer (`no_reply_reason`: auto-submitted or bulk
 * mail, failed sender authentication, the contact's reply limit) and when an automatic reply was
 * granted (`auto_reply_granted_at`): the per-contact hourly count reads those.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table scheduled_report_runs
    add column recipients_sent jsonb,
    add column recipients_withheld jsonb not null default '[]'::jsonb,
    drop constraint scheduled_report_runs_status_check,
    add constraint scheduled_report_runs_status_check check (status in ('running', 'sent', 'recorded', 'withheld', 'failed'))`);

  await knex.raw(`
    create table outside_recipient_days (
      tenant_id uuid not null references tenants (id),
      day date not null,
      used integer not null default 0,
      primary key (tenant_id, day),
      constraint outside_recipient_days_used_check check (used >= 0)
    )`);

  await knex.raw(`alter table messages
    add column no_reply_reason text,
    add column auto_reply_granted_at timestamptz`);
  await knex.raw(`create index messages_auto_reply_granted on messages (tenant_id, auto_reply_granted_at) where auto_reply_granted_at is not null`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists messages_auto_reply_granted');
  await knex.raw('alter table messages drop column auto_reply_granted_at, drop column no_reply_reason');
  await knex.raw('drop table outside_recipient_days');
  await knex.raw(`update scheduled_report_runs set status = 'sent' where status = 'withheld'`);
  await knex.raw(`alter table scheduled_report_runs
    drop constraint scheduled_report_runs_status_check,
    add constraint scheduled_report_runs_status_check check (status in ('running', 'sent', 'recorded', 'failed')),
    drop column recipients_withheld,
    drop column recipients_sent`);
}
