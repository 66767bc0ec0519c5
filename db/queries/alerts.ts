import { Queryable } from '../knex';
import { TenantScope, tenantScope } from '../tenant-scope';
import { pgArray } from './pg-array';
import { SeriesKey } from './readings';

export type AlertStatus = 'open' | 'acknowledged' | 'resolved';

export interface AlertRow {
  id: string;
  asset_id: string;
  baseline_id: string;
  parameter: string;
  status: AlertStatus;
  direction: 'above' | 'below';
  severity: 'warning' | 'critical';
  baseline_value: number;
  lower_bound: number;
  upper_bound: number;
  value: number;
  peak_value: number;
  last_value: number;
  raised_at: Date;
  last_reading_at: Date;
  resolved_at: Date | null;
  resolved_value: number | null;
  acknowledged_at: Date | null;
  acknowledged_by: string | null;
  acknowledge_note: string | null;
  created_at: Date;
  updated_at: Date;
}

export const ALERT_COLUMNS = [
  'id',
  'asset_id',
  'baseline_id',
  'parameter',
  'status',
  'direction',
  'severity',
  'baseline_value',
  'lower_bound',
  'upper_bound',
  'value',
  'peak_value',
  'last_value',
  'raised_at',
  'last_reading_at',
  'resolved_at',
  'resolved_value',
  'acknowledged_at',
  'acknowledged_by',
  'acknowledge_note',
  'created_at',
  'updated_at',
] as const;

/** Unresolved alerts (open or acknowledged) of the given series. */
export async function unresolvedAlerts(db: Queryable, tenantId: string, series: readonly SeriesKey[]): Promise<AlertRow[]> {
  if (series.length === 0) return [];
  return tenantScope(db, tenantId)
    .table('asset_alerts')
    .whereNot('status', 'resolved')
    .whereRaw('(asset_id, parameter) in (select * from unnest(?::uuid[], ?::text[]))', [pgArray(series.map((s) => s.asset_id)), pgArray(series.map((s) => s.parameter))])
    .select(ALERT_COLUMNS);
}

export function findAlert(scope: TenantScope, assetId: string, alertId: string): Promise<AlertRow | undefined> {
  return scope.table('asset_alerts').where({ asset_id: assetId, id: alertId }).first(ALERT_COLUMNS);
}

/** The alerts of each series not resolved before its `since` (late readings placed on their course). */
export async function alertsSince(db: Queryable, tenantId: string, series: ReadonlyArray<SeriesKey & { since: Date }>): Promise<AlertRow[]> {
  if (series.length === 0) return [];
  const { rows } = await db.raw(
    `select ${ALERT_COLUMNS.map((c) => `a.${c}`).join(', ')}
       from unnest(?::uuid[], ?::text[], ?::timestamptz[]) as k(asset_id, parameter, since)
       join asset_alerts a on a.tenant_id = ? and a.asset_id = k.asset_id and a.parameter = k.parameter
        and (a.resolved_at is null or a.resolved_at > k.since)`,
    [pgArray(series.map((s) => s.asset_id)), pgArray(series.map((s) => s.parameter)), pgArray(series.map((s) => s.since.toISOString())), tenantId],
  );
  return rows as AlertRow[];
}
