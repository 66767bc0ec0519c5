/**
 * CSAT report: responses given in the period, per survey, per agent and per UTC month. CSAT % and
 * NPS are domain/csat/aggregates.ts's (one definition for the API and the reports).
 */
import { ScoreTally, summariseTallies } from '../csat/aggregates';
import { CsatScale } from '../csat/scale';
import { ReportDocument } from './document';
import { monthsOf } from './compliance';
import { REPORT_TYPE_INFO, ReportPeriod } from './types';

export interface CsatReportTally extends ScoreTally {
  survey_id: string;
  survey_name: string;
  scale: CsatScale;
  agent_id: string | null;
  agent_name: string | null;
  /** UTC month of the responses, YYYY-MM. */
  month: string;
}

function groups<T>(rows: readonly T[], key: (row: T) => string): [string, T[]][] {
  const map = new Map<string, T[]>();
  for (const row of rows) {
    const k = key(row);
    const group = map.get(k);
    if (group) group.push(row);
    else map.set(k, [row]);
  }
  return [...map.entries()];
}

export function csatReport(input: { period: ReportPeriod; tallies: readonly CsatReportTally[]; now: Date }): ReportDocument {
  const { period, tallies, now } = input;
  const overall = summariseTallies(tallies);
  const bySurvey = groups(tallies, (t) => t.survey_id).map(([, rows]) => ({ first: rows[0] as CsatReportTally, summary: summariseTallies(rows) }));
  const byAgent = groups(tallies, (t) => t.agent_id ?? '').map(([, rows]) => ({ first: rows[0] as CsatReportTally, summary: summariseTallies(rows) }));
  const byMonth = new Map(groups(tallies, (t) => t.month));
  const months = monthsOf(period).map((month) => ({ month, summary: summariseTallies(byMonth.get(month) ?? []) }));
  const agentLabel = (t: CsatReportTally) => (t.agent_id === null ? 'Unassigned' : (t.agent_name ?? t.agent_id));

  return {
    title: REPORT_TYPE_INFO.csat.title,
    subtitle: `Period ${period.from} – ${period.to} (responses given in the period). CSAT % = share of 4–5 on 1–5 surveys; NPS = % 9–10 minus % 0–6 on 0–10 surveys.`,
    generatedAt: now,
    keyFigures: [
      { label: 'Responses', value: overall.response_count, kind: 'integer' },
      { label: 'CSAT', value: overall.csat_percent, kind: 'percent' },
      { label: 'NPS', value: overall.nps, kind: 'decimal' },
    ],
    sections: [
      { kind: 'bar_chart', title: 'CSAT % by month (1–5 surveys)', unit: 'percent', max: 100, bars: months.map((m) => ({ label: m.month, value: m.summary.csat_percent })) },
      {
        kind: 'table',
        title: 'By month',
        sheet: 'By month',
        columns: [
          { header: 'Month', kind: 'text' },
          { header: 'Responses', kind: 'integer' },
          { header: 'CSAT', kind: 'percent' },
          { header: 'NPS', kind: 'decimal' },
        ],
        rows: months.map((m) => [m.month, m.summary.response_count, m.summary.csat_percent, m.summary.nps]),
        emptyText: 'No month in the period.',
      },
      {
        kind: 'table',
        title: 'By survey',
        sheet: 'By survey',
        columns: [
          { header: 'Survey', kind: 'text', weight: 2.5 },
          { header: 'Scale', kind: 'text' },
          { header: 'Responses', kind: 'integer' },
          { header: 'CSAT', kind: 'percent' },
          { header: 'NPS', kind: 'decimal' },
        ],
        rows: bySurvey
          .sort((a, b) => a.first.survey_name.localeCompare(b.first.survey_name))
          .map(({ first, summary }) => [first.survey_name, first.scale, summary.response_count, summary.csat_percent, summary.nps]),
        emptyText: 'No responses in the period.',
      },
      {
        kind: 'table',
        title: 'By agent',
        sheet: 'By agent',
        columns: [
          { header: 'Agent', kind: 'text', weight: 2.5 },
          { header: 'Responses', kind: 'integer' },
          { header: 'CSAT', kind: 'percent' },
          { header: 'NPS', kind: 'decimal' },
        ],
        rows: byAgent
          .sort((a, b) => agentLabel(a.first).localeCompare(agentLabel(b.first)))
          .map(({ first, summary }) => [agentLabel(first), summary.response_count, summary.csat_percent, summary.nps]),
        emptyText: 'No responses in the period.',
      },
    ],
  };
}
