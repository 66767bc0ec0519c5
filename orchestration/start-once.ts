/**
 * The one way the service starts a workflow for a business record: the workflow id is derived
 * from the record (infra/workflow-ids.ts), so a second start of the same id is refused by Temporal
 * and reported as `already_started`. A retried HTTP call, a reconciler or a dispatcher that starts
 * again after a crash therefore never runs the same job twice. Every start carries the TenantId and
 * ResourceId search attributes operators filter on in the Temporal UI, and the tenant as the task
 * queues' fairness key (infra/task-fairness.ts).
 */
import { Client, WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy, type WorkflowStartOptions } from '@temporalio/client';
import type { Duration, Workflow } from '@temporalio/common';
import { PlanIdKey, resourceSearchAttributes } from '../infra/search-attributes';
import { tenantPriority } from '../infra/task-fairness';

export interface StartOnce<W extends Workflow> {
  readonly workflowType: string;
  readonly taskQueue: string;
  readonly workflowId: string;
  readonly args: Parameters<W>;
  readonly tenantId: string;
  readonly resourceId: string;
  /** Resource-specific search attributes beyond TenantId and ResourceId (PlanId, WebhookId). */
  readonly searchAttributes?: Array<[typeof PlanIdKey, string]>;
  /** A closed run of the id may run again (a reconciler restarting a run closed by hand). */
  readonly allowRerun?: boolean;
  /** What the Temporal UI shows for the run. */
  readonly staticSummary?: string;
  /** Eager start: the client shares its connection with a worker of the queue, which gets the first workflow task in the start's answer. */
  readonly eager?: boolean;
  /** How long a worker may hold one workflow task before the server hands it to another (the server's default: 10 s). */
  readonly workflowTaskTimeout?: Duration;
}

export async function startOnce<W extends Workflow>(client: Client, start: StartOnce<W>): Promise<'started' | 'already_started'> {
  try {
    await client.workflow.start<W>(start.workflowType, {
      taskQueue: start.taskQueue,
      workflowId: start.workflowId,
      args: start.args,
      typedSearchAttributes: resourceSearchAttributes(start.tenantId, start.resourceId, start.searchAttributes),
      priority: tenantPriority(start.tenantId),
      workflowIdReusePolicy: start.allowRerun ? WorkflowIdReusePolicy.ALLOW_DUPLICATE : WorkflowIdReusePolicy.REJECT_DUPLICATE,
      ...(start.staticSummary ? { staticSummary: start.staticSummary } : {}),
      ...(start.eager ? { requestEagerStart: true } : {}),
      ...(start.workflowTaskTimeout ? { workflowTaskTimeout: start.workflowTaskTimeout } : {}),
      // `args` is checked as Parameters<W> above; the SDK's conditional type cannot be resolved for a generic W.
    } as unknown as WorkflowStartOptions<W>);
    return 'started';
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return 'already_started';
    throw err;
  }
}
