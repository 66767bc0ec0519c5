/**
 * An asset's digital twin (state, anomalies, what-if simulations) and its prognostics, without
 * HTTP: reads take the tenant's scope, a simulation the unit of work; answers carry dates as Date.
 * api/routes/asset-twin.ts is the HTTP face.
 */
import { findOr404 } from '../db/find-or-404';
import { Queryable } from '../db/knex';
import { insertSimulation, lastSimulation, SIMULATION_COLUMNS, SimulationRow } from '../db/queries/asset-twin';
import { AssetRow, findAsset } from '../db/queries/assets';
import { activeBaselines } from '../db/queries/baselines';
import { effectiveConfig } from '../db/queries/predictive-configs';
import { LatestReading, latestReadings, recentReadings } from '../db/queries/readings';
import type { TenantScope } from '../db/tenant-scope';
import type { Unit } from '../db/unit-of-work';
import { Anomaly, DEFAULT_Z_THRESHOLD, detectAnomalies } from '../domain/assets/anomalies';
import { ToleranceBand } from '../domain/assets/band';
import { OperationalParameter, operationalParameterName, OPERATIONAL_PARAMETERS, PredictiveConfig } from '../domain/assets/predictive-config';
import { applyToCycles, projectParameters, resolveChanges, ScenarioChanges } from '../domain/assets/what-if';
import { describeInsufficient } from '../domain/prognostics';
import type { DegradationInsufficient, DegradationPrognosis } from '../domain/prognostics/degradation';
import { AssetPrognosis, assetCycleSeries, degradationPrognosis, FAILURE_WINDOW_DAYS, prognoseSeries, PROGNOSTICS_MODEL } from './asset-monitoring/prognosis';
import { bandOf } from '../db/queries/baselines';

export { FAILURE_WINDOW_DAYS, SIMULATION_COLUMNS };
export type { SimulationRow };

/** A sensor whose latest reading is older than this is listed as stale. */
export const STALE_AFTER_MS = 24 * 3_600_000;
/** Readings before the current one that the behaviour z-score is computed over. */
export const BEHAVIOUR_WINDOW = 50;

export interface SensorState {
  reading: LatestReading;
  stale: boolean;
}

export interface DigitalTwin {
  asset_id: string;
  /** The latest reading of every parameter. */
  active_sensors: SensorState[];
  operational_parameters: Record<OperationalParameter, SensorState | null>;
  last_simulation: SimulationRow | null;
  anomalies: Anomaly[];
  generated_at: Date;
}

export interface ScenarioOrder {
  changes: ScenarioChanges;
  label?: string;
}

const assetOr404 = (scope: TenantScope, id: string): Promise<AssetRow> => findOr404('asset', id, () => findAsset(scope, id));

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

async function prognosisOf(db: Queryable, tenantId: string, asset: { id: string; type: string }) {
  const config = await effectiveConfig(db, tenantId, asset.type);
  const input = await assetCycleSeries(db, tenantId, asset.id, config);
  return { config, input, body: prognosticsBody(prognoseSeries(input, config), input.series.length, config) };
}

async function bandsOf(db: Queryable, tenantId: string, assetId: string, config: PredictiveConfig): Promise<Map<string, ToleranceBand>> {
  const baselines = await activeBaselines(db, tenantId, [assetId]);
  return new Map(baselines.map((b) => [b.parameter, bandOf(b, config)]));
}

/**
 * The twin's state: the latest reading of every parameter, the operational parameters (as the
 * predictive config names them), the last simulation, and the current readings that are anomalous
 * against their baseline band or their own recent behaviour.
 */
export async function digitalTwin(scope: TenantScope, assetId: string): Promise<DigitalTwin> {
  const { db, tenantId } = scope;
  const asset = await assetOr404(scope, assetId);
  const config = await effectiveConfig(db, tenantId, asset.type);
  const [latest, bands, simulation] = await Promise.all([latestReadings(db, tenantId, [asset.id]), bandsOf(db, tenantId, asset.id, config), lastSimulation(scope, asset.id)]);
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
  const sensor = (reading: LatestReading): SensorState => ({ reading, stale: now - new Date(reading.ts).getTime() > STALE_AFTER_MS });
  return {
    asset_id: asset.id,
    active_sensors: latest.map(sensor),
    operational_parameters: Object.fromEntries(
      OPERATIONAL_PARAMETERS.map((name) => {
        const reading = byParameter.get(operationalParameterName(config, name));
        return [name, reading ? sensor(reading) : null];
      }),
    ) as DigitalTwin['operational_parameters'],
    last_simulation: simulation ?? null,
    anomalies,
    generated_at: new Date(now),
  };
}

/**
 * Runs a what-if scenario: the changes scale the parameters over the prognostics window and their
 * current values (judged against their baselines); the result, before and after, is stored and
 * becomes the twin's last simulation.
 */
export async function simulateScenario(unit: Unit, assetId: string, userId: string, order: ScenarioOrder): Promise<SimulationRow> {
  const tenantId = unit.scope.tenantId;
  const asset = await assetOr404(unit.scope, assetId);
  const { config, input, body: before } = await prognosisOf(unit.tx, tenantId, asset);
  const changes = resolveChanges(order.changes, config);
  const changed = { ...input, series: applyToCycles(input.series, changes, PROGNOSTICS_MODEL.feature_spec.window) };
  const after = prognosticsBody(prognoseSeries(changed, config), changed.series.length, config);
  const latest = await latestReadings(unit.tx, tenantId, [asset.id]);
  const bands = await bandsOf(unit.tx, tenantId, asset.id, config);
  const result = {
    changes,
    baseline: before,
    scenario: after,
    remaining_useful_life_change_days:
      before.remaining_useful_life !== null && after.remaining_useful_life !== null ? Math.round((after.remaining_useful_life - before.remaining_useful_life) * 10) / 10 : null,
    projected_parameters: projectParameters(changes, new Map(latest.map((r) => [r.parameter, r.value])), bands),
  };
  const stored = await insertSimulation(unit.scope, {
    asset_id: asset.id,
    scenario: { label: order.label ?? null, changes: order.changes },
    result,
    model_version: PROGNOSTICS_MODEL.model_version,
    created_by: userId,
  });
  unit.audit({ action: 'asset.simulation.run', resourceType: 'asset', resourceId: asset.id, details: { simulation_id: stored.id, targets: Object.keys(order.changes) } });
  return stored;
}

/**
 * Prognostics: the turbofan model for an asset type whose predictive config maps its parameters
 * to the model's sensors, the general degradation model for every other asset.
 */
export async function assetPrognostics(scope: TenantScope, assetId: string) {
  const { db, tenantId } = scope;
  const asset = await assetOr404(scope, assetId);
  const config = await effectiveConfig(db, tenantId, asset.type);
  if (Object.keys(config.model_inputs).length === 0) return degradationBody(await degradationPrognosis(db, tenantId, asset.id, config));
  return (await prognosisOf(db, tenantId, asset)).body;
}
