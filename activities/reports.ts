/**
 * Report activities: generate a report job's file into the object store (and emit
 * report.completed with the row's completion, in one transaction), and the steps of a scheduled
 * run: open the run (one per firing, keyed by the run's workflow id), e-mail the file to the
 * recipients the plan's limits allow, record failures. Inputs and results carry ids only;
 * recipients are read here.
 */
import type { Transporter } from 'nodemailer';
import { Db } from '../db/knex';
import { appendEvent } from '../db/outbox';
import { resolvePeriodRule } from '../domain/reports/period';
import { CONTENT_TYPES, REPORT_TYPE_INFO, ReportFormat, ReportRequest, ReportType, reportFileName } from '../domain/reports/types';
import { ObjectStore } from '../infra/object-store';
import { scrubbedMailFailure } from '../infra/smtp-send';
import { produceReport } from '../infra/reports/produce';
import type { SandboxPool } from '../infra/sandbox/pool';
import { TIME_LIMITS } from '../infra/sandbox/limits';
import { ContentError } from '../infra/sandbox/protocol';
import { ReportJobRow, reportObjectKey, reportRequestOf, ScheduledReportRow } from '../db/queries/report-jobs';
import { decideRunRecipients } from '../db/queries/outside-recipients';
import { isTenantSuspended, mailingTenant } from '../db/tenants';
import { tenantMailMarks, withFooter } from '../domain/mail/on-behalf';

export interface ReportActivityDeps {
  db: Db;
  objectStore: ObjectStore;
  /** Where reports are rendered (infra/sandbox/pool.ts). */
  sandbox: SandboxPool;
  /** null without SMTP: a run is then recorded, not sent. */
  mailer: Transporter | null;
  mailFrom: string;
}

export interface ReportRef {
  tenantId: string;
  reportId: string;
}

export interface RunRef {
  tenantId: string;
  runId: string;
}

async function readObject(objectStore: ObjectStore, key: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await objectStore.client.getObject(objectStore.bucket, key)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export function createReportActivities(deps: ReportActivityDeps) {
  const { db, objectStore, sandbox } = deps;
  const job = async (ref: ReportRef): Promise<ReportJobRow> => {
    const row = await db('report_jobs').where({ tenant_id: ref.tenantId, id: ref.reportId }).first();
    if (!row) throw new Error(`report ${ref.reportId} not found`);
    return row;
  };

  return {
    /** Renders the report and stores it; a retry rewrites the same key. Idempotent once completed. */
    async generateReportFile(ref: ReportRef): Promise<{ bytes: number }> {
      const row = await job(ref);
      if (row.status === 'completed') return { bytes: Number(row.size_bytes) };
      await db('report_jobs').where({ id: row.id }).update({ status: 'running', started_at: new Date() });
      let produced;
      try {
        produced = await produceReport({ db, objectStore, sandbox }, ref.tenantId, reportRequestOf(row), new Date(), { timeoutMs: TIME_LIMITS.reportJob });
      } catch (err) {
        // The report's own content broke a sandbox bound: its reason is the job's error, and the
        // failure is not retried (activities/failure-hygiene.ts), the same content would break it again.
        if (err instanceof ContentError)
          await db('report_jobs')
            .where({ id: row.id })
            .whereNot({ status: 'completed' })
            .update({ error: err.message.slice(0, 500) });
        throw err;
      }
      const key = reportObjectKey(ref.tenantId, row.id, row.format);
      await objectStore.client.putObject(objectStore.bucket, key, produced.bytes, produced.bytes.length, { 'Content-Type': produced.contentType });
      await db.transaction(async (tx) => {
        const updated = await tx('report_jobs')
          .where({ id: row.id })
          .whereNot({ status: 'completed' })
          .update({ status: 'completed', object_key: key, size_bytes: produced.bytes.length, completed_at: new Date(), error: null });
        if (updated === 1) {
          await appendEvent(tx, {
            tenantId: ref.tenantId,
            type: 'report.completed',
            source: 'worker',
            idempotencyKey: `report.completed:${row.id}`,
            data: { report_id: row.id, report_type: row.report_type, format: row.format, scheduled_report_id: row.scheduled_report_id },
          });
        }
      });
      return { bytes: produced.bytes.length };
    },

    async failReport(ref: ReportRef): Promise<void> {
      await db('report_jobs')
        .where({ tenant_id: ref.tenantId, id: ref.reportId })
        .whereNot({ status: 'completed' })
        // The reason generateReportFile recorded, or the generic one.
        .update({ status: 'failed', error: db.raw("coalesce(error, 'report_generation_failed')"), completed_at: new Date() });
    },

    /**
     * Opens the run of one firing (the same workflow id finds the same run after a retry) with
     * its report job, the period resolved at `at` in the schedule's time zone. null when the
     * scheduled report no longer exists or is paused, or its tenant is suspended: such a firing
     * does nothing (nothing is generated or mailed for a suspended tenant).
     */
    async beginScheduledReportRun(input: { tenantId: string; scheduledReportId: string; workflowId: string; at: string }): Promise<{ runId: string; reportId: string } | null> {
      return db.transaction(async (tx) => {
        const existing = await tx('scheduled_report_runs').where({ tenant_id: input.tenantId, workflow_id: input.workflowId }).first('id', 'report_id');
        if (existing) return { runId: existing.id, reportId: existing.report_id };
        const scheduled: ScheduledReportRow | undefined = await tx('scheduled_reports').where({ tenant_id: input.tenantId, id: input.scheduledReportId }).forUpdate().first();
        if (!scheduled || scheduled.status !== 'active' || (await isTenantSuspended(tx, input.tenantId))) return null;
        const type = scheduled.report_type as ReportType;
        const period = REPORT_TYPE_INFO[type].needsPeriod && scheduled.period_rule ? resolvePeriodRule(scheduled.period_rule, new Date(input.at), scheduled.time_zone) : null;
        const [report] = await tx('report_jobs')
          .insert({
            tenant_id: input.tenantId,
            report_type: type,
            format: scheduled.format,
            period_from: period?.from ?? null,
            period_to: period?.to ?? null,
            branding_id: scheduled.branding_id,
            scheduled_report_id: scheduled.id,
          })
          .returning('id');
        const [run] = await tx('scheduled_report_runs')
          .insert({ tenant_id: input.tenantId, scheduled_report_id: scheduled.id, workflow_id: input.workflowId, report_id: report.id })
          .returning('id');
        return { runId: run.id, reportId: report.id };
      });
    },

    /**
     * Mails the report to the recipients the plan lets it reach (decideRunRecipients: decided
     * once per run, the rest withheld with the reason), from the platform's address marked with
     * the tenant (domain/mail/on-behalf.ts). Once sent, a retry does nothing (Message-ID from the
     * run id). Nobody left to mail: the run is `withheld`.
     */
    async emailScheduledReport(ref: RunRef): Promise<{ status: 'sent' | 'recorded' | 'withheld'; sentTo: number }> {
      const run = await db('scheduled_report_runs').where({ tenant_id: ref.tenantId, id: ref.runId }).first();
      if (!run) throw new Error(`scheduled report run ${ref.runId} not found`);
      if (run.status === 'sent' || run.status === 'recorded' || run.status === 'withheld') return { status: run.status, sentTo: run.sent_to };
      const scheduled: ScheduledReportRow | undefined = await db('scheduled_reports').where({ tenant_id: ref.tenantId, id: run.scheduled_report_id }).first();
      const report = await job({ tenantId: ref.tenantId, reportId: run.report_id });
      if (!scheduled || !report.object_key) throw new Error(`scheduled report run ${ref.runId} has nothing to send`);
      if (!deps.mailer) {
        await db('scheduled_report_runs').where({ id: run.id }).update({ status: 'recorded', sent_to: 0, finished_at: new Date() });
        return { status: 'recorded', sentTo: 0 };
      }
      const recipients = await decideRunRecipients(db, { tenantId: ref.tenantId, runId: run.id, recipients: scheduled.recipients, at: new Date() });
      if (recipients.sent.length === 0) {
        await db('scheduled_report_runs').where({ id: run.id }).update({ status: 'withheld', sent_to: 0, finished_at: new Date(), error: null });
        return { status: 'withheld', sentTo: 0 };
      }
      const request = reportRequestOf(report);
      const fileName = reportFileName(request.type, request.format, request.period);
      const title = REPORT_TYPE_INFO[request.type].title;
      const periodText = request.period ? ` ${request.period.from} – ${request.period.to}` : '';
      const marks = tenantMailMarks(await mailingTenant(db, ref.tenantId), deps.mailFrom);
      try {
        await deps.mailer.sendMail({
          from: marks.from,
          headers: marks.headers,
          to: recipients.sent,
          subject: `${scheduled.name}: ${title}${periodText}`,
          text: withFooter(`Attached: ${title}${periodText} (${request.format.toUpperCase()}), generated by the scheduled report "${scheduled.name}".`, marks),
          attachments: [{ filename: fileName, content: await readObject(objectStore, report.object_key), contentType: CONTENT_TYPES[request.format as ReportFormat] }],
          messageId: `<scheduled-report-run-${run.id}@industrial-ops.local>`,
        });
      } catch (err) {
        // Only the code leaves here: the server's text names recipients (history, rows, logs).
        throw scrubbedMailFailure(err);
      }
      await db('scheduled_report_runs').where({ id: run.id }).update({ status: 'sent', sent_to: recipients.sent.length, finished_at: new Date(), error: null });
      return { status: 'sent', sentTo: recipients.sent.length };
    },

    async failScheduledReportRun(input: RunRef & { stage: 'generation' | 'email' }): Promise<void> {
      await db('scheduled_report_runs')
        .where({ tenant_id: input.tenantId, id: input.runId })
        .whereNotIn('status', ['sent', 'recorded', 'withheld'])
        .update({ status: 'failed', error: `${input.stage}_failed`, finished_at: new Date() });
    },
  };
}

export type ReportActivities = ReturnType<typeof createReportActivities>;

/** For tests and the request type's users: what a job row asks for. */
export type { ReportRequest };
