import type { CycleRecord } from '../prognostics/types';
import { ownValue } from '../own';

/** Per-cycle averages of asset parameters, as the readings store returns them. */
export interface CycleAverage {
  readonly cycle: number;
  readonly parameter: string;
  readonly value: number;
}

/**
 * The model's input series: one record per cycle with each mapped parameter renamed to its model
 * sensor. A cycle lacking any mapped parameter (typically the cycle still in progress) is left
 * out rather than passed with holes; parameters not mapped are ignored.
 */
export function cycleSeries(averages: readonly CycleAverage[], modelInputs: Readonly<Record<string, string>>): CycleRecord[] {
  const mapped = Object.keys(modelInputs);
  const byCycle = new Map<number, Record<string, number>>();
  for (const a of averages) {
    const sensor = ownValue(modelInputs, a.parameter);
    if (sensor === undefined || !Number.isFinite(a.value)) continue;
    const sensors = byCycle.get(a.cycle) ?? {};
    sensors[sensor] = a.value;
    byCycle.set(a.cycle, sensors);
  }
  return [...byCycle.entries()]
    .filter(([, sensors]) => mapped.every((p) => sensors[modelInputs[p] as string] !== undefined))
    .sort(([a], [b]) => a - b)
    .map(([cycle, sensors]) => ({ cycle, sensors }));
}

/**
 * Model sensors the averages cannot feed: not mapped by the config, or mapped from a parameter
 * without any reading in the window. Empty when there are no averages at all (that is "no data").
 */
export function missingSensors(averages: readonly CycleAverage[], modelInputs: Readonly<Record<string, string>>, modelSensors: readonly string[]): string[] {
  if (averages.length === 0) return [];
  const fed = new Set(averages.flatMap((a) => ((sensor) => (sensor !== undefined ? [sensor] : []))(ownValue(modelInputs, a.parameter))));
  return modelSensors.filter((sensor) => !fed.has(sensor));
}
