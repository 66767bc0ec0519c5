/** Rows of the reports feature and what they mean, shared by the API and the activities. */
import type { Knex } from 'knex';
import type { Queryable } from '../knex';
import { type TenantScope, whereUuidIs } from '../tenant-scope';
import type { PeriodRule } from '../../domain/reports/period';
import type { ReportScheduleSpec } from '../../domain/reports/schedule';
import { REPORT_TYPE_INFO, ReportFormat, ReportRequest, ReportType } from '../../domain/reports/types';
import type { WithheldReason } from './outside-recipients';

export interface ReportJobRow {
  id: string;
  tenant_id: string;
  report_type: ReportType;
  format: ReportFormat;
  period_from: string | Date | null;
  period_to: string | Date | null;
  branding_id: string | null;
  status: 'queued' | 'running' | 'completed' | 'failed';
  object_key: string | null;
  size_bytes: string | number | null;
  error: string | null;
  requested_by: string | null;
  scheduled_report_id: string | null;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
}

export interface ScheduledReportRow {
  id: string;
  tenant_id: string;
  name: string;
  report_type: ReportType;
  format: ReportFormat;
  branding_id: string | null;
  period_rule: PeriodRule | null;
  schedule: ReportScheduleSpec;
  time_zone: string;
  recipients: string[];
  status: 'active' | 'paused';
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface BrandingRow {
  id: string;
  tenant_id: string;
  name: string;
  company_name: string;
  logo_file_id: string | null;
  primary_color: string;
  accent_color: string;
  footer_text: string | null;
  created_at: Date;
  updated_at: Date;
}

/** A `date` column as YYYY-MM-DD whatever the driver returned (pg parses dates in local time). */
export function dayOf(value: string | Date): string {
  if (typeof value === 'string') return value.slice(0, 10);
  const local = new Date(value.getTime() - value.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 10);
}

export function reportRequestOf(row: Pick<ReportJobRow, 'report_type' | 'format' | 'period_from' | 'period_to' | 'branding_id'>): ReportRequest {
  const period = REPORT_TYPE_INFO[row.report_type].needsPeriod && row.period_from && row.period_to ? { from: dayOf(row.period_from), to: dayOf(row.period_to) } : null;
  return { type: row.report_type, format: row.format, period, brandingId: row.branding_id };
}

/** Where a report's file lives in the object store. */
export function reportObjectKey(tenantId: string, reportId: string, format: ReportFormat): string {
  return `reports/${tenantId}/${reportId}.${format}`;
}

export interface ReportJobFilter {
  type?: ReportType;
  status?: string;
  scheduled_report_id?: string;
}

/** The tenant's reports, newest first, filtered (a list query: the caller pages it). */
export function reportJobsQuery(scope: TenantScope, filter: ReportJobFilter): Knex.QueryBuilder {
  const q = scope
    .table('report_jobs')
    .select('*')
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ]);
  if (filter.type) q.where('report_type', filter.type);
  if (filter.status) q.where('status', filter.status);
  if (filter.scheduled_report_id) whereUuidIs(q, 'scheduled_report_id', filter.scheduled_report_id);
  return q;
}

export function reportJobById(scope: TenantScope, id: string): Promise<ReportJobRow | undefined> {
  return scope.table('report_jobs').where('id', id).first();
}

export async function insertReportJob(
  scope: TenantScope,
  job: { type: ReportType; format: ReportFormat; period: { from: string; to: string } | null; brandingId: string | null; requestedBy: string },
): Promise<ReportJobRow> {
  const [created] = await scope.insert('report_jobs', {
    report_type: job.type,
    format: job.format,
    period_from: job.period?.from ?? null,
    period_to: job.period?.to ?? null,
    branding_id: job.brandingId,
    requested_by: job.requestedBy,
  });
  return created as ReportJobRow;
}

/** A job whose workflow never started: it says so instead of staying queued forever. */
export async function markReportNotStarted(db: Queryable, id: string): Promise<void> {
  await db('report_jobs').where({ id }).update({ status: 'failed', error: 'start_failed', completed_at: new Date() });
}

/** The tenant's scheduled reports, oldest first (a list query: the caller pages it). */
export function scheduledReportsQuery(scope: TenantScope): Knex.QueryBuilder {
  return scope
    .table('scheduled_reports')
    .select('*')
    .orderBy([{ column: 'created_at' }, { column: 'id' }]);
}

export function scheduledReportById(scope: TenantScope, id: string, lock = false): Promise<ScheduledReportRow | undefined> {
  const q = scope.table('scheduled_reports').where('id', id).first();
  return lock ? q.forUpdate() : q;
}

export async function insertScheduledReport(scope: TenantScope, columns: Record<string, unknown>): Promise<ScheduledReportRow> {
  const [row] = (await scope.insert('scheduled_reports', columns)) as ScheduledReportRow[];
  return row;
}

export async function updateScheduledReportRow(scope: TenantScope, id: string, columns: Record<string, unknown>): Promise<ScheduledReportRow> {
  const [row] = (await scope
    .table('scheduled_reports')
    .where('id', id)
    .update({ ...columns, updated_at: new Date() })
    .returning('*')) as ScheduledReportRow[];
  return row;
}

export async function deleteScheduledReportRow(scope: TenantScope, id: string): Promise<void> {
  await scope.table('scheduled_reports').where('id', id).delete();
}

export interface ScheduledReportRunRow {
  id: string;
  report_id: string | null;
  status: 'running' | 'sent' | 'recorded' | 'withheld' | 'failed';
  sent_to: number;
  /** Null until the first send attempt decided whom the run mails. */
  recipients_sent: string[] | null;
  recipients_withheld: { address: string; reason: WithheldReason }[];
  error: string | null;
  started_at: Date;
  finished_at: Date | null;
}

/** The runs of a scheduled report, newest first (a list query: the caller pages it). */
export function scheduledReportRunsQuery(scope: TenantScope, scheduledReportId: string): Knex.QueryBuilder {
  return scope
    .table('scheduled_report_runs')
    .where('scheduled_report_id', scheduledReportId)
    .select('*')
    .orderBy([
      { column: 'started_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ]);
}

/** A new row id chosen before the insert, so a failed commit can find the Schedule it named. */
export async function newRowId(db: Queryable): Promise<string> {
  const { rows } = (await db.raw('select gen_random_uuid() as id')) as { rows: { id: string }[] };
  return rows[0]!.id;
}
