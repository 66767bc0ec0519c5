import type { CycleRecord } from '../prognostics/types';
import { bandPosition, round2, ToleranceBand } from './band';
import { operationalParameterName, OPERATIONAL_PARAMETERS, OperationalParameter, PredictiveConfig } from './predictive-config';
import { ownValue } from '../own';

/**
 * What-if scenarios of the digital twin: percent changes of operational parameters (`load`,
 * `speed`, ...) or of named asset parameters. A change is applied to the model cycles the
 * prognosis reads (as if the asset had run at that operating point over the model's window) and to
 * the current readings, which are then judged against their baselines.
 */

/** Target name (an operational parameter or an asset parameter) → change in percent. */
export type ScenarioChanges = Readonly<Record<string, number>>;

export interface ResolvedChange {
  readonly target: string;
  readonly parameter: string;
  readonly percent: number;
  /** The model sensor the parameter feeds, or null when it does not feed the model. */
  readonly model_sensor: string | null;
}

export function resolveChanges(changes: ScenarioChanges, config: PredictiveConfig): ResolvedChange[] {
  return Object.entries(changes).map(([target, percent]) => {
    const parameter = (OPERATIONAL_PARAMETERS as readonly string[]).includes(target) ? operationalParameterName(config, target as OperationalParameter) : target;
    return { target, parameter, percent, model_sensor: ownValue(config.model_inputs, parameter) ?? null };
  });
}

/** The series with each changed model sensor scaled by (1 + percent/100) on the last `window` cycles. */
export function applyToCycles(series: readonly CycleRecord[], changes: readonly ResolvedChange[], window: number): CycleRecord[] {
  const ordered = [...series].sort((a, b) => a.cycle - b.cycle);
  const from = Math.max(0, ordered.length - window);
  return ordered.map((record, i) => {
    if (i < from) return record;
    const sensors: Record<string, number> = { ...record.sensors };
    for (const c of changes) {
      if (c.model_sensor !== null && sensors[c.model_sensor] !== undefined) {
        sensors[c.model_sensor] = (sensors[c.model_sensor] as number) * (1 + c.percent / 100);
      }
    }
    return { cycle: record.cycle, sensors };
  });
}

export interface ProjectedParameter {
  readonly parameter: string;
  readonly current_value: number;
  readonly projected_value: number;
  readonly baseline_value: number | null;
  readonly outside_tolerance: boolean | null;
}

/** Current value of every changed parameter, projected, and judged against its baseline when it has one. */
export function projectParameters(changes: readonly ResolvedChange[], current: ReadonlyMap<string, number>, bands: ReadonlyMap<string, ToleranceBand>): ProjectedParameter[] {
  return changes.flatMap((c) => {
    const value = current.get(c.parameter);
    if (value === undefined) return [];
    const projected = round2(value * (1 + c.percent / 100));
    const band = bands.get(c.parameter) ?? null;
    return [
      {
        parameter: c.parameter,
        current_value: value,
        projected_value: projected,
        baseline_value: band ? band.baseline : null,
        outside_tolerance: band ? bandPosition(projected, band) !== 'inside' : null,
      },
    ];
  });
}
