/**
 * Activities of the maintenance plan workflow: thin, each one transaction, idempotent (keyed on
 * the plan and the due time served or the API's request id). Inputs and results are ids, codes,
 * numbers and timestamps only.
 *
 * A plan row that is not there yet is the commit of its creation racing the workflow's first
 * activity (the API starts the workflow before it commits): retried a few times, then reported as
 * `PlanNotFound` (the workflow then ends, as it does for a deleted plan).
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { Knex } from 'knex';
import { Actor } from '../db/audit';
import { Db } from '../db/knex';
import { insertNotification } from '../db/notifications';
import {
  auditInTx,
  executeDueInTx,
  executePlanInTx,
  ExecutionOutcome,
  ExecutionRequest,
  lockPlan,
  markOverdueInTx,
  planNotificationText,
  planRecipients,
  PlanRow,
  saveScheduleSnapshot,
  ScheduleSnapshot,
} from '../db/queries/maintenance';
import {
  toRuns,
  type AssetForecast,
  type ConditionPrior,
  type ConditionRun,
  type ConditionTrigger,
  type IsoTimestamp,
  type PredictiveTrigger,
  type RecordedReading,
} from '../domain/maintenance';
import { forecastAsset } from '../domain/maintenance/predictive-forecast';
import { counterSourceText } from '../db/queries/counter-sources';
import { effectiveConfigs } from '../db/queries/predictive-configs';
import { parameterHistories } from '../db/queries/parameter-histories';

export interface PlanRef {
  tenantId: string;
  planId: string;
}

/** A user's (or service's) request carried out by the workflow: audited in the activity's transaction. */
export interface RequestOrigin {
  requestId: string;
  actor: Actor;
}

export type ExecutionResult = ExecutionOutcome | { outcome: 'plan_gone' };

/** A due time's execution (a user's execute is written by the API, see api/routes/maintenance.ts). */
export interface ExecutePlanInput extends PlanRef {
  execution: ExecutionRequest;
  snapshot: ScheduleSnapshot;
}

export interface CounterReadingInput extends PlanRef {
  requestId: string;
  counter: string;
  reading: RecordedReading;
  thresholdsCrossed: number;
  /** Present when the reading makes the plan execute. */
  execution: ExecutionRequest | null;
  snapshot: ScheduleSnapshot;
  origin?: RequestOrigin;
}

export type CounterReadingResult = { plan: 'gone' } | { plan: 'present'; reading_id: string; execution: ExecutionOutcome | null };

export interface ConditionReadingsInput extends PlanRef {
  trigger: ConditionTrigger;
  /** Per asset, its newest reading already evaluated: only later ones are read. */
  after: Record<string, IsoTimestamp>;
  /** Per asset, the side its last evaluated reading was on and its open window (domain/maintenance/condition.ts). */
  prior?: Record<string, ConditionPrior>;
}

export type ConditionReadingsResult = { plan: 'gone' } | { plan: 'present'; runs: Record<string, ConditionRun[]>; more: boolean };

export interface PredictiveForecastsInput extends PlanRef {
  trigger: PredictiveTrigger;
  /** The workflow's time: the forecast is made as of it (deterministic, and right under time skipping). */
  now: IsoTimestamp;
  /** Per re-armed asset, the instant from which its readings count. */
  since: Record<string, IsoTimestamp>;
}

export type PredictiveForecastsResult = { plan: 'gone' } | { plan: 'present'; forecasts: AssetForecast[] };

/**
 * Readings read per evaluation: the workflow asks again while `more` is true. Compressed to runs
 * (one per stretch on either side of the limit), so the history grows with the crossings, not the
 * readings.
 */
export const CONDITION_READINGS_PAGE = 5_000;

/** How many attempts a missing plan row is waited for (creation commit racing the workflow). */
const PLAN_ROW_PATIENCE = 5;

export function createMaintenanceActivities(deps: { db: Db }) {
  const { db } = deps;

  /** Runs `work` on the locked live plan; 'gone' for a deleted one. */
  async function withPlan<T>(ref: PlanRef, work: (tx: Knex.Transaction, plan: PlanRow) => Promise<T>): Promise<T | 'gone'> {
    return db.transaction(async (tx) => {
      const plan = await lockPlan(tx, ref.tenantId, ref.planId);
      if (!plan) {
        const attempt = Context.current().info.attempt;
        if (attempt < PLAN_ROW_PATIENCE) throw new Error(`plan ${ref.planId} not visible yet (attempt ${attempt})`);
        throw ApplicationFailure.nonRetryable(`plan ${ref.planId} does not exist`, 'PlanNotFound');
      }
      if (plan.deleted_at !== null) return 'gone';
      return work(tx, plan);
    });
  }

  /**
   * The live plan's assets, noting that it reads its readings now (before reading them): the
   * worker's catch-up sweep tells a plan of readings received after this (a lost signal).
   */
  async function markReadingsSeen(ref: PlanRef): Promise<{ asset_ids: string[] } | undefined> {
    const [plan] = await db('maintenance_plans')
      .where({ tenant_id: ref.tenantId, id: ref.planId })
      .whereNull('deleted_at')
      .update({ readings_seen_at: db.fn.now() })
      .returning('asset_ids');
    return plan;
  }

  return {
    /** Creates the task of one execution (or records a skip), its history row and event, and the plan's read model. */
    async executePlan(input: ExecutePlanInput): Promise<ExecutionResult> {
      const result = await withPlan(input, (tx, plan) => executeDueInTx(tx, plan, input.execution, input.snapshot));
      return result === 'gone' ? { outcome: 'plan_gone' } : result;
    },

    /** Stores an accepted counter reading (once per request id) and, when it is due, the execution it causes. */
    async recordCounterReading(input: CounterReadingInput): Promise<CounterReadingResult> {
      const result = await withPlan(input, async (tx, plan) => {
        const existing = await tx('maintenance_counter_readings').where({ tenant_id: input.tenantId, plan_id: input.planId, request_id: input.requestId }).first('id');
        const execution = input.execution ? await executePlanInTx(tx, plan, input.execution) : null;
        let readingId: string = existing?.id;
        if (!existing) {
          const [row] = await tx('maintenance_counter_readings')
            .insert({
              tenant_id: input.tenantId,
              plan_id: input.planId,
              counter: input.counter,
              value: input.reading.value,
              source: await counterSourceText(tx, input.tenantId, input.reading.source),
              reset: input.reading.reset,
              total: input.reading.total,
              thresholds_crossed: input.thresholdsCrossed,
              task_id: execution?.outcome === 'created' ? execution.task_id : null,
              read_at: input.reading.at,
              request_id: input.requestId,
            })
            .returning('id');
          readingId = row.id;
          if (input.origin) {
            await auditInTx(tx, input.tenantId, input.origin.actor, input.origin.requestId, 'maintenance_plan.counter_recorded', input.planId, {
              reading_id: readingId,
              thresholds_crossed: input.thresholdsCrossed,
              ...(execution?.outcome === 'created' ? { task_id: execution.task_id } : {}),
            });
          }
        }
        await saveScheduleSnapshot(tx, input.tenantId, input.planId, input.snapshot);
        return { plan: 'present' as const, reading_id: readingId, execution };
      });
      return result === 'gone' ? { plan: 'gone' } : result;
    },

    /**
     * The condition parameter's readings of the plan's assets newer than the workflow's cursor,
     * oldest first, compressed to runs on either side of the limit.
     */
    async conditionReadings(input: ConditionReadingsInput): Promise<ConditionReadingsResult> {
      const plan = await markReadingsSeen(input);
      if (!plan) return { plan: 'gone' };
      const assetIds = plan.asset_ids;
      if (assetIds.length === 0) return { plan: 'present', runs: {}, more: false };
      const rows: Array<{ asset_id: string; ts: Date; value: number }> = await db('sensor_readings')
        .where({ tenant_id: input.tenantId, parameter: input.trigger.parameter })
        .whereIn('asset_id', assetIds)
        .whereRaw(`ts > coalesce((?::jsonb ->> asset_id::text)::timestamptz, '-infinity')`, [JSON.stringify(input.after)])
        .orderBy([{ column: 'ts' }, { column: 'asset_id' }])
        .limit(CONDITION_READINGS_PAGE)
        .select('asset_id', 'ts', 'value');
      const byAsset = new Map<string, Array<{ at: string; value: number }>>();
      for (const r of rows) {
        const points = byAsset.get(r.asset_id) ?? [];
        points.push({ at: r.ts.toISOString(), value: Number(r.value) });
        byAsset.set(r.asset_id, points);
      }
      const runs = Object.fromEntries([...byAsset].map(([assetId, points]) => [assetId, toRuns(input.trigger, points, input.prior?.[assetId] ?? null)]));
      return { plan: 'present', runs, more: rows.length === CONDITION_READINGS_PAGE };
    },

    /**
     * Each of the plan's assets' forecast for the trigger's parameter as of `now`: its prognosis
     * (the general degradation model over the newest readings, to the limit the prognosis uses)
     * and when it falls due. Writes only the plan's `readings_seen_at` (what the catch-up sweep compares).
     */
    async predictiveForecasts(input: PredictiveForecastsInput): Promise<PredictiveForecastsResult> {
      const plan = await markReadingsSeen(input);
      if (!plan) return { plan: 'gone' };
      const assets: Array<{ id: string; type: string }> = await db('assets').where({ tenant_id: input.tenantId }).whereIn('id', plan.asset_ids).orderBy('id').select('id', 'type');
      const configs = await effectiveConfigs(
        db,
        input.tenantId,
        assets.map((a) => a.type),
      );
      const nowMs = Date.parse(input.now);
      const forecasts: AssetForecast[] = [];
      for (const asset of assets) {
        const since = input.since[asset.id];
        const [history] = await parameterHistories(db, input.tenantId, asset.id, configs.get(asset.type)!, {
          only: [input.trigger.parameter],
          since: since ? new Date(since) : null,
        });
        forecasts.push(history ? forecastAsset(input.trigger, asset.id, history, nowMs) : { asset_id: asset.id, due_at: null, evidence: null });
      }
      return { plan: 'present', forecasts };
    },

    /** The plan row's read model after a pause, resume, edit or re-arm. */
    async savePlanSchedule(input: PlanRef & { snapshot: ScheduleSnapshot }): Promise<{ plan: 'present' | 'gone'; saved: boolean }> {
      const result = await withPlan(input, async (tx) => saveScheduleSnapshot(tx, input.tenantId, input.planId, input.snapshot));
      return result === 'gone' ? { plan: 'gone', saved: false } : { plan: 'present', saved: result };
    },

    /** Marks the plan's tasks open past their grace deadline, with one task.overdue event each. */
    async markOverdueTasks(input: PlanRef & { now: IsoTimestamp }): Promise<{ marked: number }> {
      const rows = await db.transaction((tx) => markOverdueInTx(tx, input.tenantId, input.planId, new Date(input.now)));
      return { marked: rows.length };
    },

    /**
     * Queues the lead-time notification of a due time for the plan's recipients (resolved to
     * addresses here, so they stay out of the workflow history). One per (plan, due time); null
     * when nobody is to be told. The workflow then starts the notification's delivery workflow.
     */
    async queuePlanNotification(input: PlanRef & { dueAt: IsoTimestamp }): Promise<{ notificationId: string | null; recipients: number }> {
      const plan = await db('maintenance_plans').where({ tenant_id: input.tenantId, id: input.planId }).whereNull('deleted_at').first();
      if (!plan) return { notificationId: null, recipients: 0 };
      const recipients = await planRecipients(db, plan);
      if (recipients.length === 0) return { notificationId: null, recipients: 0 };
      const text = planNotificationText(plan, 'lead_time', input.dueAt);
      const { id } = await insertNotification(db, {
        tenantId: input.tenantId,
        category: 'maintenance.lead_time',
        recipients: recipients.map((r) => r.email),
        ...text,
        idempotencyKey: `maintenance-lead:${input.planId}:${input.dueAt}`,
      });
      return { notificationId: id, recipients: recipients.length };
    },
  };
}

export type MaintenanceActivities = ReturnType<typeof createMaintenanceActivities>;
