/** Rows of the reports feature and what they mean, shared by the API and the activities. */
import type { PeriodRule } from '../../domain/reports/period';
import type { ReportScheduleSpec } from '../../domain/reports/schedule';
import { REPORT_TYPE_INFO, ReportFormat, ReportRequest, ReportType } from '../../domain/reports/types';

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
