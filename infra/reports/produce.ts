/**
 * One report from request to bytes: read the data (db/queries/reports.ts), shape it (domain/reports),
 * load the branding and its logo, render PDF or XLSX in the content sandbox (the renderers decode
 * the logo and hold every page: neither happens in a shared process). Used by the report activity
 * (stored in the object store) and by the API's direct download of small reports.
 */
import { Db } from '../../db/knex';
import { assetHealthData, complianceTasks, csatTallies, openAlertsData, webhookHealthData } from '../../db/queries/reports';
import { complianceReport } from '../../domain/reports/compliance';
import { csatReport } from '../../domain/reports/csat';
import { ReportDocument, ReportTooLargeError, tableRows } from '../../domain/reports/document';
import { checkPeriod } from '../../domain/reports/period';
import { assetHealthReport, openAlertsReport, webhookHealthReport } from '../../domain/reports/snapshots';
import { CONTENT_TYPES, ReportPeriod, ReportRequest, ReportType, reportFileName } from '../../domain/reports/types';
import { DEFAULT_BRANDING, RenderBranding } from './branding';
import { loadLogo, LogoSources } from './logo';

/** Rows read to shape a report, per table row it may draw: the compliance report reads every task but lists only the exceptions. */
const SOURCE_ROWS_PER_TABLE_ROW = 10;

/** Rows of the asset health report's "lowest health" table. */
export const WORST_ASSETS = 10;

export type ReportSources = LogoSources;

export interface ProducedReport {
  bytes: Buffer;
  contentType: string;
  fileName: string;
}

function rangeOf(period: ReportPeriod | null) {
  if (!period) throw new Error('this report type needs a period');
  const checked = checkPeriod(period);
  if (!checked.ok) throw new Error(`invalid period: ${checked.message}`);
  return { period, range: checked.range };
}

/**
 * The report's document. `maxSourceRows`: the compliance report reads every task due in its period
 * (its figures need them all); beyond this many it is refused (ReportTooLargeError) before they
 * are all held in memory. The other reports read bounded sets.
 */
export async function buildReportDocument(db: Db, tenantId: string, type: ReportType, period: ReportPeriod | null, now: Date, maxSourceRows?: number): Promise<ReportDocument> {
  switch (type) {
    case 'maintenance_compliance': {
      const { period: p, range } = rangeOf(period);
      const tasks = await complianceTasks(db, tenantId, range, maxSourceRows === undefined ? undefined : maxSourceRows + 1);
      if (maxSourceRows !== undefined && tasks.length > maxSourceRows) throw new ReportTooLargeError('rows read', tasks.length, maxSourceRows);
      return complianceReport({ period: p, tasks, now });
    }
    case 'asset_health': {
      const data = await assetHealthData(db, tenantId, now, WORST_ASSETS);
      return assetHealthReport({ ...data.assets, open_work_orders: data.open_work_orders, overdue_work_orders: data.overdue_work_orders, worst: data.worst }, now);
    }
    case 'open_alerts':
      return openAlertsReport(await openAlertsData(db, tenantId), now);
    case 'webhook_health': {
      const { period: p, range } = rangeOf(period);
      return webhookHealthReport({ period: p, webhooks: await webhookHealthData(db, tenantId, range), now });
    }
    case 'csat': {
      const { period: p, range } = rangeOf(period);
      return csatReport({ period: p, tallies: await csatTallies(db, tenantId, range), now });
    }
  }
}

interface BrandingRow {
  tenant_id: string;
  id: string;
  company_name: string;
  primary_color: string;
  accent_color: string;
  footer_text: string | null;
  logo_file_id: string | null;
}

/** The tenant's branding with its logo bytes; the default look without one (or when it was deleted). */
export async function loadBranding(sources: ReportSources, tenantId: string, brandingId: string | null): Promise<RenderBranding> {
  if (!brandingId) return DEFAULT_BRANDING;
  const row = await sources.db<BrandingRow>('brandings').where({ tenant_id: tenantId, id: brandingId }).first();
  if (!row) return DEFAULT_BRANDING;
  return {
    companyName: row.company_name,
    primaryColor: row.primary_color,
    accentColor: row.accent_color,
    footerText: row.footer_text,
    logo: row.logo_file_id ? await loadLogo(sources, tenantId, row.logo_file_id) : null,
  };
}

export interface ProduceOptions {
  /** The render's time limit in the sandbox. */
  timeoutMs: number;
  /** Table rows a render may draw (domain/reports/document.ts `tableRows`), and rows read to shape it: beyond, ReportTooLargeError before any render. */
  maxRows?: number;
}

/** Renders the report in the tenant's share of the sandbox; a ContentError says why it could not be (memory, time). */
export async function produceReport(sources: ReportSources, tenantId: string, request: ReportRequest, now: Date, options: ProduceOptions): Promise<ProducedReport> {
  const document = await buildReportDocument(
    sources.db,
    tenantId,
    request.type,
    request.period,
    now,
    options.maxRows === undefined ? undefined : options.maxRows * SOURCE_ROWS_PER_TABLE_ROW,
  );
  const rows = tableRows(document);
  if (options.maxRows !== undefined && rows > options.maxRows) throw new ReportTooLargeError('table rows', rows, options.maxRows);
  const branding = await loadBranding(sources, tenantId, request.brandingId);
  const { bytes } = await sources.sandbox.run(tenantId, 'render-report', { format: request.format, document, branding }, { subject: 'the report', timeoutMs: options.timeoutMs });
  return {
    bytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    contentType: CONTENT_TYPES[request.format],
    fileName: reportFileName(request.type, request.format, request.period),
  };
}
