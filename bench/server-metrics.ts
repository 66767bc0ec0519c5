/**
 * The Temporal server's Prometheus counters, read from its /metrics text (the dev server's, in the
 * capacity bench): Temporal Cloud's billable `action`s and the requests to its persistence.
 */

/** Persistence operations that only read; every other one writes (CreateWorkflowExecution, UpdateShard, AppendHistoryNodes...). */
const READ_OPERATION = /^(Get|List|Read|Watch|Assert|Describe|Count|Scan|Query|Is)/;

/**
 * The sum of a Prometheus counter's samples in `text` (the text exposition format) whose labels
 * pass `keep`; null when the counter is absent. Labels arrive as a record.
 */
export function counterSum(text: string, name: string, keep: (labels: Record<string, string>) => boolean = () => true): number | null {
  let total: number | null = null;
  for (const line of text.split('\n')) {
    const labelled = line.startsWith(`${name}{`);
    if (!labelled && !line.startsWith(`${name} `)) continue;
    const valueAt = labelled ? line.lastIndexOf('}') + 1 : name.length;
    const labels: Record<string, string> = {};
    if (labelled) for (const [, key, value] of line.slice(name.length + 1, valueAt - 1).matchAll(/(?<!\w)(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[key] = value;
    if (!keep(labels)) continue;
    // After the value, an optional timestamp.
    total = (total ?? 0) + Number(line.slice(valueAt).trim().split(' ')[0]);
  }
  return total;
}

/** Whether a persistence operation writes. */
export const isWriteOperation = (operation: string): boolean => !READ_OPERATION.test(operation);
