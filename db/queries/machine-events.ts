import type { Knex } from 'knex';
import { Queryable } from '../knex';
import { isUuid, type TenantScope } from '../tenant-scope';
import { pgArray } from './pg-array';

export interface MachineEventInput {
  readonly asset_id: string;
  readonly event_type: string;
  readonly severity: 'info' | 'warning' | 'critical' | null;
  readonly ts: Date;
  readonly data: Record<string, unknown>;
  readonly source: string | null;
  readonly sender_event_id: string;
}

export interface MachineEventRow {
  id: string;
  asset_id: string;
  event_type: string;
  severity: 'info' | 'warning' | 'critical' | null;
  ts: Date;
  data: Record<string, unknown>;
  source: string | null;
  sender_event_id: string;
  received_at: Date;
}

export const MACHINE_EVENT_COLUMNS = ['id', 'asset_id', 'event_type', 'severity', 'ts', 'data', 'source', 'sender_event_id', 'received_at'] as const;

/** Stores a batch in one statement, skipping sender event ids already stored; returns the rows stored now. */
export async function insertMachineEvents(db: Queryable, tenantId: string, events: readonly MachineEventInput[]): Promise<MachineEventRow[]> {
  if (events.length === 0) return [];
  const { rows } = await db.raw(
    `insert into machine_events (tenant_id, asset_id, event_type, severity, ts, data, source, sender_event_id)
     select ?::uuid, e.* from unnest(?::uuid[], ?::text[], ?::text[], ?::timestamptz[], ?::jsonb[], ?::text[], ?::text[]) as e
     on conflict (tenant_id, sender_event_id) do nothing
     returning ${MACHINE_EVENT_COLUMNS.join(', ')}`,
    [
      tenantId,
      pgArray(events.map((e) => e.asset_id)),
      pgArray(events.map((e) => e.event_type)),
      pgArray(events.map((e) => e.severity)),
      pgArray(events.map((e) => e.ts.toISOString())),
      pgArray(events.map((e) => JSON.stringify(e.data))),
      pgArray(events.map((e) => e.source)),
      pgArray(events.map((e) => e.sender_event_id)),
    ],
  );
  return rows;
}

export interface MachineEventFilter {
  asset_id?: string;
  type?: string;
  from?: Date;
  to?: Date;
}

/** The tenant's machine events, newest first by device time; an asset_id that is no uuid names none. */
export function machineEventListQuery(scope: TenantScope, filter: MachineEventFilter): Knex.QueryBuilder {
  const q = scope
    .table('machine_events')
    .select(MACHINE_EVENT_COLUMNS)
    .orderBy([{ column: 'ts', order: 'desc' }, { column: 'id' }]);
  if (filter.asset_id !== undefined) {
    if (isUuid(filter.asset_id)) q.where('asset_id', filter.asset_id);
    else q.whereRaw('false');
  }
  if (filter.type) q.where('event_type', filter.type);
  if (filter.from) q.where('ts', '>=', filter.from);
  if (filter.to) q.where('ts', '<', filter.to);
  return q;
}
