import Joi from '../../domain/joi';
import { Client } from '@temporalio/client';
import { ScheduledReportRow } from '../../db/queries/report-jobs';
import { tenantScope, TenantScope } from '../../db/tenant-scope';
import { isValidTimeZone, PERIOD_RULES, PeriodRule } from '../../domain/reports/period';
import { cronProblem, MIN_INTERVAL_MINUTES, ReportScheduleSpec } from '../../domain/reports/schedule';
import { REPORT_FORMATS, REPORT_TYPE_INFO, REPORT_TYPES, ReportFormat, ReportType } from '../../domain/reports/types';
import { createReportSchedule, deleteReportSchedule, describeReportSchedule, setReportSchedulePaused, syncReportSchedule, updateReportSchedule } from '../../orchestration/reports';
import { AppContext, userOf } from '../context';
import { AppError, errorSummary, validationError } from '../errors';
import { actorOf, MutationUnit, runMutation } from '../mutation';
import { pageQuery, paginate, PageRequest, pageOf } from '../pagination';
import { ApiRouter } from '../route';
import { requireBrandingReference } from './brandings';
import { idRef } from '../validation';
import { findOr404 } from '../find-or-404';
import { isoTime } from '../../domain/time';

/**
 * Scheduled reports, each mirrored by the Temporal Schedule `scheduled-report/<tenant>/<id>`.
 * Every change applies the Schedule operation inside the database transaction, after the row
 * change and before the commit: a Temporal failure rolls the row back; a commit failure after a
 * Temporal success is repaired by syncing the Schedule to the committed row (docs/DECISIONS.md).
 */

const TAGS = ['reports'];

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

type Body = {
  name?: string;
  report_type?: ReportType;
  format?: ReportFormat;
  branding_id?: string | null;
  period_rule?: PeriodRule | null;
  schedule?: ReportScheduleSpec;
  time_zone?: string;
  recipients?: string[];
};

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

/** The period rule must match the (possibly changed) type: required by period reports, refused by snapshots. */
function checkPeriodRule(type: ReportType, rule: PeriodRule | null | undefined): void {
  const needs = REPORT_TYPE_INFO[type].needsPeriod;
  if (needs && !rule)
    throw validationError(`period_rule is required for ${type} reports`, [{ field: 'body.period_rule', message: 'required for this report type', type: 'any.required' }]);
  if (!needs && rule)
    throw validationError(`${type} is a snapshot and takes no period_rule`, [{ field: 'body.period_rule', message: 'not used by this report type', type: 'any.unknown' }]);
}

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

function requireScheduledReport(scope: TenantScope, id: string, lock = false): Promise<ScheduledReportRow> {
  return findOr404('scheduled report', id, () => {
    const q = scope.table('scheduled_reports').where('id', id).first();
    return lock ? q.forUpdate() : q;
  });
}

const temporalUnavailable = (err: unknown) => new AppError('DEPENDENCY_UNAVAILABLE', `the schedule could not be changed: ${errorSummary(err)}`, { component: 'temporal' });

/**
 * A change of a scheduled report and its Schedule as one: `work` changes the row and then calls
 * `apply(op)` with the Temporal operation. A failing operation rolls the row back (503); a commit
 * that fails after the operation succeeded re-syncs the Schedule to what the database holds.
 */
async function changeWithSchedule<T>(
  ctx: AppContext,
  id: string,
  work: (unit: MutationUnit, apply: (op: (client: Client) => Promise<void>) => Promise<void>) => Promise<T>,
): Promise<T> {
  const { tenantId } = userOf(ctx);
  const client = await ctx.deps.temporal.client().catch((err) => {
    throw temporalUnavailable(err);
  });
  let applied = false;
  try {
    return await runMutation(ctx, tenantId, actorOf(ctx), (unit) =>
      work(unit, async (op) => {
        await op(client).catch((err) => {
          throw temporalUnavailable(err);
        });
        applied = true;
      }),
    );
  } catch (err) {
    if (applied) {
      const row = await ctx.deps.db('scheduled_reports').where({ tenant_id: tenantId, id }).first();
      await syncReportSchedule(client, { tenant_id: tenantId, id }, row ?? null).catch((syncErr) =>
        ctx.state.log.error({ err: syncErr, scheduledReportId: id }, 'scheduled report schedule repair failed'),
      );
    }
    throw err;
  }
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
      const q = tenantScope(ctx.deps.db, userOf(ctx).tenantId)
        .table('scheduled_reports')
        .select('*')
        .orderBy([{ column: 'created_at' }, { column: 'id' }]);
      ctx.body = await paginate(q, query, (row: ScheduledReportRow) => toScheduledReport(row));
    },
  });

  api.route<unknown, unknown, Body>({
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
      const { userId } = userOf(ctx);
      checkPeriodRule(body.report_type as ReportType, body.period_rule);
      // The id is chosen here so a failed commit can find (and remove) the Schedule it named.
      const id = (await ctx.deps.db.raw('select gen_random_uuid() as id')).rows[0].id as string;
      const created = await changeWithSchedule(ctx, id, async (unit, apply) => {
        if (body.branding_id) await requireBrandingReference(unit.scope, body.branding_id);
        const [row] = (await unit.scope.insert('scheduled_reports', {
          id,
          ...body,
          period_rule: body.period_rule ?? null,
          schedule: JSON.stringify(body.schedule),
          created_by: userId,
        })) as ScheduledReportRow[];
        unit.audit({
          action: 'scheduled_report.created',
          resourceType: 'scheduled_report',
          resourceId: row.id,
          details: { report_type: row.report_type, recipients: row.recipients.length },
        });
        await apply((client) => createReportSchedule(client, row));
        return row;
      });
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
      const row = await requireScheduledReport(tenantScope(ctx.deps.db, userOf(ctx).tenantId), p.scheduled_report_id);
      const described = await ctx.deps.temporal
        .client()
        .then((client) => describeReportSchedule(client, row))
        .catch(() => null);
      ctx.body = toScheduledReport(row, described ? described.info.nextActionTimes.slice(0, 3) : []);
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
        const updated = await changeWithSchedule(ctx, p.scheduled_report_id, async (unit, apply) => {
          const current = await requireScheduledReport(unit.scope, p.scheduled_report_id, true);
          checkPeriodRule(body.report_type ?? current.report_type, body.period_rule === undefined ? current.period_rule : body.period_rule);
          if (body.branding_id) await requireBrandingReference(unit.scope, body.branding_id);
          const [row] = (await unit.scope
            .table('scheduled_reports')
            .where('id', current.id)
            .update({ ...body, ...(body.schedule ? { schedule: JSON.stringify(body.schedule) } : {}), updated_at: new Date() })
            .returning('*')) as ScheduledReportRow[];
          unit.audit({ action: 'scheduled_report.updated', resourceType: 'scheduled_report', resourceId: row.id, details: { fields: Object.keys(body) } });
          if (body.schedule || body.time_zone) await apply((client) => updateReportSchedule(client, row));
          return row;
        });
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
        const row = await changeWithSchedule(ctx, p.scheduled_report_id, async (unit, apply) => {
          const current = await requireScheduledReport(unit.scope, p.scheduled_report_id, true);
          const [next] = (await unit.scope.table('scheduled_reports').where('id', current.id).update({ status, updated_at: new Date() }).returning('*')) as ScheduledReportRow[];
          unit.audit({ action: `scheduled_report.${action === 'pause' ? 'paused' : 'resumed'}`, resourceType: 'scheduled_report', resourceId: current.id });
          // Also when the row already had the status: the Schedule is brought in line either way.
          await apply((client) => setReportSchedulePaused(client, next, status === 'paused'));
          return next;
        });
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
      await changeWithSchedule(ctx, p.scheduled_report_id, async (unit, apply) => {
        const current = await requireScheduledReport(unit.scope, p.scheduled_report_id, true);
        await unit.scope.table('scheduled_reports').where('id', current.id).delete();
        unit.audit({ action: 'scheduled_report.deleted', resourceType: 'scheduled_report', resourceId: current.id });
        await apply((client) => deleteReportSchedule(client, current));
      });
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
      const scope = tenantScope(ctx.deps.db, userOf(ctx).tenantId);
      const row = await requireScheduledReport(scope, p.scheduled_report_id);
      const q = scope
        .table('scheduled_report_runs')
        .where('scheduled_report_id', row.id)
        .select('*')
        .orderBy([
          { column: 'started_at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ]);
      ctx.body = await paginate(q, query, toRun);
    },
  });

  return api;
}

interface RunRow {
  id: string;
  report_id: string | null;
  status: 'running' | 'sent' | 'recorded' | 'failed';
  sent_to: number;
  error: string | null;
  started_at: Date;
  finished_at: Date | null;
}

function toRun(row: RunRow) {
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
