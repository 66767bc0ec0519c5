import Joi from '../../domain/joi';
import { DEGRADATION_MODEL_VERSION } from '../../domain/prognostics/degradation';
import { DEFAULT_Z_THRESHOLD, MIN_BEHAVIOUR_WINDOW } from '../../domain/assets/anomalies';
import { ScenarioChanges } from '../../domain/assets/what-if';
import { tenantScopeOf, userOf } from '../context';
import { actorOf, runMutation } from '../mutation';
import { ApiRouter } from '../route';
import { resourceRoutes } from '../resource-routes';
import { parameterName } from './asset-alerts';
import { assetParams, assetResource } from '../resources/asset';
import { isoTime } from '../../domain/time';
import { assetPrognostics, BEHAVIOUR_WINDOW, digitalTwin, FAILURE_WINDOW_DAYS, SensorState, SIMULATION_COLUMNS, SimulationRow, simulateScenario } from '../../services/asset-twin';

/** Digital twin (state, anomalies, what-if simulations) and prognostics of an asset. */

const recommendedActions = ['immediate_maintenance', 'schedule_maintenance', 'inspect', 'monitor', 'continue_operation', 'collect_more_data'];

const prognosticsSchema = Joi.object({
  status: Joi.string().valid('ok', 'insufficient_data'),
  remaining_useful_life: Joi.number().allow(null).description('Days (cycles × cycle_length_days of the predictive config); null without enough data'),
  remaining_useful_life_cycles: Joi.number().allow(null),
  failure_probability: Joi.number().min(0).max(1).allow(null).description(`Probability of failure within ${FAILURE_WINDOW_DAYS} days`),
  recommended_action: Joi.string().valid(...recommendedActions),
  confidence: Joi.number().min(0).max(1),
  confidence_level: Joi.string().valid('low', 'medium', 'high'),
  model_version: Joi.string(),
  reason: Joi.object({ code: Joi.string(), message: Joi.string() }).unknown(true).allow(null),
  trend_failure_probability: Joi.number().min(0).max(1).description("General model: the part of failure_probability that comes from the parameters' trends"),
  failure_history: Joi.object({
    asset_type: Joi.string(),
    window_days: Joi.number().integer(),
    assets: Joi.number().integer().min(0),
    exposure_days: Joi.number().min(0),
    corrective_tasks: Joi.number().integer().min(0),
    failures_per_asset_year: Joi.number().min(0),
    failure_probability: Joi.number().min(0).max(1),
  })
    .allow(null)
    .description(
      "General model: corrective tasks on assets of this type in the tenant over the last year, and the probability of a failure within the horizon they give alone (joined to the trends' as independent causes); null without any",
    ),
}).unknown(true);

function toSimulation(row: SimulationRow) {
  return {
    id: row.id,
    asset_id: row.asset_id,
    label: row.scenario.label,
    changes: row.scenario.changes,
    result: row.result,
    model_version: row.model_version,
    created_by: row.created_by,
    created_at: isoTime(row.created_at),
  };
}

const simulationSchema = Joi.object({
  id: Joi.string(),
  asset_id: Joi.string(),
  label: Joi.string().allow(null),
  changes: Joi.object().pattern(Joi.string(), Joi.number()),
  result: Joi.object().unknown(true),
  model_version: Joi.string().allow(null),
  created_by: Joi.string().allow(null),
  created_at: Joi.string().isoDate(),
});

function sensorItem({ reading: r, stale }: SensorState) {
  return { parameter: r.parameter, value: r.value, unit: r.unit, timestamp: isoTime(r.ts), source: r.source, stale };
}

export function registerDigitalTwinRoutes(api: ApiRouter): void {
  api.route<{ asset_id: string }>({
    method: 'get',
    path: '/:asset_id/digital-twin',
    summary: 'Digital twin state',
    description:
      'active_sensors: the latest reading of every parameter (`stale` after 24 h); operational_parameters: speed, load, temperature, pressure ' +
      '(asset parameters of those names, or as mapped in the predictive config); last_simulation; anomalies: current readings outside their ' +
      `baseline band (baseline_deviation) or ${DEFAULT_Z_THRESHOLD}σ (divided by the alert sensitivity) away from the parameter's previous ` +
      `${BEHAVIOUR_WINDOW} readings (behaviour_shift, needs ${MIN_BEHAVIOUR_WINDOW}).`,
    tags: ['assets'],
    auth: 'user',
    permission: 'view_assets',
    params: assetParams,
    responses: { 200: { description: 'Digital twin state', schema: Joi.object().unknown(true) }, 404: { description: 'Not found' } },
    handler: async (ctx, { params }) => {
      const twin = await digitalTwin(tenantScopeOf(ctx), params.asset_id);
      ctx.body = {
        asset_id: twin.asset_id,
        active_sensors: twin.active_sensors.map(sensorItem),
        operational_parameters: Object.fromEntries(Object.entries(twin.operational_parameters).map(([name, sensor]) => [name, sensor ? sensorItem(sensor) : null])),
        last_simulation: twin.last_simulation ? toSimulation(twin.last_simulation) : null,
        anomalies: twin.anomalies,
        generated_at: twin.generated_at.toISOString(),
      };
    },
  });

  api.route<{ asset_id: string }, unknown, { changes: ScenarioChanges; label?: string }>({
    method: 'post',
    path: '/:asset_id/digital-twin/simulate',
    summary: 'Run a what-if scenario',
    description:
      'Body: `{"changes": {"load": 20}, "label": "..."}`: percent changes of operational parameters (speed, load, temperature, pressure) or ' +
      'of named asset parameters. Each change scales the parameter over the prognostics window (as if the asset had run at that operating ' +
      'point) and its current value, which is judged against its baseline. The result (prognosis before and after, RUL change, projected ' +
      "parameters) is stored and becomes the twin's last_simulation.",
    tags: ['assets'],
    auth: 'user',
    permission: 'manage_assets',
    params: assetParams,
    body: Joi.object({
      changes: Joi.object().pattern(parameterName, Joi.number().min(-100).max(1000)).min(1).max(20).required(),
      label: Joi.string().trim().max(200),
    }),
    responses: { 201: { description: 'The stored simulation', schema: simulationSchema }, 404: { description: 'Not found' } },
    handler: async (ctx, { params, body }) => {
      const { tenantId, userId } = userOf(ctx);
      const row = await runMutation(ctx, tenantId, actorOf(ctx), (unit) => simulateScenario(unit, params.asset_id, userId, body));
      ctx.status = 201;
      ctx.body = toSimulation(row);
    },
  });

  resourceRoutes(api, assetResource).children({
    sub: 'digital-twin/simulations',
    summary: 'Simulated scenarios of an asset',
    description: 'Newest first.',
    found: 'A page of simulations',
    item: simulationSchema,
    table: 'asset_simulations',
    foreignKey: 'asset_id',
    columns: SIMULATION_COLUMNS,
    orderBy: [
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ],
    present: toSimulation,
  });

  api.route<{ asset_id: string }>({
    method: 'get',
    path: '/:asset_id/prognostics',
    summary: 'Prognostics: remaining useful life and failure probability',
    description:
      `Asset types whose predictive config maps parameters to model sensors: those readings, averaged per cycle (cycle_length_days), through the ` +
      `C-MAPSS-trained model (domain/prognostics/README.md); RUL in days = cycles × cycle_length_days. Every other asset: the general degradation ` +
      `model (model_version ${DEGRADATION_MODEL_VERSION}): each parameter with an active baseline is fitted (robust linear or exponential trend) and ` +
      `projected to the edge of its band; remaining_useful_life is the earliest crossing in days (null: no parameter heads for a limit), with ` +
      `drivers (per parameter: shape, limit, crossing date, 90 % interval, readings and days used) and evidence. failure_probability within ` +
      `${FAILURE_WINDOW_DAYS} days. With too little data: status insufficient_data, null numbers, confidence 0 (low) and the reason, saying what is missing.`,
    tags: ['assets'],
    auth: 'user',
    permission: 'view_assets',
    params: assetParams,
    responses: { 200: { description: 'Prognostics', schema: prognosticsSchema }, 404: { description: 'Not found' } },
    handler: async (ctx, { params }) => {
      ctx.body = { ...(await assetPrognostics(tenantScopeOf(ctx), params.asset_id)), computed_at: new Date().toISOString() };
    },
  });
}
