/**
 * What a plan's optimization reads (its last year: tasks, corrective work, failures, technicians'
 * load, neighbouring plans, counter readings) and its drafts.
 */
import type { Knex } from 'knex';
import { counterPartOf, estimateRatePerHour, type OptimizeInput, type Suggestion, type Trigger } from '../../domain/maintenance';
import { isoTime } from '../../domain/time';
import type { Queryable } from '../knex';
import type { TenantScope } from '../tenant-scope';
import type { PlanRow } from './maintenance';
import { pgArray } from './pg-array';

const DAY_MS = 86_400_000;

export interface DraftRow {
  id: string;
  tenant_id: string;
  plan_id: string;
  plan_version: number;
  status: 'draft' | 'approved' | 'rejected';
  suggestions: Suggestion[];
  basis: Record<string, unknown>;
  created_at: Date;
  decided_at: Date | null;
  decided_by: string | null;
}

export function draftById(scope: TenantScope, planId: string, draftId: string): Promise<DraftRow | undefined> {
  return scope.table('maintenance_optimization_drafts').where({ plan_id: planId, id: draftId }).first();
}

export function lockDraft(tx: Knex.Transaction, tenantId: string, planId: string, draftId: string): Promise<DraftRow | undefined> {
  return tx('maintenance_optimization_drafts').where({ tenant_id: tenantId, plan_id: planId, id: draftId }).forUpdate().first();
}

export async function insertDraft(scope: TenantScope, columns: Record<string, unknown>): Promise<DraftRow> {
  const [row] = await scope.insert('maintenance_optimization_drafts', columns);
  return row as DraftRow;
}

export async function decideDraft(tx: Knex.Transaction, id: string, status: 'approved' | 'rejected', userId: string): Promise<DraftRow> {
  const [decided] = await tx('maintenance_optimization_drafts').where({ id }).update({ status, decided_at: new Date(), decided_by: userId }).returning('*');
  return decided as DraftRow;
}

/** A location id of an asset: its building/floor/zone, when it has one. */
function locationId(location: { building?: string; floor?: number; zone?: string } | null): string | null {
  if (!location || (location.building === undefined && location.floor === undefined && location.zone === undefined)) return null;
  return [location.building ?? '', location.floor ?? '', location.zone ?? ''].join('/');
}

async function locationsOf(db: Queryable, tenantId: string, assetIds: string[]): Promise<Map<string, string>> {
  if (assetIds.length === 0) return new Map();
  const rows: Array<{ id: string; location: any }> = await db('assets').where({ tenant_id: tenantId }).whereIn('id', assetIds).select('id', 'location');
  const out = new Map<string, string>();
  for (const r of rows) {
    const id = locationId(r.location);
    if (id !== null) out.set(r.id, id);
  }
  return out;
}

/** Everything analyzePlan looks at, read from the tenant's tables. */
export async function optimizeInput(db: Queryable, plan: PlanRow, now: Date): Promise<OptimizeInput> {
  const tenantId = plan.tenant_id;
  const since = new Date(now.getTime() - 365 * DAY_MS);
  // One after the other: on a transaction they share one connection, where pg would queue them
  // anyway (and pg 9 refuses a query while another runs on the same client).
  const tasks = await db('maintenance_tasks').where({ tenant_id: tenantId, plan_id: plan.id }).where('due_at', '>=', since).select('due_at', 'completed_at', 'status');
  const corrective = plan.asset_ids.length
    ? await db('maintenance_tasks')
        .where({ tenant_id: tenantId, kind: 'corrective' })
        .where('created_at', '>=', since)
        .whereRaw('asset_ids && ?::uuid[]', [pgArray(plan.asset_ids)])
        .select('asset_ids', 'created_at')
    : [];
  const failures = plan.asset_ids.length
    ? await db('machine_events').where({ tenant_id: tenantId, severity: 'critical' }).where('ts', '>=', since).whereIn('asset_id', plan.asset_ids).select('asset_id', 'ts')
    : [];
  const technicians = await db('users as u')
    .where({ 'u.tenant_id': tenantId, 'u.role': 'technician', 'u.status': 'active' })
    .leftJoin('maintenance_tasks as t', function joinOpen() {
      this.on('t.assignee_id', 'u.id').andOn('t.tenant_id', 'u.tenant_id').andOnIn('t.status', ['open', 'in_progress']);
    })
    .groupBy('u.id')
    .select('u.id')
    .count({ open: 't.id' });
  const otherPlans = await db('maintenance_plans')
    .where({ tenant_id: tenantId, status: 'active' })
    .whereNull('deleted_at')
    .whereNot('id', plan.id)
    .select('id', 'trigger', 'asset_ids');
  const readings = await db('maintenance_counter_readings').where({ tenant_id: tenantId, plan_id: plan.id }).orderBy('read_at', 'desc').limit(20).select('read_at', 'total');
  const allAssets = [...new Set([...plan.asset_ids, ...otherPlans.flatMap((p: { asset_ids: string[] }) => p.asset_ids)])];
  const locations = await locationsOf(db, tenantId, allAssets);
  const condition = plan.trigger.type === 'condition' || plan.trigger.type === 'predictive' ? await conditionHistory(db, plan, since) : undefined;
  const locationIds = (ids: string[]) => [...new Set(ids.map((id) => locations.get(id)).filter((l): l is string => l !== undefined))];
  const points = readings.reverse().map((r: { read_at: Date; total: number }) => ({ at: isoTime(r.read_at), total: Number(r.total) }));
  return {
    now,
    plan: { id: plan.id, trigger: plan.trigger, assignee_id: plan.assignee_id, asset_ids: plan.asset_ids, location_ids: locationIds(plan.asset_ids) },
    tasks: tasks.map((t: { due_at: Date; completed_at: Date | null; status: any }) => ({ due_at: t.due_at, completed_at: t.completed_at, status: t.status })),
    asset_events: [
      ...corrective.map((c: { asset_ids: string[]; created_at: Date }) => ({ asset_id: c.asset_ids[0], occurred_at: c.created_at, kind: 'corrective' as const })),
      ...failures.map((f: { asset_id: string; ts: Date }) => ({ asset_id: f.asset_id, occurred_at: f.ts, kind: 'failure' as const })),
    ],
    technicians: (technicians as Array<{ id: string; open: string | number }>).map((t) => ({ id: t.id, open_tasks: Number(t.open) })),
    other_plans: otherPlans.map((p: { id: string; trigger: Trigger; asset_ids: string[] }) => ({
      id: p.id,
      trigger: p.trigger,
      asset_ids: p.asset_ids,
      location_ids: locationIds(p.asset_ids),
    })),
    counter_rate_per_hour: counterPartOf(plan.trigger) ? estimateRatePerHour(points, now) : null,
    ...(condition ? { condition } : {}),
  };
}

/** A condition or predictive plan's work orders in the window (the asset of each one's evidence) and the alerts raised on its assets since. */
async function conditionHistory(db: Queryable, plan: PlanRow, since: Date): Promise<NonNullable<OptimizeInput['condition']>> {
  const workOrders = await db('maintenance_tasks')
    .where({ tenant_id: plan.tenant_id, plan_id: plan.id, trigger: plan.trigger.type })
    .where('created_at', '>=', since)
    .select('created_at', db.raw(`evidence ->> 'asset_id' as asset_id`));
  const alerts = plan.asset_ids.length
    ? await db('asset_alerts').where({ tenant_id: plan.tenant_id }).whereIn('asset_id', plan.asset_ids).where('raised_at', '>=', since).select('asset_id', 'raised_at')
    : [];
  return {
    work_orders: workOrders
      .filter((w: { asset_id: string | null }) => w.asset_id !== null)
      .map((w: { asset_id: string; created_at: Date }) => ({ asset_id: w.asset_id, created_at: w.created_at })),
    alerts: alerts.map((a: { asset_id: string; raised_at: Date }) => ({ asset_id: a.asset_id, occurred_at: a.raised_at })),
  };
}
