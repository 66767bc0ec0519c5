/**
 * Everything a workflow's histories say, as text an assertion can search (issue 23): every event
 * of every run of the workflow id (continue-as-new included), with each payload's bytes decoded
 * (inputs, results, signal, update and query arguments, memos, search attributes, failure
 * details), and every failure's message, stack and causes. Payload data is base64 in the JSON
 * form of a history and bytes in its proto form, so searching `JSON.stringify(history)` for a
 * string can never find it: this is the one scanner the tests use.
 */
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';

/** The decoded text of a list of history events (proto objects or their JSON form). */
export function historyTextOf(events: unknown): string {
  const out: string[] = [];
  const walk = (value: unknown, key?: string): void => {
    if (value === null || value === undefined) return;
    if (value instanceof Uint8Array) {
      out.push(Buffer.from(value).toString('utf8'));
      return;
    }
    if (typeof value === 'string') {
      out.push(key === 'data' ? Buffer.from(value, 'base64').toString('utf8') : value);
      return;
    }
    if (Array.isArray(value)) return value.forEach((v) => walk(v));
    if (typeof value === 'object') for (const [k, v] of Object.entries(value)) walk(v, k);
    else out.push(String(value as number | boolean | bigint));
  };
  walk(events);
  return out.join('\n');
}

/**
 * The decoded text of every run of `workflowId`: from the current run (or `runId`) back through
 * each run's `continuedExecutionRunId` (no visibility query, so the time-skipping server works).
 */
export async function historyText(client: Client, workflowId: string, runId?: string): Promise<string> {
  const texts: string[] = [];
  for (let id: string | undefined = runId, runs = 0; runs < 100; runs += 1) {
    const history: temporal.api.history.v1.IHistory = await client.workflow.getHandle(workflowId, id).fetchHistory();
    texts.push(historyTextOf(history.events));
    id = history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
    if (!id) break;
  }
  return texts.join('\n');
}

/**
 * Asserts that no history of `workflowId` holds any of `personal` (case-insensitive), after
 * checking that the scan reads decoded payloads at all: `marker` (an id the workflow's input
 * carries) must be found, so the assertion can fail.
 */
export async function expectNoPersonalData(client: Client, workflowId: string, marker: string, personal: readonly string[]): Promise<void> {
  const text = (await historyText(client, workflowId)).toLowerCase();
  expect(text).toContain(marker.toLowerCase());
  for (const value of personal) {
    if (text.includes(value.toLowerCase())) throw new Error(`the history of ${workflowId} holds personal data: ${value}`);
  }
}
