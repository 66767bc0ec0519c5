/**
 * Everything a workflow's history says, as text an assertion can search: every event, with each
 * payload's bytes decoded (payload data is base64 in the JSON form of a history, so searching the
 * raw JSON for a string can never find it).
 */
import type { Client } from '@temporalio/client';

export async function historyText(client: Client, workflowId: string): Promise<string> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
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
    else out.push(String(value));
  };
  walk(history.events);
  return out.join('\n');
}
