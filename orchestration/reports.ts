/**
 * Client side of reports: the on-demand report workflow start, and the Temporal Schedule that
 * mirrors each scheduled report (`scheduled-report/<tenant>/<id>`). The scheduled_reports row is
 * the source of truth; `syncReportSchedule` makes the Schedule match it whatever state either is in.
 */
import { Client, ScheduleAlreadyRunning, ScheduleDescription, ScheduleNotFoundError, ScheduleOverlapPolicy, ScheduleSpec } from '@temporalio/client';
import type { ScheduledReportRow } from '../db/queries/report-jobs';
import { temporalSpecOf } from '../domain/reports/schedule';
import { resourceSearchAttributes } from '../infra/search-attributes';
import { tenantPriority } from '../infra/task-fairness';
import { TASK_QUEUES } from '../infra/task-queues';
import { startOnce } from './start-once';
import { workflowIds } from '../infra/workflow-ids';
import type { reportWorkflow } from '../workflows/report';
import type { scheduledReportWorkflow } from '../workflows/scheduled-report';

type ScheduleSource = Pick<ScheduledReportRow, 'id' | 'tenant_id' | 'schedule' | 'time_zone' | 'status'>;

export async function startReport(client: Client, tenantId: string, reportId: string): Promise<void> {
  await startOnce<typeof reportWorkflow>(client, {
    workflowType: 'reportWorkflow',
    taskQueue: TASK_QUEUES.main,
    workflowId: workflowIds.report(tenantId, reportId),
    args: [{ tenantId, reportId }],
    tenantId,
    resourceId: reportId,
  });
}

// Durations such as "90m" are what ScheduleSpec's template type expects.
const specOf = (row: ScheduleSource) => temporalSpecOf(row.schedule, row.time_zone) as ScheduleSpec;

const scheduleIdOf = (row: Pick<ScheduleSource, 'tenant_id' | 'id'>) => workflowIds.scheduledReport(row.tenant_id, row.id);

function actionOf(row: ScheduleSource) {
  return {
    type: 'startWorkflow' as const,
    workflowType: 'scheduledReportWorkflow',
    workflowId: scheduleIdOf(row),
    taskQueue: TASK_QUEUES.main,
    args: [{ tenantId: row.tenant_id, scheduledReportId: row.id }] as Parameters<typeof scheduledReportWorkflow>,
    typedSearchAttributes: resourceSearchAttributes(row.tenant_id, row.id),
    priority: tenantPriority(row.tenant_id),
  };
}

/** Creates the Schedule of a new scheduled report (paused when the row is). */
export async function createReportSchedule(client: Client, row: ScheduleSource): Promise<void> {
  await client.schedule.create({
    scheduleId: scheduleIdOf(row),
    spec: specOf(row),
    // A run still going when the next is due: the next is skipped; a worker outage catches up one hour.
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 hour' },
    state: { paused: row.status === 'paused' },
    action: actionOf(row),
  });
}

/** New spec (cron/interval, time zone); the pause state is left to pause/unpause. */
export async function updateReportSchedule(client: Client, row: ScheduleSource): Promise<void> {
  await client.schedule.getHandle(scheduleIdOf(row)).update((previous) => ({
    ...previous,
    spec: specOf(row),
    action: actionOf(row),
  }));
}

export async function setReportSchedulePaused(client: Client, row: ScheduleSource, paused: boolean): Promise<void> {
  const handle = client.schedule.getHandle(scheduleIdOf(row));
  if (paused) await handle.pause('paused through the API');
  else await handle.unpause('resumed through the API');
}

/** Deletes the Schedule; one already gone is fine. */
export async function deleteReportSchedule(client: Client, row: Pick<ScheduleSource, 'tenant_id' | 'id'>): Promise<void> {
  await client.schedule
    .getHandle(scheduleIdOf(row))
    .delete()
    .catch((err: Error) => {
      if (!(err instanceof ScheduleNotFoundError)) throw err;
    });
}

export async function describeReportSchedule(client: Client, row: Pick<ScheduleSource, 'tenant_id' | 'id'>): Promise<ScheduleDescription | null> {
  try {
    return await client.schedule.getHandle(scheduleIdOf(row)).describe();
  } catch (err) {
    if (err instanceof ScheduleNotFoundError) return null;
    throw err;
  }
}

/**
 * Makes the Schedule match the row: created when missing, spec and pause state set, deleted when
 * the row is gone (`row` null). Used to repair the rare case of a Temporal change whose database
 * commit then failed.
 */
export async function syncReportSchedule(client: Client, key: { tenant_id: string; id: string }, row: ScheduleSource | null): Promise<void> {
  if (!row) return deleteReportSchedule(client, key);
  const current = await describeReportSchedule(client, row);
  if (!current) {
    await createReportSchedule(client, row).catch((err: Error) => {
      if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    });
    return;
  }
  await updateReportSchedule(client, row);
  if (current.state.paused !== (row.status === 'paused')) await setReportSchedulePaused(client, row, row.status === 'paused');
}
