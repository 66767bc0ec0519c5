/**
 * Report shaping and rendering without the stack: compliance tallies by month and plan, period
 * rules in a time zone, cron checks, and a document rendered to PDF (text read back with
 * pdf-parse) and XLSX (cells read back by test/support/xlsx.ts, typed).
 */
import { complianceReport, ComplianceReportTask, monthsOf } from '../../../domain/reports/compliance';
import { TableSection } from '../../../domain/reports/document';
import { checkPeriod, isValidTimeZone, resolvePeriodRule } from '../../../domain/reports/period';
import { cronProblem, temporalSpecOf } from '../../../domain/reports/schedule';
import { displayUrl } from '../../../domain/reports/snapshots';
import { renderPdf } from '../../../infra/reports/pdf';
import { renderXlsx } from '../../../infra/reports/xlsx';
import { DEFAULT_BRANDING } from '../../../infra/reports/branding';

import { pdfText } from '../../support/pdf-text';
import { readXlsx } from '../../support/xlsx';

const d = (iso: string) => new Date(iso);
const task = (code: string, plan: string, due: string, completed: string | null, status: ComplianceReportTask['status'], interval = 240): ComplianceReportTask => ({
  task_code: code,
  title: `Task ${code}`,
  plan_id: `plan-${plan}`,
  plan_name: `Plan ${plan}`,
  due_at: d(due),
  completed_at: completed ? d(completed) : null,
  status,
  interval_hours: interval,
});

// Interval 240 h: grace 24 h. Judged on 2026-03-20.
const NOW = d('2026-03-20T12:00:00Z');
const TASKS = [
  task('PM-1', 'A', '2026-01-05T08:00:00Z', '2026-01-05T10:00:00Z', 'done'), // on time
  task('PM-2', 'A', '2026-01-20T08:00:00Z', '2026-01-22T08:00:00Z', 'done'), // late by 48 h
  task('PM-3', 'B', '2026-02-10T08:00:00Z', '2026-02-11T07:00:00Z', 'done'), // on time (23 h)
  task('PM-4', 'B', '2026-02-15T08:00:00Z', null, 'open'), // open overdue
  task('PM-5', 'B', '2026-02-16T08:00:00Z', null, 'cancelled'), // excluded
  task('PM-6', 'A', '2026-03-20T08:00:00Z', null, 'open'), // pending
];

describe('compliance report', () => {
  const report = complianceReport({ period: { from: '2026-01-01', to: '2026-03-31' }, tasks: TASKS, now: NOW });
  const table = (title: string) => report.sections.find((s): s is TableSection => s.kind === 'table' && s.title === title) as TableSection;

  it('counts on time, late, open overdue, pending and cancelled; the rate over the counted ones', () => {
    expect(report.keyFigures.map((f) => [f.label, f.value])).toEqual([
      ['Compliance', 50],
      ['Tasks due', 6],
      ['On time', 2],
      ['Completed late', 1],
      ['Open overdue', 1],
      ['Pending', 1],
      ['Cancelled', 1],
    ]);
  });

  it('tallies by UTC month (every month of the period) and by plan', () => {
    expect(table('By month').rows).toEqual([
      ['2026-01', 2, 1, 1, 0, 0, 50],
      ['2026-02', 3, 1, 0, 1, 0, 50],
      ['2026-03', 1, 0, 0, 0, 1, null],
    ]);
    expect(table('By plan').rows).toEqual([
      ['Plan A', 3, 1, 1, 0, 1, 50],
      ['Plan B', 3, 1, 0, 1, 0, 50],
    ]);
    expect(table('Late and overdue tasks').rows).toEqual([
      ['PM-2', 'Task PM-2', 'Plan A', d('2026-01-20T08:00:00Z'), d('2026-01-22T08:00:00Z'), 2],
      ['PM-4', 'Task PM-4', 'Plan B', d('2026-02-15T08:00:00Z'), null, 33.17],
    ]);
    const chart = report.sections[0];
    expect(chart).toMatchObject({
      kind: 'bar_chart',
      bars: [
        { label: '2026-01', value: 50 },
        { label: '2026-02', value: 50 },
        { label: '2026-03', value: null },
      ],
    });
  });

  it('lists the months across a year end', () => {
    expect(monthsOf({ from: '2025-11-15', to: '2026-02-01' })).toEqual(['2025-11', '2025-12', '2026-01', '2026-02']);
  });

  it('renders a PDF whose text holds the branding and the numbers, paginating a long table', async () => {
    const many = Array.from({ length: 120 }, (_, i) => task(`PM-${100 + i}`, 'C', '2026-02-01T08:00:00Z', null, 'open'));
    const long = complianceReport({ period: { from: '2026-01-01', to: '2026-03-31' }, tasks: [...TASKS, ...many], now: NOW });
    const bytes = await renderPdf(long, { ...DEFAULT_BRANDING, companyName: 'Acme Plant Services', footerText: 'Confidential – Acme' });
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    const text = await pdfText(bytes);
    expect(text).toContain('Acme Plant Services');
    expect(text).toContain('Maintenance compliance');
    expect(text).toContain('Confidential – Acme');
    expect(text).toContain('PM-219'); // the last row, on a later page
    const pages = Number(/Page 1 of (\d+)/.exec(text)?.[1]);
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(text).toContain(`Page ${pages} of ${pages}`);
    expect(text).toContain('Late and overdue tasks (continued)');
  });

  it('renders an XLSX with typed cells, a frozen coloured header with a filter and one sheet per table', async () => {
    const bytes = await renderXlsx(report, { ...DEFAULT_BRANDING, primaryColor: '#112233' });
    const wb = await readXlsx(bytes);
    expect(wb.sheetNames).toEqual(['Summary', 'By month', 'By plan', 'Late and overdue']);
    const month = wb.sheet('By month');
    expect(month.rows[1]).toEqual(['2026-01', 2, 1, 1, 0, 0, 50]);
    expect(month.cell('G4')?.value).toBeUndefined();
    expect(month.cell('G2')?.numFmt).toBe('0.00" %"');
    expect(month.frozenRows).toBe(1);
    expect(month.autoFilter).toBe('A1:G1');
    expect(month.cell('A1')).toMatchObject({ value: 'Month', fill: 'FF112233', bold: true });
    const late = wb.sheet('Late and overdue');
    expect(late.cell('D2')?.value).toEqual(d('2026-01-20T08:00:00Z'));
    expect(late.cell('F2')?.value).toBe(2);
    const summary = wb.sheet('Summary');
    expect(summary.rows.slice(0, 4)).toEqual([
      ['Industrial Ops', undefined],
      ['Maintenance compliance', undefined],
      [report.subtitle, undefined],
      ['Generated', report.generatedAt],
    ]);
    expect(summary.images).toEqual([]);
  });

  it('draws the branding on the summary sheet: the logo above the company name in its colour, the footer below the figures', async () => {
    const logo = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a0f3a3a70000000049454e44ae426082', 'hex');
    const branding = {
      ...DEFAULT_BRANDING,
      companyName: 'Acme & <Co>',
      primaryColor: '#0B6E4F',
      footerText: 'Confidential',
      logo: { bytes: logo, contentType: 'image/png' as const },
    };
    const summary = (await readXlsx(await renderXlsx(report, branding))).sheet('Summary');
    expect(summary.images).toEqual([logo]);
    expect(summary.cell('A5')).toMatchObject({ value: 'Acme & <Co>', bold: true });
    expect(summary.rows.map((row) => row[0])).toEqual([
      'Acme & <Co>',
      'Maintenance compliance',
      report.subtitle,
      'Generated',
      'Key figure',
      ...report.keyFigures.map((f) => f.label),
      'Confidential',
    ]);
    expect(summary.cell('B11')?.numFmt).toBe('0.00" %"');
  });
});

describe('periods and schedules', () => {
  it('checks explicit periods', () => {
    expect(checkPeriod({ from: '2026-01-01', to: '2026-01-31' })).toEqual({ ok: true, range: { start: d('2026-01-01T00:00:00Z'), end: d('2026-02-01T00:00:00Z') } });
    expect(checkPeriod({ from: '2026-02-01', to: '2026-01-31' })).toMatchObject({ ok: false });
    expect(checkPeriod({ from: '2024-01-01', to: '2026-01-31' })).toEqual({ ok: false, message: 'must cover at most 366 days' });
  });

  it('resolves period rules on the local day of the time zone', () => {
    // 2026-03-01 03:00 UTC is still February 28 in New York.
    const at = d('2026-03-01T03:00:00Z');
    expect(resolvePeriodRule('previous_month', at, 'UTC')).toEqual({ from: '2026-02-01', to: '2026-02-28' });
    expect(resolvePeriodRule('previous_month', at, 'America/New_York')).toEqual({ from: '2026-01-01', to: '2026-01-31' });
    expect(resolvePeriodRule('previous_day', at, 'Europe/Berlin')).toEqual({ from: '2026-02-28', to: '2026-02-28' });
    expect(resolvePeriodRule('last_7_days', at, 'UTC')).toEqual({ from: '2026-02-22', to: '2026-02-28' });
    expect(resolvePeriodRule('month_to_date', at, 'UTC')).toEqual({ from: '2026-03-01', to: '2026-03-01' });
    expect(resolvePeriodRule('previous_month', d('2026-01-10T00:00:00Z'), 'UTC')).toEqual({ from: '2025-12-01', to: '2025-12-31' });
  });

  it('validates time zones and cron expressions', () => {
    expect(isValidTimeZone('Europe/Berlin')).toBe(true);
    expect(isValidTimeZone('Mars/Olympus')).toBe(false);
    expect(cronProblem('0 6 1 * *')).toBeNull();
    expect(cronProblem('*/15 8-17 * JAN-MAR MON-FRI')).toBeNull();
    expect(cronProblem('0 6 * *')).toMatch(/five fields/);
    expect(cronProblem('61 6 * * *')).toMatch(/minute field "61" is out of range 0-59/);
    expect(cronProblem('0 6 ? * *')).toMatch(/not a cron field/);
    // Accepted by the hand-written check before cron-parser, rejected by Temporal.
    expect(cronProblem('0 6 * * XYZ')).toMatch(/day-of-week field "XYZ" is not valid/);
    expect(cronProblem('5-1 * * * *')).toMatch(/minute field "5-1" is not valid/);
    expect(cronProblem('0 6 * * 7-1')).toMatch(/day-of-week field "7-1" is not valid/);
    expect(cronProblem('*/0 * * * *')).toMatch(/minute field "\*\/0"/);
    // Valid fields that never meet: Temporal accepts it and never runs it.
    expect(cronProblem('0 6 31 2 *')).toMatch(/never matches a date/);
    // cron-parser's extensions: Temporal rejects L, W, H, and reads "1#2" (second Monday) as every Monday.
    for (const e of ['0 6 L * *', '0 6 15W * *', 'H 6 * * *', '0 6 * * 5L', '0 6 * * 1#2', '@daily', '0 0 6 * * *']) expect(cronProblem(e)).not.toBeNull();
    for (const e of ['0 6 * * 7', '0 6 * * sun-sat', '1,2-4/2 * * * *', '0 6 * JAN-DEC/2 *', '0 6 1-31/2 * *', '0 6 29 2 *']) expect(cronProblem(e)).toBeNull();
    expect(temporalSpecOf({ interval_minutes: 90 }, 'UTC')).toEqual({ intervals: [{ every: '90m' }], timezone: 'UTC' });
    expect(temporalSpecOf({ cron: ' 0 6 1 * * ' }, 'Europe/Berlin')).toEqual({ cronExpressions: ['0 6 1 * *'], timezone: 'Europe/Berlin' });
  });

  it('shows webhook URLs without their query string', () => {
    expect(displayUrl('https://hooks.example.com/in/abc?token=secret')).toBe('https://hooks.example.com/in/abc');
  });
});
