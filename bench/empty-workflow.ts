/**
 * The ceiling of the webhook benchmark: a workflow that returns at once, so starting and
 * completing it measures Temporal's own cost of one short workflow. Bundled only by the
 * benchmark's own worker, never by the service's.
 */
export async function benchEmptyWorkflow(): Promise<void> {
  // Nothing: the measurement is the start, one workflow task and the completion.
}
