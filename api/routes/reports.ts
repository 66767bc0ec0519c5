import Joi from '../../domain/joi';
import type { CustomHelpers } from 'joi';
import { ReportJobRow, reportRequestOf } from '../../db/queries/report-jobs';
import { checkPeriod } from '../../domain/reports/period';
import { REPORT_FORMATS, REPORT_TYPE_INFO, REPORT_TYPES, ReportFormat, ReportPeriod, ReportType } from '../../domain/reports/types';
import { listReports, ReportDownload, ReportOrder, renderReport, REPORT_URL_TTL_SECONDS, reportDownload, requestReport, requireReport } from '../../services/reports';
import { tenantScopeOf, userOf } from '../context';
import { AppError } from '../../domain/errors';
import { userUnitContextOf } from '../mutation';
import { mapPage, PageRequest } from '../../db/pagination';
import { pageQuery, pageOf } from '../pagination';
import { resourceRoutes } from '../resource-routes';
import { ApiRouter } from '../route';
import { idRef } from '../validation';
import { isoTime } from '../../domain/time';

/**
 * On-demand reports. Every report runs as `report/<tenant>/<id>` into the object store (202, then
 * GET for the status and a short-lived download URL); `/direct/<type>.<format>` renders one in the
 * request for callers that want the bytes at once (docs/decisions/reports-as-workflows.md).
 */

const TAGS = ['reports'];

const day = Joi.string()
  .pattern(/^\d{4}-\d{2}-\d{2}$/)
  .messages({ 'string.pattern.base': 'must be a date in the form YYYY-MM-DD' });

/** `period` is required by period reports and refused by snapshots; its days must make a valid period. */
function periodRule(value: { type: ReportType; period?: ReportPeriod }, h: CustomHelpers) {
  const needs = REPORT_TYPE_INFO[value.type].needsPeriod;
  if (needs && !value.period) return h.message({ custom: `period is required for ${value.type} reports` });
  if (!needs && value.period) return h.message({ custom: `${value.type} is a snapshot as of now and takes no period` });
  if (value.period) {
    const checked = checkPeriod(value.period);
    if (!checked.ok) return h.message({ custom: `period ${checked.message}` });
  }
  return value;
}

const createBody = Joi.object({
  type: Joi.string()
    .valid(...REPORT_TYPES)
    .required(),
  format: Joi.string()
    .valid(...REPORT_FORMATS)
    .required(),
  period: Joi.object({ from: day.required(), to: day.required() }).description('Both days included (UTC); required by maintenance_compliance, webhook_health and csat'),
  branding_id: idRef,
}).custom(periodRule);

const directQuery = Joi.object({ from: day, to: day, branding_id: idRef });
const FILE_PATTERN = new RegExp(`^(${REPORT_TYPES.join('|')})\\.(${REPORT_FORMATS.join('|')})$`);

export const reportSchema = Joi.object({
  id: Joi.string(),
  type: Joi.string().valid(...REPORT_TYPES),
  format: Joi.string().valid(...REPORT_FORMATS),
  period: Joi.object({ from: Joi.string(), to: Joi.string() }).allow(null),
  branding_id: Joi.string().allow(null),
  status: Joi.string().valid('queued', 'running', 'completed', 'failed'),
  size_bytes: Joi.number().allow(null),
  error: Joi.string().allow(null),
  scheduled_report_id: Joi.string().allow(null),
  created_at: Joi.string().isoDate(),
  completed_at: Joi.string().isoDate().allow(null),
  download_url: Joi.string()
    .allow(null)
    .description(`Presigned, valid ${REPORT_URL_TTL_SECONDS / 60} minutes; present when completed`),
  download_expires_at: Joi.string().isoDate().allow(null),
});

export function toReport(row: ReportJobRow, download: ReportDownload | null = null) {
  const request = reportRequestOf(row);
  return {
    id: row.id,
    type: request.type,
    format: request.format,
    period: request.period,
    branding_id: row.branding_id,
    status: row.status,
    size_bytes: row.size_bytes === null ? null : Number(row.size_bytes),
    error: row.error,
    scheduled_report_id: row.scheduled_report_id,
    created_at: isoTime(row.created_at),
    completed_at: isoTime(row.completed_at),
    download_url: download?.url ?? null,
    download_expires_at: download ? download.expiresAt.toISOString() : null,
  };
}

const reportParams = Joi.object({ report_id: idRef.required() });

export function reportRoutes(): ApiRouter {
  const api = new ApiRouter('/api/v1/reports');

  api.route<unknown, PageRequest & { type?: ReportType; status?: string; scheduled_report_id?: string }>({
    method: 'get',
    path: '/',
    summary: 'Report history, newest first',
    tags: TAGS,
    auth: 'user',
    permission: 'view_reports',
    query: Joi.object({
      ...pageQuery,
      type: Joi.string().valid(...REPORT_TYPES),
      status: Joi.string().valid('queued', 'running', 'completed', 'failed'),
      scheduled_report_id: idRef,
    }),
    responses: { 200: { description: 'A page of reports', schema: pageOf(reportSchema) } },
    handler: async (ctx, { query }) => {
      ctx.body = mapPage(await listReports(tenantScopeOf(ctx), query, query), (row) => toReport(row));
    },
  });

  api.route<unknown, unknown, ReportOrder>({
    method: 'post',
    path: '/',
    summary: 'Generate a report (asynchronously): 202 with its id; GET it for the status and download URL',
    description:
      'Types: maintenance_compliance, webhook_health and csat cover `period` (both days included, UTC, at most 366 days); asset_health and open_alerts are snapshots as of now. ' +
      'The report runs as the workflow `report/<tenant>/<id>` and is stored in the object store; `report.completed` is emitted when it is.',
    tags: TAGS,
    auth: 'user',
    permission: 'view_reports',
    body: createBody,
    responses: { 202: { description: 'Accepted', schema: reportSchema }, 422: { description: 'Invalid type, format, period or branding' } },
    handler: async (ctx, { body }) => {
      const row = await requestReport(ctx.deps, userUnitContextOf(ctx), body);
      ctx.status = 202;
      ctx.body = toReport(row);
    },
  });

  // Static before /:report_id.
  api.route<{ file: string }, { from?: string; to?: string; branding_id?: string }>({
    method: 'get',
    path: '/direct/:file',
    summary: 'Render a report in the request and answer its bytes (e.g. /direct/open_alerts.pdf)',
    description:
      '`file` is `<type>.<pdf|xlsx>`; `from`/`to` as for POST. Meant for small reports: nothing is stored and no history is kept. ' +
      'At most 2 000 table rows (422 `REPORT_TOO_LARGE` beyond: request a report job); one render of a tenant at a time per API replica, ' +
      'one more waits up to 10 s (429 beyond, with `Retry-After`).',
    tags: TAGS,
    auth: 'user',
    permission: 'view_reports',
    params: Joi.object({
      file: Joi.string()
        .pattern(FILE_PATTERN)
        .required()
        .messages({ 'string.pattern.base': `must be <type>.<format>, type one of ${REPORT_TYPES.join(', ')}, format pdf or xlsx` }),
    }),
    query: directQuery,
    responses: {
      200: { description: 'The PDF or XLSX' },
      422: { description: 'Invalid type, format, period or branding; REPORT_TOO_LARGE: more table rows than a direct render draws' },
      429: { description: "The tenant's direct renders are at their share of this replica's content sandbox" },
    },
    handler: async (ctx, { params, query }) => {
      const { tenantId } = userOf(ctx);
      const [, type, format] = FILE_PATTERN.exec(params.file) as unknown as [string, ReportType, ReportFormat];
      const period = query.from || query.to ? { from: query.from ?? '', to: query.to ?? '' } : undefined;
      const checked = createBody.validate({ type, format, ...(period ? { period } : {}), ...(query.branding_id ? { branding_id: query.branding_id } : {}) });
      if (checked.error)
        throw new AppError('VALIDATION_ERROR', checked.error.message.replace('period', 'from/to'), {
          fields: [{ field: 'query', message: checked.error.message, type: 'any.custom' }],
        });
      const produced = await renderReport(ctx.deps, tenantId, { type, format, period: period ?? null, brandingId: query.branding_id ?? null }, 'query.branding_id');
      ctx.set('Content-Type', produced.contentType);
      ctx.set('Content-Disposition', `attachment; filename="${produced.fileName}"`);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = produced.bytes;
    },
  });

  resourceRoutes(api, { path: '/:report_id', params: reportParams, tags: TAGS, view: 'view_reports', schema: reportSchema, find: requireReport }).get(
    { summary: 'Status of a report and, when completed, a short-lived download URL', found: 'Report' },
    async (row, _scope, ctx) => toReport(row, await reportDownload(row, ctx.deps.objectStore)),
  );

  return api;
}
