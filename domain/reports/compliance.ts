/**
 * Maintenance compliance report: the tasks due in the period judged by the maintenance rules
 * (domain/maintenance/compliance.ts: on time until its grace deadline), overall, by UTC
 * month and by plan, plus the list of late and overdue tasks.
 */
import { classifyTask, ComplianceTask, computeCompliance } from '../maintenance/compliance';
import { Cell, formatUtc, ReportDocument, TableSection } from './document';
import { REPORT_TYPE_INFO, ReportPeriod } from './types';

export interface ComplianceReportTask extends ComplianceTask {
  task_code: string;
  title: string;
  plan_id: string;
  plan_name: string;
  due_at: Date;
  completed_at: Date | null;
}

export interface ComplianceTally {
  due: number;
  on_time: number;
  late: number;
  overdue_open: number;
  pending: number;
  cancelled: number;
  /** computeCompliance's rate: on time / (on time + late + open overdue), percent; null when none counts. */
  compliance_rate: number | null;
}

export function tally(tasks: readonly ComplianceTask[], now: Date): ComplianceTally {
  const counts = { on_time: 0, late: 0, overdue_open: 0, pending: 0, cancelled: 0 };
  for (const task of tasks) {
    const kind = classifyTask(task, now).kind;
    counts[kind === 'excluded' ? 'cancelled' : kind] += 1;
  }
  return { due: tasks.length, ...counts, compliance_rate: computeCompliance([...tasks], now).compliance_rate };
}

/** The UTC months ("YYYY-MM") the period touches, in order. */
export function monthsOf(period: ReportPeriod): string[] {
  const months: string[] = [];
  let [y, m] = period.from.slice(0, 7).split('-').map(Number) as [number, number];
  const last = period.to.slice(0, 7);
  for (;;) {
    const key = `${y}-${String(m).padStart(2, '0')}`;
    months.push(key);
    if (key >= last) return months;
    m += 1;
    if (m > 12) [y, m] = [y + 1, 1];
  }
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
}

const tallyColumns = [
  { header: 'Due', kind: 'integer' },
  { header: 'On time', kind: 'integer' },
  { header: 'Late', kind: 'integer' },
  { header: 'Open overdue', kind: 'integer' },
  { header: 'Pending', kind: 'integer' },
  { header: 'Compliance', kind: 'percent' },
] as const;
const tallyCells = (t: ComplianceTally): Cell[] => [t.due, t.on_time, t.late, t.overdue_open, t.pending, t.compliance_rate];

export function complianceReport(input: { period: ReportPeriod; tasks: readonly ComplianceReportTask[]; now: Date }): ReportDocument {
  const { period, tasks, now } = input;
  const overall = tally(tasks, now);
  const byMonth = groupBy(tasks, (t) => t.due_at.toISOString().slice(0, 7));
  const months = monthsOf(period).map((month) => ({ month, tally: tally(byMonth.get(month) ?? [], now) }));
  const plans = [...groupBy(tasks, (t) => t.plan_id).values()]
    .map((planTasks) => ({ name: (planTasks[0] as ComplianceReportTask).plan_name, tally: tally(planTasks, now) }))
    .sort((a, b) => a.name.localeCompare(b.name));
  const exceptions = tasks.map((task) => ({ task, result: classifyTask(task, now) })).filter((e) => e.result.kind === 'late' || e.result.kind === 'overdue_open');

  const exceptionTable: TableSection = {
    kind: 'table',
    title: 'Late and overdue tasks',
    sheet: 'Late and overdue',
    columns: [
      { header: 'Task', kind: 'text' },
      { header: 'Title', kind: 'text', weight: 2.2 },
      { header: 'Plan', kind: 'text', weight: 1.6 },
      { header: 'Due', kind: 'datetime', weight: 1.4 },
      { header: 'Completed', kind: 'datetime', weight: 1.4 },
      { header: 'Delay (days)', kind: 'decimal' },
    ],
    rows: exceptions.map(({ task, result }) => [
      task.task_code,
      task.title,
      task.plan_name,
      task.due_at,
      task.completed_at,
      // Days read better than hours at report scale; hours past the due time, not the grace deadline.
      'delay_hours' in result ? Math.round((result.delay_hours / 24) * 100) / 100 : null,
    ]),
    emptyText: 'No task was late or is overdue.',
  };

  return {
    title: REPORT_TYPE_INFO.maintenance_compliance.title,
    subtitle: `Period ${period.from} – ${period.to} (tasks due in the period; judged at ${formatUtc(now)})`,
    generatedAt: now,
    keyFigures: [
      { label: 'Compliance', value: overall.compliance_rate, kind: 'percent' },
      { label: 'Tasks due', value: overall.due, kind: 'integer' },
      { label: 'On time', value: overall.on_time, kind: 'integer' },
      { label: 'Completed late', value: overall.late, kind: 'integer' },
      { label: 'Open overdue', value: overall.overdue_open, kind: 'integer' },
      { label: 'Pending', value: overall.pending, kind: 'integer' },
      { label: 'Cancelled', value: overall.cancelled, kind: 'integer' },
    ],
    sections: [
      { kind: 'bar_chart', title: 'Compliance by month', unit: 'percent', max: 100, bars: months.map((m) => ({ label: m.month, value: m.tally.compliance_rate })) },
      {
        kind: 'table',
        title: 'By month',
        sheet: 'By month',
        columns: [{ header: 'Month', kind: 'text' }, ...tallyColumns],
        rows: months.map((m) => [m.month, ...tallyCells(m.tally)]),
        emptyText: 'No month in the period.',
      },
      {
        kind: 'table',
        title: 'By plan',
        sheet: 'By plan',
        columns: [{ header: 'Plan', kind: 'text', weight: 2.5 }, ...tallyColumns],
        rows: plans.map((p) => [p.name, ...tallyCells(p.tally)]),
        emptyText: 'No plan had a task due in the period.',
      },
      exceptionTable,
    ],
  };
}
