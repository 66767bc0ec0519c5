/**
 * What this process is doing on the current async path, for the log line of a crash
 * (infra/crash-policy.ts): an API request (its id, then its tenant once known) or a worker's
 * activity (its workflow and activity ids, its tenant when its input names one). Ids only, never
 * personal data. Node keeps the store on the path of every callback and promise, so an uncaught
 * exception thrown from a parser's callback, or a rejection nobody handled, still names the request
 * or job that caused it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface WorkContext {
  request_id?: string;
  tenant_id?: string;
  workflow_id?: string;
  run_id?: string;
  activity_id?: string;
  activity_type?: string;
  attempt?: number;
}

const storage = new AsyncLocalStorage<WorkContext>();

/** Runs `work` with `context` as what this path is doing. */
export function runWithWorkContext<T>(context: WorkContext, work: () => T): T {
  return storage.run({ ...context }, work);
}

/** Adds what became known (a request's tenant, once authenticated) to the current path's context. */
export function addToWorkContext(fields: WorkContext): void {
  const current = storage.getStore();
  if (current) Object.assign(current, fields);
}

/** The current path's context (a copy), empty outside any request or job. */
export function currentWorkContext(): WorkContext {
  return { ...storage.getStore() };
}
