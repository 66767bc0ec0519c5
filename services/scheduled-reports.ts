/**
 * Scheduled reports, without HTTP, each mirrored by the Temporal Schedule
 * `scheduled-report/<tenant>/<id>`. Every change applies the Schedule operation first, with the
 * call deadline and no transaction open, then writes the row in a short unit: a Temporal failure
 * changes nothing (503); a commit failure after a Temporal success, or a row changed by someone
 * else meanwhile, is repaired by syncing the Schedule to the committed row (docs/decisions/scheduled-reports-row-and-schedule.md).
 * api/routes/scheduled-reports.ts is the HTTP face.
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
import { validationError } from '../domain/errors';
import { callTemporal, readFromTemporal } from '../orchestration/temporal-call';
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

/** What a change's unit answers: its result, and whether the row had changed since the Schedule operation was computed from it. */
interface Committed<T> {
  value: T;
  drifted: boolean;
}

const changedSince = (locked: ScheduledReportRow, read: ScheduledReportRow) => locked.updated_at.getTime() !== read.updated_at.getTime();

/**
 * A change of a scheduled report and its Schedule: `op` (null: the Schedule is not concerned) runs
 * with the call deadline before any transaction (Temporal down or late → 503, nothing changed),
 * then `commit` writes the row in a short unit. A commit that fails after the operation, or that
 * finds the row changed since the operation was computed (a concurrent change), makes the Schedule
 * match what the database holds.
 */
async function changeWithSchedule<T>(
  deps: ScheduleDeps,
  context: UnitContext,
  id: string,
  op: ((client: Client) => Promise<void>) | null,
  commit: (unit: Unit) => Promise<Committed<T>>,
): Promise<T> {
  if (op) await callTemporal(deps.temporal, 'the schedule could not be changed', op);
  const repair = () =>
    callTemporal(deps.temporal, 'the schedule could not be repaired', async (client) => {
      const row = await scheduledReportById(tenantScope(deps.db, context.tenantId), id);
      await syncReportSchedule(client, { tenant_id: context.tenantId, id }, row ?? null);
    }).catch((err) => deps.log.error({ err, scheduledReportId: id }, 'scheduled report schedule repair failed'));
  try {
    const { value, drifted } = await runUnit(deps.db, context, commit);
    if (op && drifted) await repair();
    return value;
  } catch (err) {
    if (op) await repair();
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
  const described = await readFromTemporal(temporal, (client) => describeReportSchedule(client, row));
  return described ? described.info.nextActionTimes.slice(0, 3) : [];
}

/** Within the plan: so many scheduled reports per tenant, so many outside recipients per report (403 PLAN_LIMIT_REACHED). */
export async function createScheduledReport(deps: ScheduleDeps, context: UserUnitContext, fields: NewScheduledReport): Promise<ScheduledReportRow> {
  checkPeriodRule(fields.report_type, fields.period_rule);
  checkScheduleGap(fields.schedule, fields.time_zone);
  // Refused before Temporal is called, so a tenant at its limits creates no Schedule to remove again.
  await assertOutsideRecipientsWithinPlan(deps.db, context.tenantId, fields.recipients);
  await deps.db.transaction((tx) => assertWithinPlanLimit(tx, context.tenantId, 'scheduled_reports', countRows('scheduled_reports', context.tenantId)));
  if (fields.branding_id) await requireBrandingReference(tenantScope(deps.db, context.tenantId), fields.branding_id);
  // The id is chosen here: the Schedule is named after it before the row exists.
  const id = await newRowId(deps.db);
  const source = { id, tenant_id: context.tenantId, schedule: fields.schedule, time_zone: fields.time_zone, status: 'active' as const };
  return changeWithSchedule(
    deps,
    context,
    id,
    (client) => createReportSchedule(client, source),
    async (unit) => {
      // Again under the limit's lock: two creates racing past the check above cannot both commit.
      await assertWithinPlanLimit(unit.tx, context.tenantId, 'scheduled_reports', countRows('scheduled_reports', context.tenantId));
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
      return { value: row, drifted: false };
    },
  );
}

/** The fields sent change; the Schedule follows when its timing did. */
export async function updateScheduledReport(deps: ScheduleDeps, context: UnitContext, id: string, fields: ScheduledReportFields): Promise<ScheduledReportRow> {
  const current = await requireScheduledReport(tenantScope(deps.db, context.tenantId), id);
  checkPeriodRule(fields.report_type ?? current.report_type, fields.period_rule === undefined ? current.period_rule : fields.period_rule);
  if (fields.schedule || fields.time_zone) checkScheduleGap(fields.schedule ?? current.schedule, fields.time_zone ?? current.time_zone);
  if (fields.recipients) await assertOutsideRecipientsWithinPlan(deps.db, context.tenantId, fields.recipients);
  if (fields.branding_id) await requireBrandingReference(tenantScope(deps.db, context.tenantId), fields.branding_id);
  const next = { ...current, ...fields };
  const op = fields.schedule || fields.time_zone ? (client: Client) => updateReportSchedule(client, next) : null;
  return changeWithSchedule(deps, context, current.id, op, async (unit) => {
    const locked = await requireScheduledReport(unit.scope, current.id, true);
    const row = await updateScheduledReportRow(unit.scope, current.id, { ...fields, ...(fields.schedule ? { schedule: JSON.stringify(fields.schedule) } : {}) });
    unit.audit({ action: 'scheduled_report.updated', resourceType: 'scheduled_report', resourceId: row.id, details: { fields: Object.keys(fields) } });
    return { value: row, drifted: changedSince(locked, current) };
  });
}

export async function setScheduledReportStatus(deps: ScheduleDeps, context: UnitContext, id: string, status: ScheduledReportRow['status']): Promise<ScheduledReportRow> {
  const current = await requireScheduledReport(tenantScope(deps.db, context.tenantId), id);
  // Also when the row already has the status: the Schedule is brought in line either way.
  const op = (client: Client) => setReportSchedulePaused(client, current, status === 'paused');
  return changeWithSchedule(deps, context, current.id, op, async (unit) => {
    const locked = await requireScheduledReport(unit.scope, current.id, true);
    const next = await updateScheduledReportRow(unit.scope, current.id, { status });
    unit.audit({ action: `scheduled_report.${status === 'paused' ? 'paused' : 'resumed'}`, resourceType: 'scheduled_report', resourceId: current.id });
    return { value: next, drifted: changedSince(locked, current) };
  });
}

/** The row, its Schedule and its run history go; generated reports stay in the history. */
export async function deleteScheduledReport(deps: ScheduleDeps, context: UnitContext, id: string): Promise<void> {
  const current = await requireScheduledReport(tenantScope(deps.db, context.tenantId), id);
  await changeWithSchedule(
    deps,
    context,
    current.id,
    (client) => deleteReportSchedule(client, current),
    async (unit) => {
      await requireScheduledReport(unit.scope, current.id, true);
      await deleteScheduledReportRow(unit.scope, current.id);
      unit.audit({ action: 'scheduled_report.deleted', resourceType: 'scheduled_report', resourceId: current.id });
      return { value: undefined, drifted: false };
    },
  );
}

export async function listScheduledReportRuns(scope: TenantScope, id: string, page: PageRequest): Promise<Page<ScheduledReportRunRow>> {
  const row = await requireScheduledReport(scope, id);
  return paginate(scheduledReportRunsQuery(scope, row.id), page);
}
