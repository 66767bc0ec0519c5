import type { ScenarioChanges } from '../../domain/assets/what-if';
import { TenantScope } from '../tenant-scope';

/** A stored what-if simulation of an asset. */
export interface SimulationRow {
  id: string;
  asset_id: string;
  scenario: { label: string | null; changes: ScenarioChanges };
  result: Record<string, unknown>;
  model_version: string | null;
  created_by: string | null;
  created_at: Date;
}

export const SIMULATION_COLUMNS = ['id', 'asset_id', 'scenario', 'result', 'model_version', 'created_by', 'created_at'];

/** The asset's newest simulation, if any. */
export function lastSimulation(scope: TenantScope, assetId: string): Promise<SimulationRow | undefined> {
  return scope
    .table('asset_simulations')
    .where('asset_id', assetId)
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .first(SIMULATION_COLUMNS);
}

export async function insertSimulation(
  scope: TenantScope,
  simulation: { asset_id: string; scenario: SimulationRow['scenario']; result: Record<string, unknown>; model_version: string; created_by: string },
): Promise<SimulationRow> {
  const [stored] = await scope.insert(
    'asset_simulations',
    { ...simulation, scenario: JSON.stringify(simulation.scenario), result: JSON.stringify(simulation.result) },
    SIMULATION_COLUMNS,
  );
  return stored as SimulationRow;
}
