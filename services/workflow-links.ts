/**
 * A resource's workflow in the Temporal Web UI, from its business id (the operator's
 * `workflows link`): the workflow id is the resource's (infra/workflow-ids.ts), the link the UI's
 * page of its latest run when Temporal answers, else the UI's list filtered on the id.
 */
import type { Db } from '../db/knex';
import type { TenantScope } from '../db/tenant-scope';
import { isUuid } from '../domain/ids';
import { notFound } from '../domain/errors';
import type { TemporalGateway } from '../infra/temporal';
import { temporalUiUrl, workflowIds } from '../infra/workflow-ids';
import { callTemporal } from '../orchestration/temporal-call';
import { latestRun } from '../orchestration/workflow-runs';

/** The resources whose workflow can be linked: the table and column their business id is in. */
export const LINKED_WORKFLOWS = {
  plan: { what: 'maintenance plan', table: 'maintenance_plans', column: 'id', workflowId: workflowIds.maintenancePlan },
  delivery: { what: 'webhook delivery', table: 'webhook_deliveries', column: 'delivery_id', workflowId: workflowIds.webhookDelivery },
} as const;
export type LinkedKind = keyof typeof LINKED_WORKFLOWS;

export interface WorkflowLink {
  kind: LinkedKind;
  id: string;
  tenant_id: string;
  workflow_id: string;
  namespace: string;
  url: string;
  /** null when Temporal did not answer or knows no such workflow (then `url` is the filtered list). */
  run_id: string | null;
  /** RUNNING, COMPLETED, ...; `not_found`: Temporal knows no such workflow; null: Temporal did not answer. */
  status: string | null;
}

/** Which tenant holds the record `id` names (a read across tenants: the operator's lookup), or 404. */
export async function tenantOfRecord(db: Db, kind: LinkedKind, id: string): Promise<string> {
  const { what, table, column } = LINKED_WORKFLOWS[kind];
  const row: { tenant_id: string } | undefined = isUuid(id) ? await db(table).where(column, id).first('tenant_id') : undefined;
  if (!row) throw notFound(what);
  return row.tenant_id;
}

export async function workflowLink(
  deps: { temporal: TemporalGateway; ui: { uiUrl: string; namespace: string } },
  scope: TenantScope,
  kind: LinkedKind,
  id: string,
): Promise<WorkflowLink> {
  const { what, table, column, workflowId } = LINKED_WORKFLOWS[kind];
  const found = isUuid(id) && Boolean(await scope.table(table).where(column, id).first('tenant_id'));
  if (!found) throw notFound(what);
  const wid = workflowId(scope.tenantId, id);
  const run = await callTemporal(deps.temporal, 'describe', (client) => latestRun(client, wid)).then(
    (found) => found ?? ('not_found' as const),
    () => null,
  );
  const known = run !== null && run !== 'not_found' ? run : null;
  return {
    kind,
    id,
    tenant_id: scope.tenantId,
    workflow_id: wid,
    namespace: deps.ui.namespace,
    url: temporalUiUrl(deps.ui.uiUrl, deps.ui.namespace, wid, known?.runId),
    run_id: known?.runId ?? null,
    status: run === 'not_found' ? 'not_found' : (known?.status ?? null),
  };
}
