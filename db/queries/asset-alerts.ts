/** The lists of the asset alerts API: alerts (of the tenant or one asset) and an asset's baselines. */
import type { Knex } from 'knex';
import { ALERT_COLUMNS, AlertRow } from './alerts';
import { BASELINE_COLUMNS } from './baselines';
import { TenantScope } from '../tenant-scope';
import { listQuery, whereUuidFilters } from './list-query';

export interface AlertFilter {
  /** `unresolved` = open or acknowledged. */
  status?: 'open' | 'acknowledged' | 'resolved' | 'unresolved';
  severity?: 'warning' | 'critical';
  parameter?: string;
  /** A client-given id: one that is not a UUID matches nothing. */
  asset_id?: string;
  raised_from?: Date;
  raised_to?: Date;
}

/** The tenant's alerts, newest first (raised_from/raised_to in device time). */
export function alertListQuery(scope: TenantScope, f: AlertFilter): Knex.QueryBuilder {
  const q = listQuery(scope, 'asset_alerts', ALERT_COLUMNS, [{ column: 'raised_at', order: 'desc' }, { column: 'id' }]);
  if (f.status === 'unresolved') q.whereNot('status', 'resolved');
  else if (f.status) q.where('status', f.status);
  if (f.severity) q.where('severity', f.severity);
  if (f.parameter) q.where('parameter', f.parameter);
  whereUuidFilters(q, f, { asset_id: 'asset_id' });
  if (f.raised_from) q.where('raised_at', '>=', f.raised_from);
  if (f.raised_to) q.where('raised_at', '<', f.raised_to);
  return q;
}

export interface BaselineFilter {
  parameter?: string;
  /** With the superseded baselines too. */
  history: boolean;
}

/** An asset's baselines by parameter, newest first within a parameter. */
export function baselineListQuery(scope: TenantScope, assetId: string, f: BaselineFilter): Knex.QueryBuilder {
  const q = scope
    .table('asset_baselines')
    .where('asset_id', assetId)
    .select(BASELINE_COLUMNS)
    .orderBy([{ column: 'parameter' }, { column: 'created_at', order: 'desc' }, { column: 'id' }]);
  if (!f.history) q.where('active', true);
  if (f.parameter) q.where('parameter', f.parameter);
  return q;
}

/** Records an acknowledgement; an open alert becomes acknowledged, another keeps its status. */
export async function markAlertAcknowledged(scope: TenantScope, alert: AlertRow, by: { userId: string; note: string | null }): Promise<AlertRow> {
  const [row] = await scope
    .table('asset_alerts')
    .where('id', alert.id)
    .update({
      status: alert.status === 'open' ? 'acknowledged' : alert.status,
      acknowledged_at: new Date(),
      acknowledged_by: by.userId,
      acknowledge_note: by.note,
      updated_at: new Date(),
    })
    .returning([...ALERT_COLUMNS]);
  return row as AlertRow;
}
