/**
 * On-demand reports, without HTTP: request one (a row, then its workflow), render one at once,
 * read one with its download link. api/routes/reports.ts is the HTTP face.
 */
import type { Db } from '../db/knex';
import { insertReportJob, markReportNotStarted, ReportJobFilter, reportJobById, reportJobsQuery, ReportJobRow, reportRequestOf } from '../db/queries/report-jobs';
import { tenantScope, type TenantScope } from '../db/tenant-scope';
import { runUnit, type UserUnitContext } from '../db/unit-of-work';
import { reportFileName, type ReportFormat, type ReportPeriod, type ReportType } from '../domain/reports/types';
import type { ObjectStore } from '../infra/object-store';
import { produceReport, type ProducedReport, type ReportSources } from '../infra/reports/produce';
import { DIRECT_REPORT_MAX_ROWS, TIME_LIMITS } from '../infra/sandbox/limits';
import { ReportTooLargeError } from '../domain/reports/document';
import { AppError } from '../domain/errors';
import type { TemporalGateway } from '../infra/temporal';
import { callTemporal } from '../orchestration/temporal-call';
import { startReport } from '../orchestration/reports';
import { findOr404 } from '../db/find-or-404';
import { paginate, type Page, type PageRequest } from '../db/pagination';
import { requireBrandingReference } from './brandings';

/** Lifetime of a report's download URL. */
export const REPORT_URL_TTL_SECONDS = 15 * 60;

export interface ReportOrder {
  type: ReportType;
  format: ReportFormat;
  period?: ReportPeriod;
  branding_id?: string;
}

export interface ReportDownload {
  url: string;
  expiresAt: Date;
}

export function listReports(scope: TenantScope, filter: ReportJobFilter, page: PageRequest): Promise<Page<ReportJobRow>> {
  return paginate(reportJobsQuery(scope, filter), page);
}

/**
 * Records the report (its audit row with it) and then starts its workflow. A start that fails
 * marks the committed job failed and answers 503.
 */
export async function requestReport(deps: { db: Db; temporal: TemporalGateway }, context: UserUnitContext, order: ReportOrder): Promise<ReportJobRow> {
  const row = await runUnit(deps.db, context, async (unit) => {
    if (order.branding_id) await requireBrandingReference(unit.scope, order.branding_id);
    const created = await insertReportJob(unit.scope, {
      type: order.type,
      format: order.format,
      period: order.period ?? null,
      brandingId: order.branding_id ?? null,
      requestedBy: context.userId,
    });
    unit.audit({ action: 'report.requested', resourceType: 'report', resourceId: created.id, details: { type: order.type, format: order.format } });
    return created;
  });
  try {
    await callTemporal(deps.temporal, 'the report could not be started', (client) => startReport(client, context.tenantId, row.id));
  } catch (err) {
    await markReportNotStarted(deps.db, row.id);
    throw err;
  }
  return row;
}

/**
 * Renders a report in the caller's time (nothing is stored), in the API's content sandbox within
 * the tenant's share of it: at most DIRECT_REPORT_MAX_ROWS table rows, TIME_LIMITS.reportDirect.
 * `field` names where a bad branding came from.
 */
export async function renderReport(
  deps: ReportSources,
  tenantId: string,
  order: { type: ReportType; format: ReportFormat; period: ReportPeriod | null; brandingId: string | null },
  brandingField: string,
): Promise<ProducedReport> {
  if (order.brandingId) await requireBrandingReference(tenantScope(deps.db, tenantId), order.brandingId, brandingField);
  try {
    return await produceReport(deps, tenantId, order, new Date(), { timeoutMs: TIME_LIMITS.reportDirect, maxRows: DIRECT_REPORT_MAX_ROWS });
  } catch (err) {
    if (err instanceof ReportTooLargeError)
      throw new AppError(
        'REPORT_TOO_LARGE',
        `the report needs more than ${err.maxRows} ${err.what}, the limit of a direct render: request it with POST /api/v1/reports`,
        { rows: err.rows, max_rows: err.maxRows },
        422,
      );
    throw err;
  }
}

/** A report of the tenant, or 404. */
export function requireReport(scope: TenantScope, id: string): Promise<ReportJobRow> {
  return findOr404('report', id, () => reportJobById(scope, id));
}

/** A completed report's short-lived download URL (null until it is completed). */
export async function reportDownload(row: ReportJobRow, objectStore: ObjectStore): Promise<ReportDownload | null> {
  if (row.status !== 'completed' || !row.object_key) return null;
  const now = new Date();
  const request = reportRequestOf(row);
  const disposition = { 'response-content-disposition': `attachment; filename="${reportFileName(request.type, request.format, request.period)}"` };
  const url = await objectStore.publicClient.presignedGetObject(objectStore.bucket, row.object_key, REPORT_URL_TTL_SECONDS, disposition, now);
  return { url, expiresAt: new Date(now.getTime() + REPORT_URL_TTL_SECONDS * 1000) };
}
