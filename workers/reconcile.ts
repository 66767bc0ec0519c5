import { Db } from '../db/knex';
import { TemporalGateway } from '../infra/temporal';
import { startNotificationDelivery } from '../orchestration/notifications';
import { mapSettled } from '../orchestration/concurrency';
import { planWorkflowId, signalPlan, startPlanWorkflow, workflowStateOf } from '../orchestration/maintenance';
import { callTemporal } from '../orchestration/temporal-call';
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

/** Per sweep: at most this many plans of one tenant, and of all tenants, are told (the rest next time). */
export const CATCH_UP_PER_TENANT = 20;
export const CATCH_UP_TOTAL = 200;
const CATCH_UP_SIGNALS_IN_FLIGHT = 8;

type PlanKey = { tenant_id: string; id: string };

/**
 * Active condition and predictive plans whose assets received readings of their parameter after the
 * plan last read its readings (`readings_seen_at`): the API's `readings` signal after that batch was
 * lost (Temporal unreachable for a moment). Judged on each series' latest-reading row (its
 * `updated_at`, one primary-key lookup per asset), not by scanning the readings. Oldest-seen first, a few per tenant, so one tenant's
 * many plans never crowd out the others'.
 */
export async function plansBehindOnReadings(db: Db, limits = { perTenant: CATCH_UP_PER_TENANT, total: CATCH_UP_TOTAL }): Promise<PlanKey[]> {
  const { rows } = await db.raw<{ rows: PlanKey[] }>(
    `select tenant_id, id from (
       select p.tenant_id, p.id, row_number() over (partition by p.tenant_id order by p.readings_seen_at nulls first, p.id) as n
         from maintenance_plans p
        where p.deleted_at is null and p.status = 'active' and p.trigger ->> 'type' in ('condition', 'predictive')
          and exists (
            select 1 from asset_parameter_latest l
             where l.tenant_id = p.tenant_id and l.asset_id = any(p.asset_ids) and l.parameter = p.trigger ->> 'parameter'
               and l.updated_at > coalesce(p.readings_seen_at, '-infinity'))
     ) behind
     where n <= ? order by tenant_id, id limit ?`,
    [limits.perTenant, limits.total],
  );
  return rows;
}

/**
 * The lost-signal recovery: each plan behind on its readings gets the `readings` signal again
 * (coalesced in the workflow with any other), a few at a time. Returns how many were told.
 */
export async function nudgePlansBehindOnReadings(db: Db, temporal: TemporalGateway, log: Pick<Logger, 'warn'>): Promise<number> {
  const plans = await plansBehindOnReadings(db);
  if (plans.length === 0) return 0;
  // Each signal with the deadline of every Temporal call, so a stalled frontend cannot hold the sweep.
  const results = await mapSettled(plans, CATCH_UP_SIGNALS_IN_FLIGHT, (p) =>
    callTemporal(temporal, 'could not tell a plan behind on its readings', (client) => signalPlan(client, p.tenant_id, p.id, { kind: 'readings' })),
  );
  const failed = results.filter((r) => r.status === 'rejected').length;
  if (failed > 0) log.warn({ failed, plans: plans.length }, 'some plans behind on their readings were not reached; the next sweep tries again');
  return plans.length - failed;
}

/** Runs the readings catch-up every `everyMs` until stopped (one sweep at a time; a failed one is logged). */
export function startReadingsCatchUp(db: Db, temporal: TemporalGateway, log: Logger, everyMs: number): { stop(): void } {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    nudgePlansBehindOnReadings(db, temporal, log)
      .catch((err: unknown) => log.error({ err }, 'readings catch-up sweep failed'))
      .finally(() => {
        running = false;
      });
  }, everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
