/**
 * The snapshot reports (asset health overview, open alerts) and the webhook delivery health of a
 * period: data read by db/queries/reports.ts shaped into report documents.
 */
import { HEALTH_STATUSES, HealthStatus } from '../assets/health';
import { formatUtc, percentOf, ReportDocument } from './document';
import { REPORT_TYPE_INFO, ReportPeriod } from './types';

/** Score ranges of the health statuses (SPEC.md) and the colour each is drawn in. */
export const HEALTH_BANDS: Readonly<Record<HealthStatus, { range: string; color: string }>> = {
  critical: { range: '0–25', color: '#C0392B' },
  poor: { range: '26–50', color: '#E67E22' },
  fair: { range: '51–70', color: '#F1C40F' },
  good: { range: '71–90', color: '#7DBE5A' },
  excellent: { range: '91–100', color: '#2E8B57' },
};

/** One asset of the "worst health" table. */
export interface AssetHealthEntry {
  name: string;
  type: string;
  /** null: not assessed yet (counted as excellent, like the dashboard). */
  health_score: number | null;
  status: HealthStatus;
  open_alerts: number;
  open_work_orders: number;
}

export interface AssetHealthInput {
  total: number;
  by_health_status: Record<HealthStatus, number>;
  not_assessed: number;
  open_work_orders: number;
  overdue_work_orders: number;
  worst: readonly AssetHealthEntry[];
}

export function assetHealthReport(data: AssetHealthInput, now: Date): ReportDocument {
  return {
    title: REPORT_TYPE_INFO.asset_health.title,
    subtitle: `As of ${formatUtc(now)}`,
    generatedAt: now,
    keyFigures: [
      { label: 'Assets', value: data.total, kind: 'integer' },
      { label: 'Critical or poor', value: data.by_health_status.critical + data.by_health_status.poor, kind: 'integer' },
      { label: 'Not assessed', value: data.not_assessed, kind: 'integer' },
      { label: 'Open work orders', value: data.open_work_orders, kind: 'integer' },
      { label: 'Overdue work orders', value: data.overdue_work_orders, kind: 'integer' },
    ],
    sections: [
      {
        kind: 'bar_chart',
        title: 'Health distribution (assets per status)',
        unit: 'count',
        bars: HEALTH_STATUSES.map((s) => ({ label: s, value: data.by_health_status[s], color: HEALTH_BANDS[s].color })),
      },
      {
        kind: 'table',
        title: 'Distribution',
        sheet: 'Distribution',
        columns: [
          { header: 'Status', kind: 'text' },
          { header: 'Score range', kind: 'text' },
          { header: 'Assets', kind: 'integer' },
          { header: 'Share', kind: 'percent' },
        ],
        rows: HEALTH_STATUSES.map((s) => [s, HEALTH_BANDS[s].range, data.by_health_status[s], percentOf(data.by_health_status[s], data.total)]),
        emptyText: 'No assets.',
      },
      {
        kind: 'table',
        title: `Lowest health (${data.worst.length} of ${data.total} assets; not assessed assets count as excellent)`,
        sheet: 'Lowest health',
        columns: [
          { header: 'Asset', kind: 'text', weight: 2.2 },
          { header: 'Type', kind: 'text', weight: 1.3 },
          { header: 'Score', kind: 'integer', weight: 0.7 },
          { header: 'Status', kind: 'text' },
          { header: 'Open alerts', kind: 'integer' },
          { header: 'Open work orders', kind: 'integer', weight: 1.2 },
        ],
        rows: data.worst.map((a) => [a.name, a.type, a.health_score, a.status, a.open_alerts, a.open_work_orders]),
        emptyText: 'No assets.',
      },
    ],
  };
}

/** One unresolved alert of the report's table. */
export interface OpenAlertEntry {
  asset_name: string;
  parameter: string;
  severity: 'warning' | 'critical';
  status: 'open' | 'acknowledged';
  direction: 'above' | 'below';
  value: number;
  peak_value: number;
  lower_bound: number;
  upper_bound: number;
  raised_at: Date;
}

export interface OpenAlertsInput {
  counts: { open: number; unacknowledged: number; critical: number };
  alerts: readonly OpenAlertEntry[];
}

const HOUR_MS = 3_600_000;

export function openAlertsReport(data: OpenAlertsInput, now: Date): ReportDocument {
  const warning = data.counts.open - data.counts.critical;
  return {
    title: REPORT_TYPE_INFO.open_alerts.title,
    subtitle: `Unresolved alerts (open or acknowledged), oldest first, as of ${formatUtc(now)}`,
    generatedAt: now,
    keyFigures: [
      { label: 'Unresolved', value: data.counts.open, kind: 'integer' },
      { label: 'Critical', value: data.counts.critical, kind: 'integer' },
      { label: 'Warning', value: warning, kind: 'integer' },
      { label: 'Not acknowledged', value: data.counts.unacknowledged, kind: 'integer' },
    ],
    sections: [
      {
        kind: 'table',
        title: 'By severity',
        sheet: 'By severity',
        columns: [
          { header: 'Severity', kind: 'text' },
          { header: 'Alerts', kind: 'integer' },
          { header: 'Share', kind: 'percent' },
        ],
        rows: [
          ['critical', data.counts.critical, percentOf(data.counts.critical, data.counts.open)],
          ['warning', warning, percentOf(warning, data.counts.open)],
        ],
        emptyText: 'No alerts.',
      },
      {
        kind: 'table',
        title: data.alerts.length < data.counts.open ? `Alerts (the oldest ${data.alerts.length} of ${data.counts.open})` : 'Alerts',
        sheet: 'Alerts',
        columns: [
          { header: 'Raised', kind: 'datetime', weight: 1.5 },
          { header: 'Age (h)', kind: 'decimal', weight: 0.8 },
          { header: 'Asset', kind: 'text', weight: 1.6 },
          { header: 'Parameter', kind: 'text', weight: 1.2 },
          { header: 'Severity', kind: 'text', weight: 0.9 },
          { header: 'Status', kind: 'text', weight: 1.1 },
          { header: 'Value', kind: 'decimal', weight: 0.8 },
          { header: 'Peak', kind: 'decimal', weight: 0.8 },
          { header: 'Lower', kind: 'decimal', weight: 0.8 },
          { header: 'Upper', kind: 'decimal', weight: 0.8 },
        ],
        rows: data.alerts.map((a) => [
          a.raised_at,
          Math.round(((now.getTime() - a.raised_at.getTime()) / HOUR_MS) * 100) / 100,
          a.asset_name,
          a.parameter,
          a.severity,
          a.status,
          a.value,
          a.peak_value,
          a.lower_bound,
          a.upper_bound,
        ]),
        emptyText: 'No unresolved alerts.',
      },
    ],
  };
}

/** One webhook's attempts over the period. */
export interface WebhookHealthInput {
  url: string;
  status: string;
  attempts: number;
  succeeded_attempts: number;
  failed_attempts: number;
  /** Distinct deliveries (an event to a webhook) with at least one attempt in the period. */
  deliveries: number;
  /** Deliveries with a successful attempt. */
  delivered: number;
  /** Deliveries that failed their last attempt with no further attempt planned. */
  failed: number;
  /** Over attempts that recorded a latency; null without any. */
  p50_latency_ms: number | null;
  p95_latency_ms: number | null;
}

/** Origin and path only: a query string may carry the receiver's token. */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return url.split('?')[0] as string;
  }
}

export function webhookHealthReport(input: { period: ReportPeriod; webhooks: readonly WebhookHealthInput[]; now: Date }): ReportDocument {
  const { period, webhooks, now } = input;
  const sum = (f: (w: WebhookHealthInput) => number) => webhooks.reduce((s, w) => s + f(w), 0);
  const attempts = sum((w) => w.attempts);
  const succeeded = sum((w) => w.succeeded_attempts);
  return {
    title: REPORT_TYPE_INFO.webhook_health.title,
    subtitle: `Period ${period.from} – ${period.to} (attempts made in the period)`,
    generatedAt: now,
    keyFigures: [
      { label: 'Webhooks', value: webhooks.length, kind: 'integer' },
      { label: 'Attempts', value: attempts, kind: 'integer' },
      { label: 'Attempt success rate', value: percentOf(succeeded, attempts), kind: 'percent' },
      { label: 'Deliveries', value: sum((w) => w.deliveries), kind: 'integer' },
      { label: 'Delivered', value: sum((w) => w.delivered), kind: 'integer' },
      { label: 'Failed deliveries', value: sum((w) => w.failed), kind: 'integer' },
    ],
    sections: [
      {
        kind: 'bar_chart',
        title: 'Attempt success rate per webhook',
        unit: 'percent',
        max: 100,
        bars: webhooks.map((w) => ({ label: displayUrl(w.url), value: percentOf(w.succeeded_attempts, w.attempts) })),
      },
      {
        kind: 'table',
        title: 'Per webhook',
        sheet: 'Webhooks',
        columns: [
          { header: 'Webhook URL', kind: 'text', weight: 3 },
          { header: 'Status', kind: 'text', weight: 0.9 },
          { header: 'Attempts', kind: 'integer', weight: 0.9 },
          { header: 'Succeeded', kind: 'integer', weight: 0.9 },
          { header: 'Failed', kind: 'integer', weight: 0.8 },
          { header: 'Success rate', kind: 'percent' },
          { header: 'Delivered', kind: 'integer', weight: 0.9 },
          { header: 'Failed deliveries', kind: 'integer', weight: 0.9 },
          { header: 'p50 (ms)', kind: 'integer', weight: 0.8 },
          { header: 'p95 (ms)', kind: 'integer', weight: 0.8 },
        ],
        rows: webhooks.map((w) => [
          displayUrl(w.url),
          w.status,
          w.attempts,
          w.succeeded_attempts,
          w.failed_attempts,
          percentOf(w.succeeded_attempts, w.attempts),
          w.delivered,
          w.failed,
          w.p50_latency_ms,
          w.p95_latency_ms,
        ]),
        emptyText: 'The tenant has no webhooks.',
      },
    ],
  };
}
