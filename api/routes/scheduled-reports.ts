import Joi from '../../domain/joi';
import { ScheduledReportRow, ScheduledReportRunRow } from '../../db/queries/report-jobs';
import { isValidTimeZone, PERIOD_RULES } from '../../domain/reports/period';
import { cronProblem, MIN_INTERVAL_MINUTES } from '../../domain/reports/schedule';
import { REPORT_FORMATS, REPORT_TYPES } from '../../domain/reports/types';
import {
  createScheduledReport,
  deleteScheduledReport,
  getScheduledReport,
  listScheduledReportRuns,
  listScheduledReports,
  NewScheduledReport,
  ScheduleDeps,
  ScheduledReportFields,
  setScheduledReportStatus,
  updateScheduledReport,
} from '../../services/scheduled-reports';
import { tenantScopeOf, AppContext, userOf } from '../context';
import { unitContextOf } from '../mutation';
import { mapPage, PageRequest } from '../../db/pagination';
import { pageQuery, pageOf } from '../pagination';
import { ApiRouter } from '../route';
import { idRef } from '../validation';
import { isoTime } from '../../domain/time';

/**
 * Scheduled reports, each mirrored by the Temporal Schedule `scheduled-report/<tenant>/<id>`;
 * services/scheduled-reports.ts keeps the row and its Schedule in step (docs/DECISIONS.md).
 */

const TAGS = ['reports'];

/** What a scheduled report's change needs of the request: the database, Temporal and its log. */
const scheduleDeps = (ctx: AppContext): ScheduleDeps => ({ db: ctx.deps.db, temporal: ctx.deps.temporal, log: ctx.state.log });

const scheduleSpec = Joi.alternatives()
  .try(
    Joi.object({
      cron: Joi.string()
        .trim()
        .max(120)
        .required()
        .custom((value: string, h) => {
          const problem = cronProblem(value);
          return problem ? h.message({ custom: problem }) : value;
        }),
    }),
    Joi.object({
      interval_minutes: Joi.number()
        .integer()
        .min(MIN_INTERVAL_MINUTES)
        .max(60 * 24 * 92)
        .required(),
    }),
  )
  .messages({ 'alternatives.match': 'must be an object with either cron (five fields) or interval_minutes' })
  .description(`{"cron": "0 6 1 * *"} or {"interval_minutes": n} (n >= ${MIN_INTERVAL_MINUTES}), read in time_zone`);

const fields = {
  name: Joi.string().trim().min(1).max(200),
  report_type: Joi.string().valid(...REPORT_TYPES),
  format: Joi.string().valid(...REPORT_FORMATS),
  branding_id: idRef.allow(null),
  period_rule: Joi.string()
    .valid(...PERIOD_RULES)
    .allow(null)
    .description('Required by period reports (maintenance_compliance, webhook_health, csat); resolved on the local day of each run'),
  schedule: scheduleSpec,
  time_zone: Joi.string()
    .max(64)
    .custom((value: string, h) => (isValidTimeZone(value) ? value : h.message({ custom: 'must be an IANA time zone such as Europe/Berlin' }))),
  recipients: Joi.array()
    .items(Joi.string().trim().lowercase().email({ tlds: false }).max(254))
    .min(1)
    .max(50)
    .unique(),
};

type Body = ScheduledReportFields;

const createBody = Joi.object({
  ...fields,
  name: fields.name.required(),
  report_type: fields.report_type.required(),
  format: fields.format.required(),
  schedule: scheduleSpec.required(),
  time_zone: fields.time_zone.default('UTC'),
  recipients: fields.recipients.required(),
});
const updateBody = Joi.object(fields).min(1);
const params = Joi.object({ scheduled_report_id: idRef.required() });

export const scheduledReportSchema = Joi.object({
  id: Joi.string(),
  name: Joi.string(),
  report_type: Joi.string(),
  format: Joi.string(),
  branding_id: Joi.string().allow(null),
  period_rule: Joi.string().allow(null),
  schedule: Joi.object(),
  time_zone: Joi.string(),
  recipients: Joi.array().items(Joi.string()),
  status: Joi.string().valid('active', 'paused'),
  schedule_id: Joi.string(),
  next_runs: Joi.array().items(Joi.string().isoDate()).description('From the Temporal Schedule (GET of one scheduled report only)'),
  created_at: Joi.string().isoDate(),
  updated_at: Joi.string().isoDate(),
});

export function toScheduledReport(row: ScheduledReportRow, nextRuns?: Date[]) {
  return {
    id: row.id,
    name: row.name,
    report_type: row.report_type,
    format: row.format,
    branding_id: row.branding_id,
    period_rule: row.period_rule,
    schedule: row.schedule,
    time_zone: row.time_zone,
    recipients: row.recipients,
    status: row.status,
    schedule_id: `scheduled-report/${row.tenant_id}/${row.id}`,
    ...(nextRuns ? { next_runs: nextRuns.map((d) => d.toISOString()) } : {}),
    created_at: isoTime(row.created_at),
    updated_at: isoTime(row.updated_at),
  };
}

export function scheduledReportRoutes(): ApiRouter {
  const api = new ApiRouter('/api/v1/scheduled-reports');

  api.route<unknown, PageRequest>({
    method: 'get',
    path: '/',
    summary: 'List scheduled reports',
    tags: TAGS,
    auth: 'user',
    permission: 'view_reports',
    query: Joi.object(pageQuery),
    responses: { 200: { description: 'A page of scheduled reports', schema: pageOf(scheduledReportSchema) } },
    handler: async (ctx, { query }) => {
      ctx.body = mapPage(await listScheduledReports(tenantScopeOf(ctx), query), (row) => toScheduledReport(row));
    },
  });

  api.route<unknown, unknown, NewScheduledReport>({
    method: 'post',
    path: '/',
    summary: 'Create a scheduled report and its Temporal Schedule',
    description:
      'Each run generates the report (period from `period_rule` on the local day of the run in `time_zone`), stores it and e-mails it to `recipients` as an attachment; runs are listed under /{id}/runs.',
    tags: TAGS,
    auth: 'user',
    permission: 'manage_reports',
    body: createBody,
    responses: {
      201: { description: 'Created', schema: scheduledReportSchema },
      422: { description: 'Invalid field' },
      503: { description: 'Temporal unavailable: nothing was created' },
    },
    handler: async (ctx, { body }) => {
      const { tenantId, userId } = userOf(ctx);
      const created = await createScheduledReport(scheduleDeps(ctx), { ...unitContextOf(ctx, tenantId), userId }, body);
      ctx.status = 201;
      ctx.body = toScheduledReport(created);
    },
  });

  api.route<{ scheduled_report_id: string }>({
    method: 'get',
    path: '/:scheduled_report_id',
    summary: 'Get a scheduled report with its next run times',
    tags: TAGS,
    auth: 'user',
    permission: 'view_reports',
    params,
    responses: { 200: { description: 'Scheduled report', schema: scheduledReportSchema }, 404: { description: 'Not found' } },
    handler: async (ctx, { params: p }) => {
      const { row, nextRuns } = await getScheduledReport(tenantScopeOf(ctx), ctx.deps.temporal, p.scheduled_report_id);
      ctx.body = toScheduledReport(row, nextRuns);
    },
  });

  for (const method of ['put', 'patch'] as const) {
    api.route<{ scheduled_report_id: string }, unknown, Body>({
      method,
      path: '/:scheduled_report_id',
      summary: 'Update the fields sent (the Schedule is updated with them); omitted fields keep their values',
      tags: TAGS,
      auth: 'user',
      permission: 'manage_reports',
      params,
      body: updateBody,
      responses: { 200: { description: 'Updated', schema: scheduledReportSchema }, 404: { description: 'Not found' }, 422: { description: 'Invalid field' } },
      handler: async (ctx, { params: p, body }) => {
        const updated = await updateScheduledReport(scheduleDeps(ctx), unitContextOf(ctx, userOf(ctx).tenantId), p.scheduled_report_id, body);
        ctx.body = toScheduledReport(updated);
      },
    });
  }

  for (const [action, status] of [
    ['pause', 'paused'],
    ['resume', 'active'],
  ] as const) {
    api.route<{ scheduled_report_id: string }>({
      method: 'post',
      path: `/:scheduled_report_id/${action}`,
      summary: action === 'pause' ? 'Pause the schedule (no runs until resumed)' : 'Resume a paused schedule',
      tags: TAGS,
      auth: 'user',
      permission: 'manage_reports',
      params,
      responses: { 200: { description: 'The scheduled report', schema: scheduledReportSchema }, 404: { description: 'Not found' } },
      handler: async (ctx, { params: p }) => {
        const row = await setScheduledReportStatus(scheduleDeps(ctx), unitContextOf(ctx, userOf(ctx).tenantId), p.scheduled_report_id, status);
        ctx.body = toScheduledReport(row);
      },
    });
  }

  api.route<{ scheduled_report_id: string }>({
    method: 'delete',
    path: '/:scheduled_report_id',
    summary: 'Delete a scheduled report, its Schedule and its run history (generated reports stay in the history)',
    tags: TAGS,
    auth: 'user',
    permission: 'manage_reports',
    params,
    responses: { 204: { description: 'Deleted' }, 404: { description: 'Not found' } },
    handler: async (ctx, { params: p }) => {
      await deleteScheduledReport(scheduleDeps(ctx), unitContextOf(ctx, userOf(ctx).tenantId), p.scheduled_report_id);
      ctx.status = 204;
    },
  });

  api.route<{ scheduled_report_id: string }, PageRequest>({
    method: 'get',
    path: '/:scheduled_report_id/runs',
    summary: 'Run history of a scheduled report, newest first',
    tags: TAGS,
    auth: 'user',
    permission: 'view_reports',
    params,
    query: Joi.object(pageQuery),
    responses: { 200: { description: 'A page of runs' }, 404: { description: 'Not found' } },
    handler: async (ctx, { params: p, query }) => {
      ctx.body = mapPage(await listScheduledReportRuns(tenantScopeOf(ctx), p.scheduled_report_id, query), toRun);
    },
  });

  return api;
}

function toRun(row: ScheduledReportRunRow) {
  return {
    id: row.id,
    report_id: row.report_id,
    status: row.status,
    sent_to: row.sent_to,
    error: row.error,
    started_at: isoTime(row.started_at),
    finished_at: isoTime(row.finished_at),
  };
}
