import Joi from '../../domain/joi';
import { temporalUnavailableResponse } from '../../orchestration/temporal-call';
import { ScheduledReportRow, ScheduledReportRunRow } from '../../db/queries/report-jobs';
import { isValidTimeZone, PERIOD_RULES } from '../../domain/reports/period';
import { cronProblem, MIN_INTERVAL_MINUTES } from '../../domain/reports/schedule';
import { REPORT_FORMATS, REPORT_TYPES } from '../../domain/reports/types';
import {
  createScheduledReport,
  deleteScheduledReport,
  findScheduledReport,
  listScheduledReportRuns,
  listScheduledReports,
  NewScheduledReport,
  ScheduleDeps,
  ScheduledReportFields,
  scheduledReportNextRuns,
  setScheduledReportStatus,
  updateScheduledReport,
} from '../../services/scheduled-reports';
import { tenantScopeOf, AppContext } from '../context';
import { userUnitContextOf } from '../mutation';
import { mapPage, PageRequest } from '../../db/pagination';
import { pageQuery } from '../pagination';
import { resourceRoutes } from '../resource-routes';
import { ApiRouter } from '../route';
import { idRef } from '../validation';
import { isoTime } from '../../domain/time';

/**
 * Scheduled reports, each mirrored by the Temporal Schedule `scheduled-report/<tenant>/<id>`;
 * services/scheduled-reports.ts keeps the row and its Schedule in step (docs/decisions/scheduled-reports-row-and-schedule.md).
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
  .description(
    `{"cron": "0 6 1 * *"} or {"interval_minutes": n} (n >= ${MIN_INTERVAL_MINUTES}), read in time_zone. A cron must fire at least ${MIN_INTERVAL_MINUTES} minutes apart everywhere, clock changes of time_zone included ("*/15 * * * *" passes, "*/5 * * * *" and "0,5 * * * *" are 422)`,
  );

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
    .unique()
    .description(
      "Outside recipients (addresses that are not an active user of the tenant) are limited per report by the plan (403 PLAN_LIMIT_REACHED above it) and per tenant and UTC day when mailed (the rest of a run's outside recipients are withheld, listed in the run's `withheld`)",
    ),
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
  const changeOf = (ctx: AppContext) => [scheduleDeps(ctx), userUnitContextOf(ctx)] as const;

  const report = resourceRoutes(api, {
    path: '/:scheduled_report_id',
    tags: TAGS,
    view: 'view_reports',
    manage: 'manage_reports',
    schema: scheduledReportSchema,
    find: findScheduledReport,
    present: (row) => toScheduledReport(row),
  });
  report.list({ summary: 'List scheduled reports', found: 'A page of scheduled reports', load: listScheduledReports });
  report.create<NewScheduledReport>(
    {
      summary: 'Create a scheduled report and its Temporal Schedule',
      description:
        'Each run generates the report (period from `period_rule` on the local day of the run in `time_zone`), stores it and e-mails it to `recipients` as an attachment, from the platform address with the tenant named in the From display name, the `X-Tenant-Id` and `X-Sent-On-Behalf-Of` headers and a closing line; runs are listed under /{id}/runs. The plan caps the scheduled reports of a tenant and their outside recipients.',
      body: createBody,
      created: 'Created',
      responses: {
        403: { description: 'PLAN_LIMIT_REACHED: the plan allows no more scheduled reports, or fewer outside recipients per report' },
        422: { description: 'Invalid field, or a cron firing less than 15 minutes apart' },
        503: temporalUnavailableResponse('nothing was created'),
      },
    },
    (ctx, body) => {
      return createScheduledReport(scheduleDeps(ctx), userUnitContextOf(ctx), body);
    },
  );
  report.get({ summary: 'Get a scheduled report with its next run times', found: 'Scheduled report' }, async (row, _scope, ctx) =>
    toScheduledReport(row, await scheduledReportNextRuns(ctx.deps.temporal, row)),
  );

  for (const method of ['put', 'patch'] as const) {
    report.update<Body>(
      {
        method,
        summary: 'Update the fields sent (the Schedule is updated with them); omitted fields keep their values',
        body: updateBody,
        updated: 'Updated',
        responses: {
          403: { description: 'PLAN_LIMIT_REACHED: more outside recipients than the plan allows per report' },
          422: { description: 'Invalid field, or a cron firing less than 15 minutes apart' },
          503: temporalUnavailableResponse('nothing changed'),
        },
      },
      (ctx, id, body) => updateScheduledReport(...changeOf(ctx), id, body),
    );
  }

  for (const [action, status] of [
    ['pause', 'paused'],
    ['resume', 'active'],
  ] as const) {
    report.route({
      method: 'post',
      sub: action,
      summary: action === 'pause' ? 'Pause the schedule (no runs until resumed)' : 'Resume a paused schedule',
      access: 'manage',
      responses: { 200: { description: 'The scheduled report', schema: scheduledReportSchema }, 503: temporalUnavailableResponse('nothing changed') },
      handler: async (ctx, { params: p }) => {
        ctx.body = toScheduledReport(await setScheduledReportStatus(...changeOf(ctx), p.scheduled_report_id, status));
      },
    });
  }

  report.remove(
    {
      summary: 'Delete a scheduled report, its Schedule and its run history (generated reports stay in the history)',
      responses: { 503: temporalUnavailableResponse('nothing was deleted') },
    },
    (ctx, id) => deleteScheduledReport(...changeOf(ctx), id),
  );

  report.route<{ scheduled_report_id: string }, PageRequest>({
    method: 'get',
    sub: 'runs',
    summary: 'Run history of a scheduled report, newest first',
    access: 'view',
    query: Joi.object(pageQuery),
    responses: {
      200: {
        description:
          'A page of runs: `status` running | sent | recorded (no SMTP) | withheld (every recipient withheld) | failed; `sent_to` how many addresses were mailed; `withheld` the recipients the plan kept from the run, each with its reason (outside_recipients_per_schedule, outside_recipients_per_day)',
      },
    },
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
    withheld: row.recipients_withheld,
    error: row.error,
    started_at: isoTime(row.started_at),
    finished_at: isoTime(row.finished_at),
  };
}
