/**
 * The industrial event gateway without HTTP: a batch of readings or machine events is checked
 * (every asset_id names an asset of the tenant, else 404 for the whole batch), stored, judged and
 * audited in the caller's unit of work; the event list takes the tenant's scope.
 * api/routes/machine.ts is the HTTP face.
 */
import { assetTypesByIds } from '../db/queries/assets';
import { MachineEventFilter, MachineEventInput, machineEventListQuery, MachineEventRow } from '../db/queries/machine-events';
import { ReadingInput } from '../db/queries/readings';
import { paginate, type Page, type PageRequest } from '../db/pagination';
import { isUuid, type TenantScope } from '../db/tenant-scope';
import type { Unit } from '../db/unit-of-work';
import { AppError } from '../domain/errors';
import { EventsSummary, ingestMachineEvents, ingestReadings, ReadingsSummary } from './asset-monitoring/ingest';
import { LockedAssets, lockAssetTypes } from './asset-monitoring/unit';

export type { EventsSummary, MachineEventFilter, MachineEventRow, ReadingsSummary };

export interface ReadingItem {
  event_id: string;
  asset_id: string;
  parameter: string;
  value: number;
  unit?: string | null;
  timestamp: Date;
  source?: string | null;
}

export interface EventItem {
  event_id: string;
  asset_id: string;
  type: string;
  timestamp: Date;
  severity?: 'info' | 'warning' | 'critical' | null;
  data?: Record<string, unknown>;
  source?: string | null;
}

function requireAll<T extends ReadonlyMap<string, string>>(unique: readonly string[], types: T): T {
  const missing = unique.filter((id) => !types.has(id));
  if (missing.length) throw new AppError('NOT_FOUND', 'asset not found', { asset_ids: missing.slice(0, 20) });
  return types;
}

/** The types of the batch's assets; any id not naming an asset of the tenant is a 404 for the whole batch. */
async function requireAssets(scope: TenantScope, ids: readonly string[]): Promise<Map<string, string>> {
  const unique = [...new Set(ids)];
  return requireAll(unique, await assetTypesByIds(scope, unique.filter(isUuid)));
}

/** requireAssets for the reading pipeline: the same check, in the statement that takes the assets' monitoring locks. */
async function requireLockedAssets(unit: Unit, ids: readonly string[]): Promise<LockedAssets> {
  const unique = [...new Set(ids)];
  const locked = await lockAssetTypes(unit.tx, unit.scope.tenantId, unique, unique.filter(isUuid));
  requireAll(unique, locked.types);
  return locked;
}

/** Declares the batch's audit row (on its one asset, or on none with the list of assets) and answers the summary. */
function audited<Summary extends object>(unit: Unit, action: string, items: readonly { asset_id: string }[], summary: Summary): Summary {
  const unique = [...new Set(items.map((item) => item.asset_id))].sort();
  const target = unique.length === 1 ? { resourceId: unique[0] as string, details: {} } : { resourceId: null, details: { asset_ids: unique } };
  unit.audit({ action, resourceType: 'asset', resourceId: target.resourceId, details: { ...target.details, ...summary } });
  return summary;
}

/**
 * Stores the readings (idempotent by event_id), judges each series' new readings against its
 * active baseline and recomputes the assets' health and condition (services/asset-monitoring/ingest.ts).
 */
export async function ingestMachineReadings(unit: Unit, items: readonly ReadingItem[]): Promise<ReadingsSummary> {
  const assets = await requireLockedAssets(
    unit,
    items.map((r) => r.asset_id),
  );
  const readings: ReadingInput[] = items.map((r) => ({
    asset_id: r.asset_id,
    parameter: r.parameter,
    ts: r.timestamp,
    value: r.value,
    unit: r.unit ?? null,
    source: r.source ?? null,
    sender_event_id: r.event_id,
  }));
  return audited(unit, 'machine.readings.ingested', items, await ingestReadings(unit, assets, readings, new Date()));
}

/** Stores raw machine events (idempotent by event_id); each newly stored one is published to the outbox under its own type. */
export async function ingestMachineEventBatch(unit: Unit, items: readonly EventItem[]): Promise<EventsSummary> {
  await requireAssets(
    unit.scope,
    items.map((e) => e.asset_id),
  );
  const events: MachineEventInput[] = items.map((e) => ({
    asset_id: e.asset_id,
    event_type: e.type,
    severity: e.severity ?? null,
    ts: e.timestamp,
    data: e.data ?? {},
    source: e.source ?? null,
    sender_event_id: e.event_id,
  }));
  return audited(unit, 'machine.events.ingested', items, await ingestMachineEvents(unit, events));
}

export function listMachineEvents(scope: TenantScope, filter: MachineEventFilter, page: PageRequest): Promise<Page<MachineEventRow>> {
  return paginate(machineEventListQuery(scope, filter), page);
}
