/**
 * Outside recipients of the platform's mail: addresses that are not the e-mail of an active user
 * of the tenant (compared case-insensitively). Scheduled reports may mail them only within the
 * plan's limits (OUTSIDE_MAIL_LIMITS): so many per report, so many per tenant and UTC day, the
 * day's count kept in `outside_recipient_days` and taken under its row lock.
 */
import type { Knex } from 'knex';
import type { Queryable } from '../knex';
import { OUTSIDE_MAIL_LIMITS } from '../../domain/tenancy/plans';
import { planLimitReached, tenantPlan } from '../plan-limits';

/** Why a recipient of a run was not mailed. */
export type WithheldReason = 'outside_recipients_per_schedule' | 'outside_recipients_per_day';

export interface RunRecipients {
  sent: string[];
  withheld: { address: string; reason: WithheldReason }[];
}

/** Days of counts kept behind today (older rows are dropped when a tenant next takes from its count). */
const DAYS_KEPT = 30;

/** The addresses of `recipients` that are not an active user of the tenant, in their order. */
export async function outsideRecipients(db: Queryable, tenantId: string, recipients: string[]): Promise<string[]> {
  if (recipients.length === 0) return [];
  const lowered = recipients.map((r) => r.toLowerCase());
  const users: { email: string }[] = await db('users')
    .where({ tenant_id: tenantId, status: 'active' })
    .whereRaw('lower(email) = any(?)', [lowered])
    .select(db.raw('lower(email) as email'));
  const inside = new Set(users.map((u) => u.email));
  return recipients.filter((r) => !inside.has(r.toLowerCase()));
}

/** A scheduled report's recipients against the plan's per-report limit of outside addresses: 403 PLAN_LIMIT_REACHED above it. */
export async function assertOutsideRecipientsWithinPlan(db: Queryable, tenantId: string, recipients: string[]): Promise<void> {
  const plan = await tenantPlan(db, tenantId);
  const limit = OUTSIDE_MAIL_LIMITS[plan].perSchedule;
  const outside = await outsideRecipients(db, tenantId, recipients);
  if (outside.length > limit) {
    throw planLimitReached(
      plan,
      `${limit} outside recipients per scheduled report (addresses that are not users of the tenant); this one has ${outside.length}`,
      'outside_recipients_per_schedule',
      limit,
    );
  }
}

/**
 * Takes up to `wanted` from the tenant's count of outside recipients for `day` (YYYY-MM-DD,
 * UTC): the row lock makes concurrent sends of any worker take one after the other, so the
 * daily limit holds. Returns how many were granted.
 */
async function takeOutsideRecipients(tx: Knex.Transaction, tenantId: string, day: string, wanted: number, limit: number): Promise<number> {
  if (wanted === 0) return 0;
  await tx('outside_recipient_days').where({ tenant_id: tenantId }).whereRaw(`day < ?::date - ${DAYS_KEPT}`, [day]).delete();
  await tx('outside_recipient_days').insert({ tenant_id: tenantId, day, used: 0 }).onConflict(['tenant_id', 'day']).ignore();
  const row: { used: number } = await tx('outside_recipient_days').where({ tenant_id: tenantId, day }).forUpdate().first('used');
  const granted = Math.max(0, Math.min(wanted, limit - row.used));
  if (granted > 0) await tx('outside_recipient_days').where({ tenant_id: tenantId, day }).increment('used', granted);
  return granted;
}

/**
 * Whom a scheduled report run mails, decided once per run (a retry reads the decision and takes
 * nothing again): every inside recipient; outside ones in list order up to the plan's per-report
 * limit and what is left of the tenant's daily count. The rest are withheld with the reason.
 */
export async function decideRunRecipients(db: Knex, input: { tenantId: string; runId: string; recipients: string[]; at: Date }): Promise<RunRecipients> {
  return db.transaction(async (tx) => {
    const run = await tx('scheduled_report_runs').where({ tenant_id: input.tenantId, id: input.runId }).forUpdate().first('recipients_sent', 'recipients_withheld');
    if (run.recipients_sent) return { sent: run.recipients_sent, withheld: run.recipients_withheld };
    const limits = OUTSIDE_MAIL_LIMITS[await tenantPlan(tx, input.tenantId)];
    const outside = await outsideRecipients(tx, input.tenantId, input.recipients);
    const eligible = outside.slice(0, limits.perSchedule);
    const granted = new Set(eligible.slice(0, await takeOutsideRecipients(tx, input.tenantId, input.at.toISOString().slice(0, 10), eligible.length, limits.perDay)));
    const decided: RunRecipients = { sent: [], withheld: [] };
    for (const address of input.recipients) {
      if (!outside.includes(address) || granted.has(address)) decided.sent.push(address);
      else decided.withheld.push({ address, reason: eligible.includes(address) ? 'outside_recipients_per_day' : 'outside_recipients_per_schedule' });
    }
    await tx('scheduled_report_runs')
      .where({ id: input.runId })
      .update({ recipients_sent: JSON.stringify(decided.sent), recipients_withheld: JSON.stringify(decided.withheld) });
    return decided;
  });
}
