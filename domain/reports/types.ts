/**
 * The report catalogue: what can be produced, in which formats, and which types cover a period
 * (the others are snapshots "as of now"). Pure; shared by the API, the activities and workflows.
 */
export const REPORT_TYPES = ['maintenance_compliance', 'asset_health', 'open_alerts', 'webhook_health', 'csat'] as const;
export type ReportType = (typeof REPORT_TYPES)[number];

export const REPORT_FORMATS = ['pdf', 'xlsx'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

export const CONTENT_TYPES: Readonly<Record<ReportFormat, string>> = {
  pdf: 'application/pdf',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

export interface ReportTypeInfo {
  readonly title: string;
  /** Period reports select data by a [from, to] range of UTC days; snapshots ignore a period. */
  readonly needsPeriod: boolean;
}

export const REPORT_TYPE_INFO: Readonly<Record<ReportType, ReportTypeInfo>> = {
  maintenance_compliance: { title: 'Maintenance compliance', needsPeriod: true },
  asset_health: { title: 'Asset health overview', needsPeriod: false },
  open_alerts: { title: 'Open alerts', needsPeriod: false },
  webhook_health: { title: 'Webhook delivery health', needsPeriod: true },
  csat: { title: 'Customer satisfaction (CSAT)', needsPeriod: true },
};

/** Both days included, `YYYY-MM-DD`, UTC. */
export interface ReportPeriod {
  from: string;
  to: string;
}

/** What a report is made of: the request of an on-demand report, and of each scheduled run. */
export type ReportRequest = {
  type: ReportType;
  format: ReportFormat;
  /** Present exactly when the type needs a period. */
  period: ReportPeriod | null;
  brandingId: string | null;
};

export function reportFileName(type: ReportType, format: ReportFormat, period: ReportPeriod | null): string {
  return `${type}${period ? `_${period.from}_${period.to}` : ''}.${format}`;
}
