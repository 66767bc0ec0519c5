import Joi from '../../domain/joi';
import { OPERATIONAL_PARAMETERS, PredictiveConfig } from '../../domain/assets/predictive-config';
import { DEFAULT_ACTION_THRESHOLDS } from '../../domain/prognostics';
import {
  EffectivePredictiveConfig,
  effectivePredictiveConfig,
  listPredictiveConfigs,
  MODEL_SENSORS,
  PredictiveConfigRow,
  requireStoredConfig,
  setPredictiveConfig,
  storedConfigOf,
} from '../../services/predictive-config';
import { tenantScopeOf, userOf } from '../context';
import { actorOf, runMutation } from '../mutation';
import { resourceRoutes } from '../resource-routes';
import { ApiRouter } from '../route';
import { parameterName } from './asset-alerts';
import { isoTime } from '../../domain/time';

/** Predictive configuration per asset type (services/predictive-config.ts says what reads it). */

const modelInputs = Joi.object()
  .pattern(parameterName, Joi.string().valid(...MODEL_SENSORS))
  .custom((value: Record<string, string>, helpers) => {
    const sensors = Object.values(value);
    const twice = sensors.find((s, i) => sensors.indexOf(s) !== i);
    return twice ? helpers.message({ custom: `model sensor ${twice} is fed by more than one parameter` }) : value;
  })
  .description(`Asset parameter → model sensor (${MODEL_SENSORS.join(', ')}); the model needs all of them`);

const probability = Joi.number().min(0).max(1);
const days = Joi.number().min(0).max(36_500);
const actionThresholds = Joi.object({
  immediate_probability: probability,
  immediate_rul_days: days,
  schedule_probability: probability,
  schedule_rul_days: days,
  monitor_rul_days: days,
})
  .custom((value: Partial<typeof DEFAULT_ACTION_THRESHOLDS>, helpers) => {
    const t = { ...DEFAULT_ACTION_THRESHOLDS, ...value };
    if (t.schedule_probability > t.immediate_probability) return helpers.message({ custom: 'schedule_probability must not exceed immediate_probability' });
    if (!(t.immediate_rul_days <= t.schedule_rul_days && t.schedule_rul_days <= t.monitor_rul_days)) {
      return helpers.message({ custom: 'immediate_rul_days <= schedule_rul_days <= monitor_rul_days is required' });
    }
    return t;
  })
  .description('Omitted thresholds take their defaults');

const configBody = Joi.object({
  model_inputs: modelInputs.default({}),
  cycle_length_days: Joi.number().greater(0).max(365).default(1).description('Days one model cycle stands for'),
  action_thresholds: actionThresholds.default(DEFAULT_ACTION_THRESHOLDS),
  alert_sensitivity: Joi.number().min(0.1).max(10).default(1).description('Divides baseline tolerances and the anomaly z threshold (2 = twice as sensitive)'),
  operational_parameters: Joi.object(Object.fromEntries(OPERATIONAL_PARAMETERS.map((p) => [p, parameterName]))).default({}),
  failure_limits: Joi.object()
    .pattern(parameterName, Joi.object({ upper: Joi.number(), lower: Joi.number() }).or('upper', 'lower'))
    .max(100)
    .default({})
    .description('Failure limits by parameter (`{"vibration": {"upper": 7.1}}`): the general prognostics model projects to them instead of the baseline band'),
});

const configSchema = Joi.object({
  asset_type: Joi.string(),
  configured: Joi.boolean().description('false: nothing stored, these are the defaults'),
  model_inputs: Joi.object().pattern(Joi.string(), Joi.string()),
  cycle_length_days: Joi.number(),
  action_thresholds: Joi.object().unknown(true),
  alert_sensitivity: Joi.number(),
  operational_parameters: Joi.object().pattern(Joi.string(), Joi.string()),
  failure_limits: Joi.object().pattern(Joi.string(), Joi.object({ upper: Joi.number(), lower: Joi.number() })),
  updated_at: Joi.string().isoDate().allow(null),
});

const typeParams = Joi.object({ asset_type: Joi.string().trim().min(1).max(100).required() });

function toBody({ config, row }: EffectivePredictiveConfig) {
  return { ...config, configured: row !== null, updated_at: row ? isoTime(row.updated_at) : null };
}

export function predictiveConfigRoutes(): ApiRouter {
  const api = new ApiRouter('/api/v1/predictive-config');
  // A stored config, named by its asset type; the GET and PUT below also answer for a type with none stored.
  const config = resourceRoutes<PredictiveConfigRow>(api, {
    path: '/:asset_type',
    params: typeParams,
    tags: ['predictive-config'],
    view: 'view_assets',
    schema: configSchema,
    find: requireStoredConfig,
    present: (row) => toBody(storedConfigOf(row)),
    write: { permission: 'manage_assets', audit: 'predictive_config', table: 'predictive_configs' },
  });
  config.list({
    summary: 'Stored predictive configs of the tenant',
    found: 'A page of configs',
    load: listPredictiveConfigs,
  });

  api.route<{ asset_type: string }>({
    method: 'get',
    path: '/:asset_type',
    summary: 'Effective predictive config of an asset type',
    description: 'The stored config, or the defaults (`configured: false`).',
    tags: ['predictive-config'],
    auth: 'user',
    permission: 'view_assets',
    params: typeParams,
    responses: { 200: { description: 'Config', schema: configSchema } },
    handler: async (ctx, { params }) => {
      ctx.body = toBody(await effectivePredictiveConfig(tenantScopeOf(ctx), params.asset_type));
    },
  });

  api.route<{ asset_type: string }, unknown, Omit<PredictiveConfig, 'asset_type'>>({
    method: 'put',
    path: '/:asset_type',
    summary: 'Set the predictive config of an asset type',
    description: 'Replaces the whole config; omitted fields take their defaults. Effective from the next reading and the next prognosis.',
    tags: ['predictive-config'],
    auth: 'user',
    permission: 'manage_assets',
    params: typeParams,
    body: configBody,
    responses: { 200: { description: 'Stored config', schema: configSchema } },
    handler: async (ctx, { params, body }) => {
      const stored = await runMutation(ctx, userOf(ctx).tenantId, actorOf(ctx), (unit) => setPredictiveConfig(unit, params.asset_type, body));
      ctx.body = toBody(stored);
    },
  });

  config.remove(
    { summary: 'Remove the predictive config of an asset type (back to the defaults)', removed: 'Removed', responses: { 404: { description: 'No config stored for the type' } } },
    { before: async (_unit, row) => ({ asset_type: row.asset_type }) },
  );

  return api;
}
