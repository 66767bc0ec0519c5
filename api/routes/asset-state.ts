import Joi from '../../domain/joi';
import type { Schema } from 'joi';
import { INSPECTION_COLUMNS, InspectionRow } from '../../db/queries/asset-state';
import { CONDITIONS, Condition, HEALTH_STATUSES } from '../../domain/assets/health';
import { tenantScopeOf, userOf } from '../context';
import { actorOf, runMutation } from '../mutation';
import { pageQuery, pageOf } from '../pagination';
import { mapPage, PageRequest } from '../../db/pagination';
import { ApiRouter } from '../route';
import { resourceRoutes } from '../resource-routes';
import { parameterName } from './asset-alerts';
import { assetParams, assetResource } from '../resources/asset';
import { isoTime } from '../../domain/time';
import { assetCondition, assetHealth, listAssetReadings, ReadingFilter, ReadingRow, recordAssetInspection } from '../../services/asset-state';

/** Stored health and condition of an asset, its inspections and its readings. */

/** Devices and people may be a little ahead of the server's clock; beyond this a time is refused. */
export const MAX_CLOCK_SKEW_MS = 5 * 60_000;
export const notInFuture = (label: string) =>
  Joi.date()
    .iso()
    .custom((value: Date, helpers) => (value.getTime() > Date.now() + MAX_CLOCK_SKEW_MS ? helpers.message({ custom: `${label} is in the future` }) : value));

const dateOnly = (d: Date | null) => (d ? new Date(d).toISOString().slice(0, 10) : null);

const factorSchema = Joi.object({
  name: Joi.string(),
  kind: Joi.string().valid('parameter', 'inspection'),
  score: Joi.number().integer(),
  trend: Joi.string().valid('stable', 'improving', 'declining'),
}).unknown(true);

const healthSchema = Joi.object({
  health_score: Joi.number().integer().min(0).max(100),
  status: Joi.string().valid(...HEALTH_STATUSES),
  factors: Joi.array().items(factorSchema),
  last_updated: Joi.string().isoDate(),
});

const conditionSchema = Joi.object({
  overall_condition: Joi.string().valid(...CONDITIONS),
  parameters: Joi.array().items(Joi.object().unknown(true)),
  last_inspection: Joi.string().allow(null).description('YYYY-MM-DD (UTC)'),
  next_inspection: Joi.string()
    .allow(null)
    .description(
      'YYYY-MM-DD (UTC): when the next inspection is due, the earliest of the next due dates of the active inspection plans (`task_kind: inspection`) of the asset and the due dates of its open inspection tasks (an overdue one included); null when there is none. Preventive plans do not count.',
    ),
  open_work_orders: Joi.number().integer(),
  updated_at: Joi.string().isoDate().allow(null),
});

const inspectionSchema = Joi.object({
  id: Joi.string(),
  asset_id: Joi.string(),
  performed_at: Joi.string().isoDate(),
  condition: Joi.string().valid(...CONDITIONS),
  notes: Joi.string().allow(null),
  recorded_by: Joi.string().allow(null),
  created_at: Joi.string().isoDate(),
});

function toInspection(row: InspectionRow) {
  return {
    id: row.id,
    asset_id: row.asset_id,
    performed_at: isoTime(row.performed_at),
    condition: row.condition,
    notes: row.notes,
    recorded_by: row.recorded_by,
    created_at: isoTime(row.created_at),
  };
}

const toReading = (r: ReadingRow) => ({
  parameter: r.parameter,
  timestamp: isoTime(r.ts),
  value: r.value,
  unit: r.unit,
  source: r.source,
  event_id: r.sender_event_id,
  received_at: isoTime(r.received_at),
});

const readingSchema = Joi.object({
  parameter: Joi.string(),
  timestamp: Joi.string().isoDate(),
  value: Joi.number(),
  unit: Joi.string().allow(null),
  source: Joi.string().allow(null),
  event_id: Joi.string(),
  received_at: Joi.string().isoDate(),
});

const page = (item: Schema) => pageOf(item);

export function registerAssetStateRoutes(api: ApiRouter): void {
  const asset = resourceRoutes(api, assetResource);
  asset.get(
    {
      sub: 'health',
      summary: 'Asset health',
      description:
        'Stored health, recomputed on every reading, inspection and baseline change (domain/assets/README.md explains the score from its factors). ' +
        'An asset with no evidence yet answers 100 / excellent with no factors.',
      found: 'Asset health',
      schema: healthSchema,
    },
    async (row, scope) => {
      const health = await assetHealth(scope, row);
      return { ...health, last_updated: isoTime(health.last_updated) };
    },
  );

  asset.get(
    {
      sub: 'condition',
      summary: 'Asset condition',
      description:
        'overall_condition and parameters are stored, recomputed on every reading, completed inspection and baseline change; next_inspection (from its inspection plans and open inspection tasks) and ' +
        'open_work_orders come from the maintenance plans and tasks of the asset when read.',
      found: 'Asset condition',
      schema: conditionSchema,
    },
    async (row, scope) => {
      const condition = await assetCondition(scope, row);
      return {
        overall_condition: condition.overall_condition,
        parameters: condition.parameters,
        last_inspection: dateOnly(condition.last_inspection_at),
        next_inspection: dateOnly(condition.next_inspection_at),
        open_work_orders: condition.open_work_orders,
        updated_at: isoTime(condition.updated_at),
      };
    },
  );

  api.route<{ asset_id: string }, unknown, { performed_at?: Date; condition: Condition; notes?: string }>({
    method: 'post',
    path: '/:asset_id/inspections',
    summary: 'Record a completed inspection',
    description: "The inspector's rating (`good`, `fair`, `poor`, `critical`) enters condition and health at once. `performed_at` defaults to now.",
    tags: ['assets'],
    auth: 'user',
    permission: 'manage_assets',
    params: assetParams,
    body: Joi.object({
      performed_at: notInFuture('performed_at'),
      condition: Joi.string()
        .valid(...CONDITIONS)
        .required(),
      notes: Joi.string().trim().max(4000),
    }),
    responses: { 201: { description: 'The inspection', schema: inspectionSchema }, 404: { description: 'Not found' } },
    handler: async (ctx, { params, body }) => {
      const { tenantId, userId } = userOf(ctx);
      const now = new Date();
      const row = await runMutation(ctx, tenantId, actorOf(ctx), (unit) => recordAssetInspection(unit, params.asset_id, { ...body, recorded_by: userId }, now));
      ctx.status = 201;
      ctx.body = toInspection(row);
    },
  });

  asset.children({
    sub: 'inspections',
    summary: 'Inspections of an asset',
    description: 'Newest performed first.',
    found: 'A page of inspections',
    item: inspectionSchema,
    table: 'asset_inspections',
    foreignKey: 'asset_id',
    columns: INSPECTION_COLUMNS,
    orderBy: [{ column: 'performed_at', order: 'desc' }, { column: 'created_at', order: 'desc' }, { column: 'id' }],
    present: toInspection,
  });

  api.route<{ asset_id: string }, PageRequest & ReadingFilter>({
    method: 'get',
    path: '/:asset_id/readings',
    summary: 'Sensor readings of an asset',
    description: 'Newest first by device time; `from` inclusive, `to` exclusive.',
    tags: ['assets'],
    auth: 'user',
    permission: 'view_assets',
    params: assetParams,
    query: Joi.object({ ...pageQuery, parameter: parameterName, from: Joi.date().iso(), to: Joi.date().iso() }),
    responses: { 200: { description: 'A page of readings', schema: page(readingSchema) }, 404: { description: 'Not found' } },
    handler: async (ctx, { params, query }) => {
      ctx.body = mapPage(await listAssetReadings(tenantScopeOf(ctx), params.asset_id, query, query), toReading);
    },
  });
}
