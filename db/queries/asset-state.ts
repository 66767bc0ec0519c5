import { Knex } from 'knex';
import type { AssetCondition } from '../../domain/assets/condition';
import type { Condition, Health } from '../../domain/assets/health';
import { Queryable } from '../knex';
import { tenantScope, TenantScope } from '../tenant-scope';
import { listQuery } from './list-query';
import { pgArray } from './pg-array';

/** Stored health, condition and inspections of assets (derived state is written, never computed on read). */

export interface HealthRow {
  asset_id: string;
  health_score: number;
  status: Health['status'];
  factors: Health['factors'];
  last_updated: Date;
}

export interface ConditionRow {
  asset_id: string;
  overall_condition: Condition;
  parameters: AssetCondition['parameters'];
  last_inspection_at: Date | null;
  updated_at: Date;
}

export interface InspectionRow {
  id: string;
  asset_id: string;
  performed_at: Date;
  condition: Condition;
  notes: string | null;
  recorded_by: string | null;
  created_at: Date;
}

export const INSPECTION_COLUMNS = ['id', 'asset_id', 'performed_at', 'condition', 'notes', 'recorded_by', 'created_at'] as const;

export function findHealth(db: Queryable, tenantId: string, assetId: string): Promise<HealthRow | undefined> {
  return tenantScope(db, tenantId).table('asset_health').where({ asset_id: assetId }).first('asset_id', 'health_score', 'status', 'factors', 'last_updated');
}

export function findCondition(db: Queryable, tenantId: string, assetId: string): Promise<ConditionRow | undefined> {
  return tenantScope(db, tenantId).table('asset_conditions').where({ asset_id: assetId }).first('asset_id', 'overall_condition', 'parameters', 'last_inspection_at', 'updated_at');
}

export interface AssetState {
  asset_id: string;
  health: Health;
  condition: AssetCondition;
  last_inspection_at: Date | null;
}

/** Stores the health and condition of several assets in one statement (two multi-row upserts). */
export async function saveAssetStates(db: Queryable, tenantId: string, states: readonly AssetState[], at: Date): Promise<void> {
  if (states.length === 0) return;
  const { ctes, statement, bindings } = assetStatesStatement(tenantId, states, at);
  await db.raw(`with ${ctes} ${statement}`, bindings);
}

/**
 * The statement of saveAssetStates in two parts, so a caller can put other writes before it in the
 * same statement (the reading pipeline: `with latest as (...), ${ctes} ${statement}`).
 */
export function assetStatesStatement(tenantId: string, states: readonly AssetState[], at: Date): { ctes: string; statement: string; bindings: Knex.RawBinding[] } {
  const health = states.map((s) => ({ asset_id: s.asset_id, health_score: s.health.health_score, status: s.health.status, factors: s.health.factors }));
  const conditions = states.map((s) => ({
    asset_id: s.asset_id,
    overall_condition: s.condition.overall_condition,
    parameters: s.condition.parameters,
    last_inspection_at: s.last_inspection_at?.toISOString() ?? null,
  }));
  return {
    ctes: `health as (
       insert into asset_health (tenant_id, asset_id, health_score, status, factors, last_updated)
       select ?::uuid, x.asset_id, x.health_score, x.status, x.factors, ?::timestamptz
         from jsonb_to_recordset(?::jsonb) as x(asset_id uuid, health_score integer, status text, factors jsonb)
       on conflict (tenant_id, asset_id) do update
         set health_score = excluded.health_score, status = excluded.status, factors = excluded.factors, last_updated = excluded.last_updated
     )`,
    statement: `insert into asset_conditions (tenant_id, asset_id, overall_condition, parameters, last_inspection_at, updated_at)
     select ?::uuid, x.asset_id, x.overall_condition, x.parameters, x.last_inspection_at, ?::timestamptz
       from jsonb_to_recordset(?::jsonb) as x(asset_id uuid, overall_condition text, parameters jsonb, last_inspection_at timestamptz)
     on conflict (tenant_id, asset_id) do update
       set overall_condition = excluded.overall_condition, parameters = excluded.parameters,
           last_inspection_at = excluded.last_inspection_at, updated_at = excluded.updated_at`,
    bindings: [tenantId, at.toISOString(), JSON.stringify(health), tenantId, at.toISOString(), JSON.stringify(conditions)],
  };
}

/** The newest `perAsset` inspections of each asset (by the time they were performed). */
export async function recentInspections(db: Queryable, tenantId: string, assetIds: readonly string[], perAsset: number): Promise<InspectionRow[]> {
  if (assetIds.length === 0) return [];
  const { rows } = await db.raw(
    `select i.* from unnest(?::uuid[]) as a(asset_id)
       cross join lateral (
         select ${INSPECTION_COLUMNS.join(', ')} from asset_inspections s
          where s.tenant_id = ? and s.asset_id = a.asset_id
          order by s.performed_at desc, s.created_at desc limit ?
       ) i`,
    [pgArray(assetIds), tenantId, perAsset],
  );
  return rows;
}

export interface ReadingRow {
  parameter: string;
  ts: Date;
  value: number;
  unit: string | null;
  source: string | null;
  sender_event_id: string;
  received_at: Date;
}
const READING_COLUMNS = ['parameter', 'ts', 'value', 'unit', 'source', 'sender_event_id', 'received_at'] as const;

export interface ReadingFilter {
  parameter?: string;
  /** Inclusive. */
  from?: Date;
  /** Exclusive. */
  to?: Date;
}

/** The asset's sensor readings, newest first by device time. */
export function readingListQuery(scope: TenantScope, assetId: string, filter: ReadingFilter): Knex.QueryBuilder {
  const q = listQuery(scope, 'sensor_readings', READING_COLUMNS, [{ column: 'ts', order: 'desc' }, { column: 'parameter' }, { column: 'sender_event_id' }]).where(
    'asset_id',
    assetId,
  );
  if (filter.parameter) q.where('parameter', filter.parameter);
  if (filter.from) q.where('ts', '>=', filter.from);
  if (filter.to) q.where('ts', '<', filter.to);
  return q;
}
