/**
 * One preventive maintenance plan as a long-running entity workflow, id
 * `maintenance-plan/<tenant>/<plan>` (DESIGN.md, Temporal conventions).
 *
 * - Timers: the next of (lead-time notification, task generation = due - generate_ahead, overdue
 *   check of the plan's tasks, a predictive plan's predicted due instant), recomputed from domain/maintenance whenever the plan changes; each
 *   timer carries a one-line summary for the Temporal UI.
 * - Signals: pause, resume, planChanged (a PUT), archive (a DELETE). Applied at once, so a query
 *   right after the signal sees them; the plan row's read model is then written by an activity.
 *   readings and workOrderCompleted drive condition and predictive plans (evaluated in activities).
 * - Updates (synchronous validators, idempotent by the API's request id): execute, recordCounter,
 *   applyOptimization. Queries: state, preview.
 * - Execute on a PAUSED plan is allowed (SPEC: "Plan exists → the task is generated
 *   immediately") and does not resume it; the schedule moves as for any user execution
 *   (fixed: unchanged; floating: from now). Counter readings while paused are recorded and a
 *   threshold passed then is consumed without a task (domain README).
 * - Activities and updates that change the schedule run one at a time (a FIFO lock), so an
 *   execution never interleaves with another; signals apply synchronously and the execution's
 *   schedule is derived from the state current when its activity has committed.
 * - Continues as new (after its handlers finished) when Temporal suggests it or after
 *   `run_event_limit` events, carrying its plain-JSON state. History holds ids, codes, numbers
 *   and timestamps only.
 */
import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  defineUpdate,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { ExecutePlanInput, MaintenanceActivities, RequestOrigin } from '../activities/maintenance';
import type { ExecutionRequest, ScheduleSnapshot } from '../db/queries/maintenance';
import {
  conditionCursor,
  conditionPriors,
  onConditionRuns,
  onCounterReading,
  onForecasts,
  predictedDueAt,
  predictiveSince,
  rearmCondition,
  rearmPredictive,
  workOrderDueAt,
  onExecuted,
  onResume,
  onTriggerChanged,
  timerDueAt,
  toMs,
  validateReading,
  type Execution,
  type IsoTimestamp,
  type RecordedReading,
  type ScheduleState,
  type SchedulePolicy,
} from '../domain/maintenance';
import {
  dueNow,
  findRecent,
  manualExecutionTrigger,
  nextWake,
  overdueDeadline,
  previewOf,
  readingsToEvaluate,
  snapshotOf,
  viewOf,
  withOverdueCheck,
  withoutPassedChecks,
  withRecent,
  type PlanPreview,
  type PlanStateView,
  type PlanWorkflowState,
} from './maintenance-plan-state';
import { startNotificationChild } from './start-notification';

// ---- messages ---------------------------------------------------------------------------------

export interface PlanChange {
  version: number;
  policy: SchedulePolicy;
}

/**
 * A user's execute, already written by the API in its transaction (task, history row, event,
 * audit); the workflow moves the schedule and answers the plan's new read model. The API sends it
 * before committing, so a refused or unreachable workflow rolls the task back.
 */
export interface ExecuteRequest {
  requestId: string;
  /** The user id (execution history `executed_by`). */
  executedBy: string;
  taskId: string;
  /** The task's due time (now, for a user's execute): its overdue check. */
  dueAt: IsoTimestamp;
}

export interface ExecuteResult {
  next_due_at: IsoTimestamp | null;
  /** The schedule after the execution, for the plan row's read model (written in the same transaction). */
  snapshot: ScheduleSnapshot;
}

export interface CounterRequest {
  requestId: string;
  value: number;
  source: string;
  reset?: boolean;
  origin: RequestOrigin;
}

export interface CounterResult {
  reading: RecordedReading;
  reading_id: string;
  thresholds_crossed: number;
  /** The execution the reading caused (null: not due, or the plan is paused). */
  execution: { outcome: 'created'; task_id: string; task_code: string } | { outcome: 'skipped'; kept_task_id: string | null } | null;
  next_threshold: number | null;
  next_due_at: IsoTimestamp | null;
}

export interface OptimizationRequest extends PlanChange {
  requestId: string;
}

export interface OptimizationResult {
  version: number;
  /** The schedule under the new policy, for the plan row's read model. */
  snapshot: ScheduleSnapshot;
}

export interface PlanWorkflowResult {
  status: 'archived' | 'orphaned';
  executions_total: number;
}

/** Patch id: a task of a plan with an unknown interval gets a day of grace (was none). */
const UNKNOWN_INTERVAL_GRACE_PATCH = 'unknown-interval-grace-floor';

export const pauseSignal = defineSignal('pause');
export const resumeSignal = defineSignal('resume');
export const planChangedSignal = defineSignal<[PlanChange]>('planChanged');
export const archiveSignal = defineSignal('archive');
/**
 * New readings of a condition or predictive plan's assets were stored (no payload: the workflow reads them).
 * Sent once per plan per readings batch; signals that arrive while an evaluation runs coalesce
 * into one more evaluation.
 */
export const readingsSignal = defineSignal('readings');
/** A condition or predictive plan's work order was completed: re-arms the asset its evidence names (null: all). */
export const workOrderCompletedSignal = defineSignal<[{ assetId: string | null }]>('workOrderCompleted');
export const executeUpdate = defineUpdate<ExecuteResult, [ExecuteRequest]>('execute');
export const recordCounterUpdate = defineUpdate<CounterResult, [CounterRequest]>('recordCounter');
export const applyOptimizationUpdate = defineUpdate<OptimizationResult, [OptimizationRequest]>('applyOptimization');
export const stateQuery = defineQuery<PlanStateView>('state');
export const previewQuery = defineQuery<PlanPreview>('preview');

// Database outages are retried without end; a plan row that never appears ends in PlanNotFound.
// One policy for the normal and the local activities, so a due time behaves alike on either path.
const ACTIVITY_RETRY = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' } as const;

const activities = proxyActivities<MaintenanceActivities>({
  startToCloseTimeout: '30 seconds',
  retry: ACTIVITY_RETRY,
});

// A counter reading answers an HTTP call: its activity runs as a local activity in the same
// workflow task, which saves two server round trips per call. Other timer-driven work uses normal
// activities (each with its summary in the UI).
const requestActivities = proxyLocalActivities<MaintenanceActivities>({
  startToCloseTimeout: '30 seconds',
  retry: ACTIVITY_RETRY,
});

/**
 * Patch id (issue 19): a due time's execution runs as a local activity in the timer's workflow
 * task (one workflow task per due plan instead of two and an activity task; many plans due in
 * the same minute are bound by the server's task throughput). Runs recorded before replay the
 * activity. Idempotent as the activity was: keyed `due:<due time>`, so a worker that dies
 * mid-execution and the replay that runs it again create one task.
 */
const DUE_EXECUTION_LOCAL_PATCH = 'due-execution-local-activity';

const dueActivities = proxyLocalActivities<MaintenanceActivities>({
  startToCloseTimeout: '30 seconds',
  retry: ACTIVITY_RETRY,
  // A database outage's longer backoffs wait on a workflow timer, holding no workflow-task slot.
  localRetryThreshold: '1 second',
});

/** Update failures the API maps to HTTP answers (type = error code). */
const fail = (message: string, type: string, details?: unknown) => ApplicationFailure.nonRetryable(message, type, details);

export async function maintenancePlanWorkflow(input: PlanWorkflowState): Promise<PlanWorkflowResult> {
  // ---- state ----------------------------------------------------------------------------------
  const state: PlanWorkflowState = { ...input };
  let ended: PlanWorkflowResult['status'] | null = null;
  /** Bumped by every handler that may move the next timer. */
  let changes = 0;
  let eventsInRun = 0;
  /** The last snapshot written to the plan row (the API wrote the first one, or the previous run). */
  let persistedSeq = state.seq;
  const lock = fifoLock();
  const now = () => new Date();
  const iso = (d: Date) => d.toISOString();

  const touched = () => {
    changes += 1;
    eventsInRun += 1;
  };
  const assertRunning = () => {
    if (ended) throw fail('the plan is archived', 'PLAN_ARCHIVED');
  };
  /**
   * Every update validator starts here: a request id is required; a known one is answered again
   * from memory (true: nothing else to check); a new one needs the plan not archived.
   */
  const isRepeatedRequest = (req: { requestId?: unknown } | undefined): boolean => {
    if (typeof req?.requestId !== 'string' || req.requestId === '') throw fail('requestId is required', 'INVALID_REQUEST');
    if (findRecent(state, req.requestId)) return true;
    assertRunning();
    return false;
  };

  // ---- handlers (registered before the first await) --------------------------------------------
  setHandler(stateQuery, () => viewOf(state, now()));
  setHandler(previewQuery, () => previewOf(state, now()));

  setHandler(pauseSignal, () => {
    if (state.status === 'paused') return;
    // next_due_at is kept: pausing only stops the timers.
    state.status = 'paused';
    state.seq += 1;
    touched();
  });

  setHandler(resumeSignal, () => {
    if (state.status === 'active') return;
    state.schedule = onResume(state.schedule, state.policy.trigger, now());
    state.status = 'active';
    state.seq += 1;
    touched();
  });

  const applyChange = (change: PlanChange) => {
    state.schedule = onTriggerChanged(state.schedule, state.policy.trigger, change.policy.trigger, now());
    state.policy = change.policy;
    state.version = change.version;
    state.seq += 1;
    touched();
  };

  setHandler(planChangedSignal, (change) => {
    // Versions only grow: a late or repeated signal (e.g. from the reconciler) changes nothing.
    if (change.version > state.version) applyChange(change);
  });

  setHandler(readingsSignal, () => {
    if ((state.schedule.type !== 'condition' && state.schedule.type !== 'predictive') || state.readings_pending) return;
    state.readings_pending = true;
    touched();
  });

  setHandler(workOrderCompletedSignal, ({ assetId }) => {
    if (state.schedule.type === 'condition') state.schedule = { ...state.schedule, condition: rearmCondition(state.schedule.condition, assetId) };
    else if (state.schedule.type === 'predictive') {
      // The repair changed the asset: its readings from before no longer count.
      state.schedule = { ...state.schedule, predictive: rearmPredictive(state.schedule.predictive, assetId, iso(now())) };
      state.readings_pending = true;
    } else return;
    touched();
  });

  setHandler(archiveSignal, () => {
    ended = 'archived';
    touched();
  });

  // Synchronous on purpose: the API holds the plan row while it waits for this answer, so the
  // handler must not wait for an activity (which might need that row) nor for the lock.
  setHandler(
    executeUpdate,
    (req) => {
      const cached = findRecent<ExecuteResult>(state, req.requestId);
      if (cached) return Promise.resolve(cached);
      const at = now();
      state.schedule = onExecuted(state.schedule, state.policy.trigger, { at, by: req.executedBy, trigger: manualExecutionTrigger(state.policy.trigger) });
      state.seq += 1;
      touched();
      const snapshot = snapshotOf(state, at);
      persistedSeq = state.seq; // the API writes this snapshot with the task
      noteExecution(true, req.dueAt, snapshot.interval_hours);
      const result: ExecuteResult = { next_due_at: snapshot.next_due_at, snapshot };
      state.recent = withRecent(state.recent, req.requestId, result);
      return Promise.resolve(result);
    },
    {
      validator: (req: ExecuteRequest) => {
        if (isRepeatedRequest(req)) return;
      },
    },
  );

  setHandler(
    recordCounterUpdate,
    (req) =>
      lock.run(async () => {
        const cached = findRecent<CounterResult>(state, req.requestId);
        if (cached) return cached;
        assertRunning();
        const at = now();
        const reading = { value: req.value, source: req.source, reset: req.reset === true, at };
        // Derived from the state current at each call: a signal during the activity is kept.
        const derive = () => {
          const r = onCounterReading(state.schedule, reading);
          if (!r.ok) return { r, schedule: state.schedule, executes: false };
          const executes = r.thresholds_crossed > 0 && state.status === 'active';
          const schedule = executes ? onExecuted(r.state, state.policy.trigger, { at, by: 'system', trigger: 'counter' }) : r.state;
          return { r, schedule, executes };
        };
        const planned = derive();
        if (!planned.r.ok) throw fail(planned.r.error.message, planned.r.error.code, planned.r.error);
        const accepted = planned.r;
        const snapshot = snapshotOf({ ...state, schedule: planned.schedule, seq: state.seq + 1 }, at);
        const execution: ExecutionRequest | null = planned.executes
          ? {
              key: `counter:${req.requestId}`,
              trigger: 'counter',
              executedBy: 'system',
              executedAt: iso(at),
              dueAt: iso(at),
              onOpenTask: state.policy.on_open_task,
              thresholdsCrossed: accepted.thresholds_crossed,
              intervalHours: snapshot.interval_hours,
            }
          : null;
        const saved = await callActivity(() =>
          requestActivities.recordCounterReading({
            tenantId: state.tenantId,
            planId: state.planId,
            requestId: req.requestId,
            counter: 'counter' in state.schedule ? state.schedule.counter.counter : '',
            reading: accepted.recorded,
            thresholdsCrossed: accepted.thresholds_crossed,
            execution,
            snapshot,
            origin: req.origin,
          }),
        );
        if (saved.plan === 'gone') {
          ended = 'archived';
          throw fail('the plan was deleted', 'PLAN_ARCHIVED');
        }
        const committed = derive();
        state.schedule = committed.schedule;
        commitSeq(snapshot);
        if (saved.execution) noteExecution(saved.execution.outcome === 'created', iso(at), snapshot.interval_hours);
        const counter = 'counter' in state.schedule ? state.schedule.counter : null;
        const result: CounterResult = {
          reading: accepted.recorded,
          reading_id: saved.reading_id,
          thresholds_crossed: accepted.thresholds_crossed,
          execution:
            saved.execution === null
              ? null
              : saved.execution.outcome === 'created'
                ? { outcome: 'created', task_id: saved.execution.task_id, task_code: saved.execution.task_code }
                : { outcome: 'skipped', kept_task_id: saved.execution.kept_task_id },
          next_threshold: counter?.next_threshold ?? null,
          next_due_at: snapshotOf(state, at).next_due_at,
        };
        state.recent = withRecent(state.recent, req.requestId, result);
        return result;
      }),
    {
      // Synchronous and pure: a refused reading never enters the history as an accepted Update.
      validator: (req: CounterRequest) => {
        if (isRepeatedRequest(req)) return;
        if (!('counter' in state.schedule)) throw fail('the plan has no counter trigger', 'PLAN_HAS_NO_COUNTER');
        const rejection = validateReading(state.schedule.counter, { value: req.value, source: req.source, reset: req.reset === true, at: now() });
        if (rejection) throw fail(rejection.message, rejection.code, rejection);
      },
    },
  );

  setHandler(
    applyOptimizationUpdate,
    (req) => {
      const cached = findRecent<OptimizationResult>(state, req.requestId);
      if (cached) return Promise.resolve(cached);
      applyChange(req);
      // The plan row is written by the main loop's activity, after the approving transaction
      // commits (the API holds the row until this answer arrives).
      const result: OptimizationResult = { version: state.version, snapshot: snapshotOf(state, now()) };
      state.recent = withRecent(state.recent, req.requestId, result);
      return Promise.resolve(result);
    },
    {
      validator: (req: OptimizationRequest) => {
        if (isRepeatedRequest(req)) return;
        if (!(req.version > state.version)) throw fail(`plan version ${req.version} is not newer than ${state.version}`, 'STALE_PLAN_VERSION');
      },
    },
  );

  // ---- helpers that touch the state ------------------------------------------------------------

  /** Activity call that ends the workflow when the plan row never appeared (its creation rolled back). */
  async function callActivity<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      if (err instanceof ActivityFailure && err.cause instanceof ApplicationFailure && err.cause.type === 'PlanNotFound') {
        ended = 'orphaned';
        throw fail('the plan does not exist', 'PLAN_ARCHIVED');
      }
      throw err;
    }
  }

  /**
   * After an execution's activity committed the planned snapshot (seq + 1). Signals bump seq
   * too, so when one came in meanwhile the numbers differ and the loop writes the newer snapshot.
   */
  function commitSeq(written: ScheduleSnapshot): void {
    state.seq += 1;
    if (written.seq === state.seq) persistedSeq = state.seq;
    touched();
  }

  /** Counts an execution; a created task gets its overdue check. */
  function noteExecution(created: boolean, dueAt: IsoTimestamp, intervalHours: number | null): void {
    state.executions_total += 1;
    if (created) state.overdue_checks = withOverdueCheck(state.overdue_checks, overdueDeadline(dueAt, intervalHours, !patched(UNKNOWN_INTERVAL_GRACE_PATCH)));
  }

  /** One execution through the executePlan activity; the schedule is derived again after it committed. */
  async function runExecution(execution: ExecutionRequest, derive: () => ScheduleState, at: Date) {
    const planned = { ...state, schedule: derive(), seq: state.seq + 1 };
    const snapshot = snapshotOf(planned, at);
    const withInterval = { ...execution, intervalHours: execution.intervalHours ?? snapshot.interval_hours };
    const payload: ExecutePlanInput = { tenantId: state.tenantId, planId: state.planId, execution: withInterval, snapshot };
    const summary = `create the task of due ${execution.dueAt}`;
    const outcome = await callActivity(() =>
      patched(DUE_EXECUTION_LOCAL_PATCH)
        ? dueActivities.executePlan.executeWithOptions({ startToCloseTimeout: '30 seconds', summary }, [payload])
        : activities.executePlan.executeWithOptions({ startToCloseTimeout: '30 seconds', summary }, [payload]),
    );
    if (outcome.outcome === 'plan_gone') {
      ended = 'archived';
      throw fail('the plan was deleted', 'PLAN_ARCHIVED');
    }
    state.schedule = derive();
    commitSeq(snapshot);
    noteExecution(outcome.outcome === 'created', execution.dueAt, withInterval.intervalHours);
    return outcome;
  }

  /** The work order a condition or a prediction made, with what it saw; the schedule moves as for any system execution. */
  function executeOnEvidence(trigger: 'condition' | 'predictive', key: string, dueAt: IsoTimestamp, evidence: Record<string, unknown>, at: Date) {
    return runExecution(
      { key, trigger, executedBy: 'system', executedAt: iso(at), dueAt, onOpenTask: state.policy.on_open_task, intervalHours: null, evidence },
      () => onExecuted(state.schedule, state.policy.trigger, { at, by: 'system', trigger }),
      at,
    );
  }

  async function persistSnapshot(): Promise<void> {
    const snapshot = snapshotOf(state, now());
    const result = await callActivity(() =>
      activities.savePlanSchedule.executeWithOptions({ startToCloseTimeout: '30 seconds', summary: `read model: next due ${snapshot.next_due_at ?? 'none'} (${state.status})` }, [
        { tenantId: state.tenantId, planId: state.planId, snapshot },
      ]),
    );
    if (result.plan === 'gone') ended = 'archived';
    persistedSeq = snapshot.seq;
  }

  /** What the timer woke us for, judged again now (a signal may have moved things meanwhile). */
  async function serveWake(at: Date): Promise<void> {
    // Judged before each step: a signal during the previous step's activity may have paused the plan.
    const due = () => dueNow(state, at);
    if (due().has('overdue_check')) {
      await callActivity(() =>
        activities.markOverdueTasks.executeWithOptions({ startToCloseTimeout: '30 seconds', summary: `mark tasks overdue at ${iso(at)}` }, [
          { tenantId: state.tenantId, planId: state.planId, now: iso(at) },
        ]),
      );
      state.overdue_checks = withoutPassedChecks(state.overdue_checks, at);
    }
    if (due().has('predict')) await evaluatePredictions(at);
    const dueAt = timerDueAt(state.schedule);
    if (due().has('notify') && dueAt !== null) {
      const queued = await callActivity(() =>
        activities.queuePlanNotification.executeWithOptions({ startToCloseTimeout: '30 seconds', summary: `lead-time notification of due ${dueAt}` }, [
          { tenantId: state.tenantId, planId: state.planId, dueAt },
        ]),
      );
      if (queued.notificationId) await startNotificationChild(state.tenantId, queued.notificationId);
      state.notified_due_at = dueAt;
    }
    const dueNowAt = timerDueAt(state.schedule);
    if (due().has('generate') && dueNowAt !== null && !ended) {
      const exec: Execution = { at, by: 'system', trigger: 'calendar' };
      await runExecution(
        {
          key: `due:${dueNowAt}`,
          trigger: 'calendar',
          executedBy: 'system',
          executedAt: iso(at),
          dueAt: dueNowAt,
          onOpenTask: state.policy.on_open_task,
          intervalHours: null,
        },
        () => onExecuted(state.schedule, state.policy.trigger, exec),
        at,
      );
    }
    eventsInRun += 1;
  }

  /**
   * Reads the condition parameter's new readings (as runs) until none is left, moves the condition
   * state and executes once per excursion that fired, with its evidence. A plan paused or edited
   * to another trigger meanwhile drops what was read (resumed, it reads them again).
   */
  async function evaluateReadings(): Promise<void> {
    if (state.schedule.type === 'predictive') return evaluatePredictions(now());
    state.readings_pending = false;
    for (;;) {
      const trigger = state.policy.trigger;
      if (state.schedule.type !== 'condition' || trigger.type !== 'condition') return;
      const condition = state.schedule.condition;
      const read = await callActivity(() =>
        activities.conditionReadings.executeWithOptions({ startToCloseTimeout: '30 seconds', summary: `evaluate ${trigger.parameter} readings` }, [
          { tenantId: state.tenantId, planId: state.planId, trigger, after: conditionCursor(condition), prior: conditionPriors(condition) },
        ]),
      );
      if (read.plan === 'gone') {
        ended = 'archived';
        return;
      }
      if (state.status !== 'active' || state.policy.trigger !== trigger || state.schedule.type !== 'condition') {
        state.readings_pending = true;
        return;
      }
      const judged = onConditionRuns(trigger, state.schedule.condition, read.runs);
      state.schedule = { ...state.schedule, condition: judged.state };
      for (const evidence of judged.fired) {
        if (ended) return;
        const at = now();
        await executeOnEvidence('condition', `condition:${evidence.asset_id}:${evidence.first_reading.at}`, iso(at), { ...evidence }, at);
      }
      eventsInRun += 1;
      if (!read.more) return;
    }
  }

  /**
   * A new forecast of every asset as of `at` (after new readings, at the predicted due instant, or
   * after a re-arm): the predicted due time moves the plan's timer and read model; an asset due by
   * now gets its work order, due lead_days before its projected crossing, with the forecast as
   * evidence. A plan paused or edited meanwhile drops the forecast (resumed, it forecasts again).
   */
  async function evaluatePredictions(at: Date): Promise<void> {
    state.readings_pending = false;
    const trigger = state.policy.trigger;
    if (state.schedule.type !== 'predictive' || trigger.type !== 'predictive') return;
    const since = predictiveSince(state.schedule.predictive);
    const read = await callActivity(() =>
      activities.predictiveForecasts.executeWithOptions({ startToCloseTimeout: '60 seconds', summary: `forecast ${trigger.parameter} as of ${iso(at)}` }, [
        { tenantId: state.tenantId, planId: state.planId, trigger, now: iso(at), since },
      ]),
    );
    if (read.plan === 'gone') {
      ended = 'archived';
      return;
    }
    if (state.status !== 'active' || state.policy.trigger !== trigger || state.schedule.type !== 'predictive') {
      state.readings_pending = true;
      return;
    }
    const before = predictedDueAt(state.schedule.predictive);
    const judged = onForecasts(state.schedule.predictive, read.forecasts, at);
    state.schedule = { ...state.schedule, predictive: judged.state };
    if (predictedDueAt(judged.state) !== before) state.seq += 1; // the read model's next_due_at moved
    for (const evidence of judged.fired) {
      if (ended) return;
      await executeOnEvidence('predictive', `predictive:${evidence.asset_id}:${evidence.predicted_at}`, workOrderDueAt(evidence, at), { ...evidence }, at);
    }
    eventsInRun += 1;
  }

  const continueAsNewDue = () => workflowInfo().continueAsNewSuggested || eventsInRun >= state.run_event_limit;

  // ---- main loop ---------------------------------------------------------------------------------
  // One timer at a time, for the next wake; it is kept while the wake time stays the same (an
  // execution of a fixed plan, a counter reading) and replaced when it moves.
  let timer: ArmedTimer | null = null;
  try {
    while (!ended) {
      if (state.seq !== persistedSeq) {
        await lock.run(persistSnapshot);
        continue;
      }
      if (readingsToEvaluate(state)) {
        await lock.run(evaluateReadings);
        continue;
      }
      if (continueAsNewDue()) break;
      const wake = nextWake(state);
      if (timer && timer.at !== wake?.at) {
        timer.scope.cancel();
        timer = null;
      }
      if (wake && toMs(wake.at) <= Date.now()) {
        await lock.run(() => serveWake(new Date()));
        continue;
      }
      if (wake && !timer) timer = armTimer(wake.at, toMs(wake.at) - Date.now(), wake.summary);
      setCurrentDetails(`${state.status} · version ${state.version} · ${wake ? `next: ${wake.summary}` : 'waiting for counter readings or changes'}`);
      const seen = changes;
      const armed = timer;
      await condition(() => ended !== null || changes !== seen || continueAsNewDue() || armed?.fired === true);
      if (armed?.fired && !ended) {
        timer = null;
        await lock.run(() => serveWake(new Date()));
      }
    }
  } catch (err) {
    // Update handlers report their own failures; only the orphan case ends the loop by throwing.
    if (!ended) throw err;
  }
  if (timer) (timer as ArmedTimer).scope.cancel();

  // Ending or continuing as new: let running handlers finish, and leave the read model current.
  for (;;) {
    await condition(allHandlersFinished);
    if (ended) return { status: ended, executions_total: state.executions_total };
    if (state.seq === persistedSeq) return continueAsNew<typeof maintenancePlanWorkflow>(state);
    try {
      await lock.run(persistSnapshot);
    } catch (err) {
      if (!ended) throw err;
    }
  }
}

interface ArmedTimer {
  at: IsoTimestamp;
  scope: CancellationScope;
  fired: boolean;
}

/** A durable timer with its UI summary, cancellable when the plan's next wake moves. */
function armTimer(at: IsoTimestamp, ms: number, summary: string): ArmedTimer {
  const timer: ArmedTimer = { at, scope: new CancellationScope(), fired: false };
  timer.scope
    .run(() => sleep(ms, { summary }))
    .then(
      () => {
        timer.fired = true;
      },
      () => undefined, // cancelled: the wake moved
    );
  return timer;
}

/** Runs critical sections one at a time, in arrival order (deterministic: plain promises). */
function fifoLock() {
  let busy = false;
  const waiting: Array<() => void> = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else busy = false;
  };
  return {
    async run<T>(work: () => Promise<T>): Promise<T> {
      if (busy) await new Promise<void>((resolve) => waiting.push(resolve));
      else busy = true;
      try {
        return await work();
      } finally {
        release();
      }
    },
  };
}
