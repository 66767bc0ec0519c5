/**
 * Scheduled reports, without HTTP, each mirrored by the Temporal Schedule
 * `scheduled-report/<tenant>/<id>`. Every change applies the Schedule operation inside the
 * database transaction, after the row change and before the commit: a Temporal failure rolls the
 * row back; a commit failure after a Temporal success is repaired by syncing the Schedule to the
 * committed row (docs/DECISIONS.md). api/routes/scheduled-reports.ts is the HTTP face.
 */
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import type { Db } from '../db/knex';
import {
  deleteScheduledReportRow,
  insertScheduledReport,
  newRowId,
  scheduledReportById,
  ScheduledReportRow,
  ScheduledReportRunRow,
  scheduledReportRunsQuery,
  scheduledReportsQuery,
  updateScheduledReportRow,
} from '../db/queries/report-jobs';
import { tenantScope, type TenantScope } from '../db/tenant-scope';
import { runUnit, type Unit, type UnitContext, type UserUnitContext } from '../db/unit-of-work';
import type { PeriodRule } from '../domain/reports/period';
import { cronGapProblem, type ReportScheduleSpec } from '../domain/reports/schedule';
import { assertWithinPlanLimit, countRows } from '../db/plan-limits';
import { assertOutsideRecipientsWithinPlan } from '../db/queries/outside-recipients';
import { REPORT_TYPE_INFO, type ReportFormat, type ReportType } from '../domain/reports/types';
import type { TemporalGateway } from '../infra/temporal';
import { createReportSchedule, deleteReportSchedule, describeReportSchedule, setReportSchedulePaused, syncReportSchedule, updateReportSchedule } from '../orchestration/reports';
import { AppError, validationError } from '../domain/errors';
import { errorSummary } from '../infra/error-chain';
import { findOr404 } from '../db/find-or-404';
import { paginate, type Page, type PageRequest } from '../db/pagination';
import { requireBrandingReference } from './brandings';

export interface ScheduledReportFields {
  name?: string;
  report_type?: ReportType;
  format?: ReportFormat;
  branding_id?: string | null;
  period_rule?: PeriodRule | null;
  schedule?: ReportScheduleSpec;
  time_zone?: string;
  recipients?: string[];
}

/** A new scheduled report: what the create call requires (its time zone defaults to UTC before it comes here). */
export type NewScheduledReport = ScheduledReportFields & Required<Pick<ScheduledReportFields, 'name' | 'report_type' | 'format' | 'schedule' | 'time_zone' | 'recipients'>>;

/** What a change needs besides its unit: the database, Temporal, and where a failed repair is logged. */
export interface ScheduleDeps {
  db: Db;
  temporal: TemporalGateway;
  log: Pick<Logger, 'error'>;
}

/** The period rule must match the (possibly changed) type: required by period reports, refused by snapshots. */
function checkPeriodRule(type: ReportType, rule: PeriodRule | null | undefined): void {
  const needs = REPORT_TYPE_INFO[type].needsPeriod;
  if (needs && !rule)
    throw validationError(`period_rule is required for ${type} reports`, [{ field: 'body.period_rule', message: 'required for this report type', type: 'any.required' }]);
  if (!needs && rule)
    throw validationError(`${type} is a snapshot and takes no period_rule`, [{ field: 'body.period_rule', message: 'not used by this report type', type: 'any.unknown' }]);
}

/** A cron must fire at least MIN_INTERVAL_MINUTES apart in its time zone (422 on `schedule` otherwise). */
function checkScheduleGap(spec: ReportScheduleSpec, timeZone: string): void {
  const problem = 'cron' in spec ? cronGapProblem(spec.cron, timeZone) : null;
  if (problem) throw validationError(`schedule ${problem}`, [{ field: 'body.schedule', message: problem, type: 'schedule.gap' }]);
}

function requireScheduledReport(scope: TenantScope, id: string, lock = false): Promise<ScheduledReportRow> {
  return findOr404('scheduled report', id, () => scheduledReportById(scope, id, lock));
}

const temporalUnavailable = (err: unknown) => new AppError('DEPENDENCY_UNAVAILABLE', `the schedule could not be changed: ${errorSummary(err)}`, { component: 'temporal' });

/**
 * A change of a scheduled report and its Schedule as one: `work` changes the row and then calls
 * `apply(op)` with the Temporal operation. A failing operation rolls the row back (503); a commit
 * that fails after the operation succeeded re-syncs the Schedule to what the database holds.
 */
async function changeWithSchedule<T>(
  deps: ScheduleDeps,
  context: UnitContext,
  id: string,
  work: (unit: Unit, apply: (op: (client: Client) => Promise<void>) => Promise<void>) => Promise<T>,
): Promise<T> {
  const { tenantId } = context;
  const client = await deps.temporal.client().catch((err) => {
    throw temporalUnavailable(err);
  });
  let applied = false;
  try {
    return await runUnit(deps.db, context, (unit) =>
      work(unit, async (op) => {
        await op(client).catch((err) => {
          throw temporalUnavailable(err);
        });
        applied = true;
      }),
    );
  } catch (err) {
    if (applied) {
      const row = await scheduledReportById(tenantScope(deps.db, tenantId), id);
      await syncReportSchedule(client, { tenant_id: tenantId, id }, row ?? null).catch((syncErr) =>
        deps.log.error({ err: syncErr, scheduledReportId: id }, 'scheduled report schedule repair failed'),
      );
    }
    throw err;
  }
}

export function listScheduledReports(scope: TenantScope, page: PageRequest): Promise<Page<ScheduledReportRow>> {
  return paginate(scheduledReportsQuery(scope), page);
}

/** A scheduled report of the tenant, or 404. */
export function findScheduledReport(scope: TenantScope, id: string): Promise<ScheduledReportRow> {
  return requireScheduledReport(scope, id);
}

/** The next three run times from the report's Schedule (none when Temporal does not answer). */
export async function scheduledReportNextRuns(temporal: TemporalGateway, row: ScheduledReportRow): Promise<Date[]> {
  const described = await temporal
    .client()
    .then((client) => describeReportSchedule(client, row))
    .catch(() => null);
  return described ? described.info.nextActionTimes.slice(0, 3) : [];
}

/** Within the plan: so many scheduled reports per tenant, so many outside recipients per report (403 PLAN_LIMIT_REACHED). */
export async function createScheduledReport(deps: ScheduleDeps, context: UserUnitContext, fields: NewScheduledReport): Promise<ScheduledReportRow> {
  checkPeriodRule(fields.report_type, fields.period_rule);
  checkScheduleGap(fields.schedule, fields.time_zone);
  // The id is chosen here so a failed commit can find (and remove) the Schedule it named.
  const id = await newRowId(deps.db);
  return changeWithSchedule(deps, context, id, async (unit, apply) => {
    await assertWithinPlanLimit(unit.tx, context.tenantId, 'scheduled_reports', countRows('scheduled_reports', context.tenantId));
    await assertOutsideRecipientsWithinPlan(unit.tx, context.tenantId, fields.recipients);
    if (fields.branding_id) await requireBrandingReference(unit.scope, fields.branding_id);
    const row = await insertScheduledReport(unit.scope, {
      id,
      ...fields,
      period_rule: fields.period_rule ?? null,
      schedule: JSON.stringify(fields.schedule),
      created_by: context.userId,
    });
    unit.audit({
      action: 'scheduled_report.created',
      resourceType: 'scheduled_report',
      resourceId: row.id,
      details: { report_type: row.report_type, recipients: row.recipients.length },
    });
    await apply((client) => createReportSchedule(client, row));
    return row;
  });
}

/** The fields sent change; the Schedule follows when its timing did. */
export function updateScheduledReport(deps: ScheduleDeps, context: UnitContext, id: string, fields: ScheduledReportFields): Promise<ScheduledReportRow> {
  return changeWithSchedule(deps, context, id, async (unit, apply) => {
    const current = await requireScheduledReport(unit.scope, id, true);
    checkPeriodRule(fields.report_type ?? current.report_type, fields.period_rule === undefined ? current.period_rule : fields.period_rule);
    if (fields.schedule || fields.time_zone) checkScheduleGap(fields.schedule ?? current.schedule, fields.time_zone ?? current.time_zone);
    if (fields.recipients) await assertOutsideRecipientsWithinPlan(unit.tx, context.tenantId, fields.recipients);
    if (fields.branding_id) await requireBrandingReference(unit.scope, fields.branding_id);
    const row = await updateScheduledReportRow(unit.scope, current.id, { ...fields, ...(fields.schedule ? { schedule: JSON.stringify(fields.schedule) } : {}) });
    unit.audit({ action: 'scheduled_report.updated', resourceType: 'scheduled_report', resourceId: row.id, details: { fields: Object.keys(fields) } });
    if (fields.schedule || fields.time_zone) await apply((client) => updateReportSchedule(client, row));
    return row;
  });
}

export function setScheduledReportStatus(deps: ScheduleDeps, context: UnitContext, id: string, status: ScheduledReportRow['status']): Promise<ScheduledReportRow> {
  return changeWithSchedule(deps, context, id, async (unit, apply) => {
    const current = await requireScheduledReport(unit.scope, id, true);
    const next = await updateScheduledReportRow(unit.scope, current.id, { status });
    unit.audit({ action: `scheduled_report.${status === 'paused' ? 'paused' : 'resumed'}`, resourceType: 'scheduled_report', resourceId: current.id });
    // Also when the row already had the status: the Schedule is brought in line either way.
    await apply((client) => setReportSchedulePaused(client, next, status === 'paused'));
    return next;
  });
}

/** The row, its Schedule and its run history go; generated reports stay in the history. */
export function deleteScheduledReport(deps: ScheduleDeps, context: UnitContext, id: string): Promise<void> {
  return changeWithSchedule(deps, context, id, async (unit, apply) => {
    const current = await requireScheduledReport(unit.scope, id, true);
    await deleteScheduledReportRow(unit.scope, current.id);
    unit.audit({ action: 'scheduled_report.deleted', resourceType: 'scheduled_report', resourceId: current.id });
    await apply((client) => deleteReportSchedule(client, current));
  });
}

export async function listScheduledReportRuns(scope: TenantScope, id: string, page: PageRequest): Promise<Page<ScheduledReportRunRow>> {
  const row = await requireScheduledReport(scope, id);
  return paginate(scheduledReportRunsQuery(scope, row.id), page);
}
