/**
 * The same-shape ceiling of the plans-due benchmark: a workflow whose timer fires at the due
 * instant and which then runs one local activity doing one INSERT, as a due plan's work order
 * does with the product's code. Bundled only by the benchmark's own workers, never by the service's.
 */
import { proxyLocalActivities, sleep } from '@temporalio/workflow';

export interface DueCeilingActivities {
  insertDueRow(id: string, run: string): Promise<void>;
}

const { insertDueRow } = proxyLocalActivities<DueCeilingActivities>({ startToCloseTimeout: '1 minute' });

export async function benchDueCeilingWorkflow(id: string, dueAtMs: number, run: string): Promise<void> {
  await sleep(Math.max(0, dueAtMs - Date.now()));
  await insertDueRow(id, run);
}
