import Joi from '../../domain/joi';
import { AssetPrognosis, assetCycleSeries, degradationPrognosis, FAILURE_WINDOW_DAYS, prognoseSeries, PROGNOSTICS_MODEL } from '../../services/asset-monitoring/prognosis';
import { DEGRADATION_MODEL_VERSION, type DegradationInsufficient, type DegradationPrognosis } from '../../domain/prognostics/degradation';
import { bandOf } from '../../services/asset-monitoring/recompute';
import { activeBaselines } from '../../db/queries/baselines';
import { effectiveConfig } from '../../db/queries/predictive-configs';
import { latestReadings, LatestReading, recentReadings } from '../../db/queries/readings';
import { Queryable } from '../../db/knex';
import { tenantScope } from '../../db/tenant-scope';
import { DEFAULT_Z_THRESHOLD, detectAnomalies, MIN_BEHAVIOUR_WINDOW } from '../../domain/assets/anomalies';
import { ToleranceBand } from '../../domain/assets/band';
import { operationalParameterName, OPERATIONAL_PARAMETERS, PredictiveConfig } from '../../domain/assets/predictive-config';
import { applyToCycles, projectParameters, resolveChanges, ScenarioChanges } from '../../domain/assets/what-if';
import { describeInsufficient } from '../../domain/prognostics';
import { userOf } from '../context';
import { actorOf, runMutation } from '../mutation';
import { ApiRouter } from '../route';
import { resourceRoutes } from '../resource-routes';
import { parameterName } from './asset-alerts';
import { assetParams, assetResource, requireAsset } from '../resources/asset';
import { isoTime } from '../../domain/time';

/** Digital twin (state, anomalies, what-if simulations) and prognostics of an asset. */

/** A sensor whose latest reading is older than this is listed as stale. */
export const STALE_AFTER_MS = 24 * 3_600_000;
/** Readings before the current one that the behaviour z-score is computed over. */
export const BEHAVIOUR_WINDOW = 50;

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

/** The prognostics answer: with too little data, no number is given, only why (low confidence). */
export function prognosticsBody(p: AssetPrognosis, cyclesAvailable: number, config: PredictiveConfig) {
  const inputs = { cycles_available: cyclesAvailable, cycles_required: PROGNOSTICS_MODEL.feature_spec.window, cycle_length_days: config.cycle_length_days };
  if (p.status === 'ok') {
    return {
      status: 'ok' as const,
      remaining_useful_life: p.remaining_useful_life,
      remaining_useful_life_cycles: p.remaining_useful_life_cycles,
      rul_at_cap: p.rul_at_cap,
      failure_probability: p.failure_probability,
      failure_probability_lower_bound: p.failure_probability_lower_bound,
      horizon_days: p.horizon_days,
      recommended_action: p.recommended_action,
      confidence: p.confidence,
      confidence_level: p.confidence_level,
      out_of_range_features: p.out_of_range_features,
      model_version: p.model_version,
      reason: null,
      inputs,
    };
  }
  let reason: Record<string, unknown>;
  if (p.status === 'not_configured') {
    reason = { code: 'no_model_inputs', message: `no predictive config maps parameters of asset type "${config.asset_type}" to model sensors` };
  } else {
    const { reason: code, ...details } = p.insufficient;
    reason = { code, message: describeInsufficient(p.insufficient), ...details };
  }
  return { ...withoutNumbers(p.model_version, reason), remaining_useful_life_cycles: null, inputs };
}

/** Either model's answer when it has too little to go on: no number, only why (confidence 0). */
function withoutNumbers(modelVersion: string, reason: Record<string, unknown>) {
  return {
    status: 'insufficient_data' as const,
    remaining_useful_life: null,
    failure_probability: null,
    horizon_days: FAILURE_WINDOW_DAYS,
    recommended_action: 'collect_more_data',
    confidence: 0,
    confidence_level: 'low' as const,
    model_version: modelVersion,
    reason,
  };
}

/** The general model's answer (assets without a turbofan mapping), in the same shape plus its evidence. */
export function degradationBody(p: DegradationPrognosis | DegradationInsufficient) {
  if (p.status === 'insufficient_data') return withoutNumbers(p.model_version, { code: p.reason, message: p.message, parameters: p.parameters });
  const readings = p.drivers.reduce((n, d) => n + d.readings, 0);
  return {
    ...p,
    reason: null,
    evidence: { parameters: p.drivers.length, readings, days: Math.max(...p.drivers.map((d) => d.days)) },
  };
}

/**
 * GET /prognostics: the turbofan model for an asset type whose predictive config maps its
 * parameters to the model's sensors, the general degradation model for every other asset.
 */
async function assetPrognostics(db: Queryable, tenantId: string, asset: { id: string; type: string }) {
  const config = await effectiveConfig(db, tenantId, asset.type);
  if (Object.keys(config.model_inputs).length === 0) return degradationBody(await degradationPrognosis(db, tenantId, asset.id, config));
  return (await prognosisOf(db, tenantId, asset)).body;
}

async function prognosisOf(db: Queryable, tenantId: string, asset: { id: string; type: string }) {
  const config = await effectiveConfig(db, tenantId, asset.type);
  const input = await assetCycleSeries(db, tenantId, asset.id, config);
  return { config, input, body: prognosticsBody(prognoseSeries(input, config), input.series.length, config) };
}

interface SimulationRow {
  id: string;
  asset_id: string;
  scenario: { label: string | null; changes: ScenarioChanges };
  result: Record<string, unknown>;
  model_version: string | null;
  created_by: string | null;
  created_at: Date;
}
const SIMULATION_COLUMNS = ['id', 'asset_id', 'scenario', 'result', 'model_version', 'created_by', 'created_at'];

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

function sensorItem(r: LatestReading, now: number) {
  return {
    parameter: r.parameter,
    value: r.value,
    unit: r.unit,
    timestamp: isoTime(r.ts),
    source: r.source,
    stale: now - new Date(r.ts).getTime() > STALE_AFTER_MS,
  };
}

async function bandsOf(db: Queryable, tenantId: string, assetId: string, config: PredictiveConfig): Promise<Map<string, ToleranceBand>> {
  const baselines = await activeBaselines(db, tenantId, [assetId]);
  return new Map(baselines.map((b) => [b.parameter, bandOf(b, config)]));
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
      const { tenantId } = userOf(ctx);
      const db = ctx.deps.db;
      const scope = tenantScope(db, tenantId);
      const asset = await requireAsset(scope, params.asset_id);
      const config = await effectiveConfig(db, tenantId, asset.type);
      const [latest, bands, lastSimulation] = await Promise.all([
        latestReadings(db, tenantId, [asset.id]),
        bandsOf(db, tenantId, asset.id, config),
        scope
          .table('asset_simulations')
          .where('asset_id', asset.id)
          .orderBy([
            { column: 'created_at', order: 'desc' },
            { column: 'id', order: 'desc' },
          ])
          .first(SIMULATION_COLUMNS),
      ]);
      const history = await recentReadings(db, tenantId, latest, BEHAVIOUR_WINDOW + 1);
      const now = Date.now();
      const byParameter = new Map(latest.map((r) => [r.parameter, r]));
      const anomalies = detectAnomalies(
        latest.map((r) => {
          const points = history.filter((h) => h.parameter === r.parameter).sort((a, b) => new Date(b.ts).getTime() - new Date(a.ts).getTime());
          const [current, ...previous] = points;
          return {
            parameter: r.parameter,
            current: current ? { t: new Date(current.ts).getTime(), value: current.value } : { t: new Date(r.ts).getTime(), value: r.value },
            previous: previous.map((p) => p.value),
            band: bands.get(r.parameter) ?? null,
          };
        }),
        DEFAULT_Z_THRESHOLD / config.alert_sensitivity,
      );
      ctx.body = {
        asset_id: asset.id,
        active_sensors: latest.map((r) => sensorItem(r, now)),
        operational_parameters: Object.fromEntries(
          OPERATIONAL_PARAMETERS.map((name) => {
            const reading = byParameter.get(operationalParameterName(config, name));
            return [name, reading ? sensorItem(reading, now) : null];
          }),
        ),
        last_simulation: lastSimulation ? toSimulation(lastSimulation) : null,
        anomalies,
        generated_at: new Date(now).toISOString(),
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
      const row = await runMutation(ctx, tenantId, actorOf(ctx), async (unit) => {
        const asset = await requireAsset(unit.scope, params.asset_id);
        const { config, input, body: before } = await prognosisOf(unit.tx, tenantId, asset);
        const changes = resolveChanges(body.changes, config);
        const changed = { ...input, series: applyToCycles(input.series, changes, PROGNOSTICS_MODEL.feature_spec.window) };
        const after = prognosticsBody(prognoseSeries(changed, config), changed.series.length, config);
        const latest = await latestReadings(unit.tx, tenantId, [asset.id]);
        const bands = await bandsOf(unit.tx, tenantId, asset.id, config);
        const result = {
          changes,
          baseline: before,
          scenario: after,
          remaining_useful_life_change_days:
            before.remaining_useful_life !== null && after.remaining_useful_life !== null
              ? Math.round((after.remaining_useful_life - before.remaining_useful_life) * 10) / 10
              : null,
          projected_parameters: projectParameters(changes, new Map(latest.map((r) => [r.parameter, r.value])), bands),
        };
        const [stored] = await unit.scope.insert(
          'asset_simulations',
          {
            asset_id: asset.id,
            scenario: JSON.stringify({ label: body.label ?? null, changes: body.changes }),
            result: JSON.stringify(result),
            model_version: PROGNOSTICS_MODEL.model_version,
            created_by: userId,
          },
          SIMULATION_COLUMNS,
        );
        unit.audit({ action: 'asset.simulation.run', resourceType: 'asset', resourceId: asset.id, details: { simulation_id: stored.id, targets: Object.keys(body.changes) } });
        return stored as SimulationRow;
      });
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
      const { tenantId } = userOf(ctx);
      const asset = await requireAsset(tenantScope(ctx.deps.db, tenantId), params.asset_id);
      ctx.body = { ...(await assetPrognostics(ctx.deps.db, tenantId, asset)), computed_at: new Date().toISOString() };
    },
  });
}
