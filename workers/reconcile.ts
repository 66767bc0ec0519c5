import { Db } from '../db/knex';
import { TemporalGateway } from '../infra/temporal';
import { startNotificationDelivery } from '../orchestration/notifications';
import { planWorkflowId, startPlanWorkflow, workflowStateOf } from '../orchestration/maintenance';
import type { PlanRow } from '../db/queries/maintenance';
import type { Logger } from 'pino';

/**
 * Rows whose workflow may never have started (the API crashed, or Temporal was down, between the
 * commit and the start) get their workflow now. Starts are idempotent by workflow id, so running
 * this on every worker start is harmless.
 */
export async function reconcileQueuedNotifications(db: Db, temporal: TemporalGateway, log: Logger): Promise<number> {
  const rows = await db<{ tenant_id: string; id: string; status: string }>('notifications').where({ status: 'queued' }).select('tenant_id', 'id').limit(1000);
  for (const row of rows) await startNotificationDelivery(temporal, row.tenant_id, row.id);
  if (rows.length > 0) log.info({ count: rows.length }, 'reconciled queued notifications');
  return rows.length;
}

/**
 * Live plans whose workflow is not running (the API crashed mid-way, or someone terminated it)
 * get one, started from the row. Running workflows are listed once from visibility; every start
 * is still idempotent by workflow id, so a workflow that visibility has not indexed yet is left
 * alone. A restarted plan's schedule begins again from its definition (SPEC: nothing retroactive).
 */
export async function reconcilePlanWorkflows(db: Db, temporal: TemporalGateway, log: Logger): Promise<number> {
  const client = await temporal.client();
  const running = new Set<string>();
  for await (const wf of client.workflow.list({ query: `WorkflowType = 'maintenancePlanWorkflow' AND ExecutionStatus = 'Running'` })) {
    running.add(wf.workflowId);
  }
  let started = 0;
  let failed = 0;
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const rows = await db<PlanRow>('maintenance_plans').whereNull('deleted_at').where('id', '>', after).orderBy('id').limit(500);
    if (rows.length === 0) break;
    after = rows[rows.length - 1].id;
    for (const row of rows) {
      if (running.has(planWorkflowId(row.tenant_id, row.id))) continue;
      // One plan that cannot be restarted (say, a row written around the API with a bad trigger)
      // is reported and skipped: it must not stop the repair of every other plan.
      try {
        if ((await startPlanWorkflow(client, workflowStateOf(row, new Date()), { restart: true })) === 'started') started += 1;
      } catch (err) {
        failed += 1;
        log.error({ err, tenant_id: row.tenant_id, plan_id: row.id }, 'could not restart maintenance plan workflow');
      }
    }
  }
  if (started > 0 || failed > 0) log.warn({ started, failed }, 'reconciled maintenance plan workflows');
  return started;
}
