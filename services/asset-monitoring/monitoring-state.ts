import { Knex } from 'knex';
import { PredictiveConfig } from '../../domain/assets/predictive-config';
import { AlertRow, ALERT_COLUMNS } from '../../db/queries/alerts';
import { InspectionRow, INSPECTION_COLUMNS } from '../../db/queries/asset-state';
import { BaselineRow, BASELINE_COLUMNS } from '../../db/queries/baselines';
import { configsOf, PREDICTIVE_CONFIG_COLUMNS, PredictiveConfigRow } from '../../db/queries/predictive-configs';
import { LatestReading } from '../../db/queries/readings';
import { pgArray } from '../../db/queries/pg-array';

/**
 * Everything the reading pipeline reads about the assets of a batch, after their lock: the latest
 * reading of each series, the active baselines, the unresolved alerts, the configs of their types
 * and their last two inspections. One statement (issue 19: five round trips were a fifth of a
 * batch's database time); each part comes back as JSON and is given the types its own query gives.
 */
export interface MonitoringState {
  latest: LatestReading[];
  baselines: BaselineRow[];
  /** Unresolved (open or acknowledged) alerts of the assets. */
  alerts: AlertRow[];
  configs: Map<string, PredictiveConfig>;
  /** The newest two inspections of each asset, newest first. */
  inspections: InspectionRow[];
}

const cols = (names: readonly string[], alias: string) => names.map((c) => `${alias}.${c}`).join(', ');
const at = (v: string | null): Date | null => (v === null ? null : new Date(v));

/**
 * The state as the columns of one select (`select ${columns}`), so a caller can read it in the
 * statement of another part of its work (the reading pipeline: in the insert's statement); its
 * row is read by monitoringStateOf.
 */
export function monitoringStateColumns(tenantId: string, assetIds: readonly string[], assetTypes: readonly string[]): { columns: string; bindings: Knex.RawBinding[] } {
  const ids = pgArray(assetIds);
  return {
    columns: `(select coalesce(json_agg(l order by l.asset_id, l.parameter), '[]'::json)
          from (select l.asset_id, l.parameter, l.ts, l.value, l.unit, l.source, l.recent from asset_parameter_latest l
                 where l.tenant_id = ? and l.asset_id = any(?::uuid[])) l) as latest,
       (select coalesce(json_agg(b), '[]'::json)
          from (select ${cols(BASELINE_COLUMNS, 'b')} from asset_baselines b where b.tenant_id = ? and b.active and b.asset_id = any(?::uuid[])) b) as baselines,
       (select coalesce(json_agg(a), '[]'::json)
          from (select ${cols(ALERT_COLUMNS, 'a')} from asset_alerts a where a.tenant_id = ? and a.status <> 'resolved' and a.asset_id = any(?::uuid[])) a) as alerts,
       (select coalesce(json_agg(c), '[]'::json)
          from (select ${cols(PREDICTIVE_CONFIG_COLUMNS, 'c')} from predictive_configs c where c.tenant_id = ? and c.asset_type = any(?::text[])) c) as configs,
       (select coalesce(json_agg(i order by i.n, i.performed_at desc, i.created_at desc), '[]'::json)
          from (select k.n, ${cols(INSPECTION_COLUMNS, 's')}
                  from unnest(?::uuid[]) with ordinality as k(asset_id, n)
                  cross join lateral (
                    select ${INSPECTION_COLUMNS.join(', ')} from asset_inspections s
                     where s.tenant_id = ? and s.asset_id = k.asset_id
                     order by s.performed_at desc, s.created_at desc limit 2
                  ) s) i) as inspections`,
    bindings: [tenantId, ids, tenantId, ids, tenantId, ids, tenantId, pgArray([...new Set(assetTypes)]), ids, tenantId],
  };
}

/** The state from the row of monitoringStateColumns (`assetTypes`: the types given to it). */
export function monitoringStateOf(row: { latest: any[]; baselines: any[]; alerts: any[]; configs: any[]; inspections: any[] }, assetTypes: readonly string[]): MonitoringState {
  return {
    latest: row.latest.map((r) => ({ ...r, ts: new Date(r.ts) })),
    baselines: row.baselines.map((b) => ({ ...b, created_at: new Date(b.created_at), superseded_at: at(b.superseded_at) })),
    alerts: row.alerts.map((a) => ({
      ...a,
      raised_at: new Date(a.raised_at),
      last_reading_at: new Date(a.last_reading_at),
      resolved_at: at(a.resolved_at),
      acknowledged_at: at(a.acknowledged_at),
      created_at: new Date(a.created_at),
      updated_at: new Date(a.updated_at),
    })),
    configs: configsOf(
      assetTypes,
      row.configs.map((c): PredictiveConfigRow => ({ ...c, created_at: new Date(c.created_at), updated_at: new Date(c.updated_at) })),
    ),
    inspections: row.inspections.map(({ n: _n, ...i }) => ({ ...i, performed_at: new Date(i.performed_at), created_at: new Date(i.created_at) })),
  };
}
