/**
 * The baseline of the maintenance benchmark: a workflow whose Update does nothing, so a call
 * measures Temporal's own Update round trip (client → server → worker → server → client).
 * Bundled only by the benchmark's own worker, never by the service's.
 */
import { condition, defineSignal, defineUpdate, setHandler } from '@temporalio/workflow';

export const noopUpdate = defineUpdate<string, [string]>('noop');
export const stopSignal = defineSignal('stop');

export async function benchNoopWorkflow(): Promise<void> {
  let stopped = false;
  setHandler(noopUpdate, (requestId) => requestId);
  setHandler(stopSignal, () => {
    stopped = true;
  });
  await condition(() => stopped);
}
