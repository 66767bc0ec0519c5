import Joi from '../../domain/joi';
import type { Schema } from 'joi';
import type { AlertRow } from '../../db/queries/alerts';
import type { BaselineRow } from '../../db/queries/baselines';
import { acknowledgeAlert, AlertFilter, BaselineFilter, BaselineOrder, listAlerts, listAssetAlerts, listBaselines, setAssetBaseline } from '../../services/asset-alerts';
import { tenantScopeOf, userOf } from '../context';
import { actorOf, runMutation } from '../mutation';
import { pageQuery, pageOf } from '../pagination';
import { mapPage, PageRequest } from '../../db/pagination';
import { ApiRouter } from '../route';
import { assetParams } from '../resources/asset';
import { idRef } from '../validation';
import { isoTime } from '../../domain/time';

/** Baselines of an asset's parameters and the alerts their excursions raise. */

export const parameterName = Joi.string()
  .trim()
  .min(1)
  .max(100)
  .pattern(/^[A-Za-z0-9_.:\-/]+$/)
  .description('Parameter name: letters, digits, _ . : - /');

const baselineBody = Joi.object({
  parameter: parameterName.required(),
  baseline_value: Joi.number().required(),
  tolerance_percent: Joi.number().min(0).max(1000).required(),
  measurement_unit: Joi.string().trim().max(50).allow(null),
});

const baselineSchema = Joi.object({
  id: Joi.string(),
  asset_id: Joi.string(),
  parameter: Joi.string(),
  baseline_value: Joi.number(),
  tolerance_percent: Joi.number(),
  measurement_unit: Joi.string().allow(null),
  active: Joi.boolean().description('The baseline alerts are judged against; older ones are kept as history'),
  created_at: Joi.string().isoDate(),
  superseded_at: Joi.string().isoDate().allow(null),
});

export function toBaseline(row: BaselineRow) {
  return {
    id: row.id,
    asset_id: row.asset_id,
    parameter: row.parameter,
    baseline_value: row.baseline_value,
    tolerance_percent: row.tolerance_percent,
    measurement_unit: row.measurement_unit,
    active: row.active,
    created_at: isoTime(row.created_at),
    superseded_at: isoTime(row.superseded_at),
  };
}

export const alertSchema = Joi.object({
  id: Joi.string(),
  asset_id: Joi.string(),
  parameter: Joi.string(),
  status: Joi.string().valid('open', 'acknowledged', 'resolved'),
  severity: Joi.string().valid('warning', 'critical').description('critical beyond twice the tolerance (peak)'),
  direction: Joi.string().valid('above', 'below'),
  value: Joi.number().description('The reading that raised the alert'),
  peak_value: Joi.number(),
  last_value: Joi.number().description('The last reading outside the band'),
  baseline_value: Joi.number(),
  lower_bound: Joi.number(),
  upper_bound: Joi.number(),
  raised_at: Joi.string().isoDate().description('Device time of the reading that raised it'),
  last_reading_at: Joi.string().isoDate(),
  resolved_at: Joi.string().isoDate().allow(null).description('Device time of the first reading back inside'),
  resolved_value: Joi.number().allow(null),
  acknowledged_at: Joi.string().isoDate().allow(null),
  acknowledged_by: Joi.string().allow(null),
  acknowledge_note: Joi.string().allow(null),
});

export function toAlert(row: AlertRow) {
  return {
    id: row.id,
    asset_id: row.asset_id,
    parameter: row.parameter,
    status: row.status,
    severity: row.severity,
    direction: row.direction,
    value: row.value,
    peak_value: row.peak_value,
    last_value: row.last_value,
    baseline_value: row.baseline_value,
    lower_bound: row.lower_bound,
    upper_bound: row.upper_bound,
    raised_at: isoTime(row.raised_at),
    last_reading_at: isoTime(row.last_reading_at),
    resolved_at: isoTime(row.resolved_at),
    resolved_value: row.resolved_value,
    acknowledged_at: isoTime(row.acknowledged_at),
    acknowledged_by: row.acknowledged_by,
    acknowledge_note: row.acknowledge_note,
  };
}

const page = (item: Schema) => pageOf(item);

type AlertFilters = PageRequest & AlertFilter;

const alertFilters = {
  ...pageQuery,
  status: Joi.string().valid('open', 'acknowledged', 'resolved', 'unresolved').description('unresolved = open or acknowledged'),
  severity: Joi.string().valid('warning', 'critical'),
  parameter: Joi.string().max(100),
  raised_from: Joi.date().iso(),
  raised_to: Joi.date().iso(),
};

/** GET /assets/alerts (every asset of the tenant): registered before /:asset_id. */
/** What the tenant's and an asset's alert lists share: who may read them, and their page. */
const alertList = { method: 'get' as const, readOnly: true as const, tags: ['assets'], auth: 'user' as const, permission: 'view_assets' as const };
const alertPage = { 200: { description: 'A page of alerts', schema: page(alertSchema) } };

export function registerAlertListRoute(api: ApiRouter): void {
  api.route<unknown, AlertFilters>({
    ...alertList,
    path: '/alerts',
    summary: "Alerts of the tenant's assets",
    description: 'Newest first. Filters: status (`unresolved` = open or acknowledged), severity, parameter, asset_id, raised_from/raised_to (device time).',
    query: Joi.object({ ...alertFilters, asset_id: idRef }),
    responses: alertPage,
    handler: async (ctx, { query }) => {
      ctx.body = mapPage(await listAlerts(tenantScopeOf(ctx), query, query), toAlert);
    },
  });
}

export function registerBaselineRoutes(api: ApiRouter): void {
  api.route<{ asset_id: string }, unknown, BaselineOrder>({
    method: 'post',
    path: '/:asset_id/baselines',
    summary: "Set a parameter's baseline",
    description:
      'Becomes the active baseline of its parameter; the previous one is kept as history (`active: false`). A reading outside ' +
      '`baseline_value ± tolerance_percent` % of |baseline_value| raises an alert. The latest reading is judged against the new baseline at once.',
    tags: ['assets'],
    auth: 'user',
    permission: 'manage_assets',
    params: assetParams,
    body: baselineBody,
    responses: { 201: { description: 'The new active baseline', schema: baselineSchema }, 404: { description: 'Not found' } },
    handler: async (ctx, { params, body }) => {
      const { tenantId, userId } = userOf(ctx);
      const created = await runMutation(ctx, tenantId, actorOf(ctx), (unit) => setAssetBaseline(unit, params.asset_id, userId, body));
      ctx.status = 201;
      ctx.body = toBaseline(created);
    },
  });

  api.route<{ asset_id: string }, PageRequest & BaselineFilter>({
    method: 'get',
    path: '/:asset_id/baselines',
    summary: 'Baselines of an asset',
    description: 'Active baselines by parameter; with `history=true` the superseded ones too (newest first within a parameter).',
    tags: ['assets'],
    auth: 'user',
    permission: 'view_assets',
    params: assetParams,
    query: Joi.object({ ...pageQuery, parameter: Joi.string().max(100), history: Joi.boolean().default(false) }),
    responses: { 200: { description: 'A page of baselines', schema: page(baselineSchema) }, 404: { description: 'Not found' } },
    handler: async (ctx, { params, query }) => {
      ctx.body = mapPage(await listBaselines(tenantScopeOf(ctx), params.asset_id, query, query), toBaseline);
    },
  });
}

export function registerAlertRoutes(api: ApiRouter): void {
  api.route<{ asset_id: string }, AlertFilters>({
    ...alertList,
    path: '/:asset_id/alerts',
    summary: 'Alerts of an asset',
    params: assetParams,
    query: Joi.object(alertFilters),
    responses: { ...alertPage, 404: { description: 'Not found' } },
    handler: async (ctx, { params, query }) => {
      ctx.body = mapPage(await listAssetAlerts(tenantScopeOf(ctx), params.asset_id, query, query), toAlert);
    },
  });

  api.route<{ asset_id: string; alert_id: string }, unknown, { note?: string }>({
    method: 'post',
    path: '/:asset_id/alerts/:alert_id/acknowledge',
    summary: 'Acknowledge an alert',
    description:
      'Marks the alert as seen: an open alert becomes `acknowledged` (still deduplicating its excursion until readings return inside). ' +
      'A resolved alert keeps its status and records the acknowledgement. Acknowledging again changes nothing.',
    tags: ['assets'],
    auth: 'user',
    permission: 'manage_assets',
    params: assetParams.keys({ alert_id: idRef.required() }),
    body: Joi.object({ note: Joi.string().trim().max(1000) }),
    responses: { 200: { description: 'The alert', schema: alertSchema }, 404: { description: 'Not found' } },
    handler: async (ctx, { params, body }) => {
      const { tenantId, userId } = userOf(ctx);
      const alert = await runMutation(ctx, tenantId, actorOf(ctx), (unit) => acknowledgeAlert(unit, params.asset_id, params.alert_id, userId, body.note ?? null));
      ctx.body = toAlert(alert);
    },
  });
}
